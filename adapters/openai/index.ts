/** OpenAI computer use: the Responses API's `computer` tool and `computer_use_preview` (CUA). */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import { OpenaiComputerInput } from './computer.ts'
import { OpenaiComputerUsePreviewInput } from './computer_use_preview.ts'
import { DEFAULT_PX_PER_NOTCH, DEFAULT_WAIT_SECONDS, OpenaiOwnQuery, type OpenaiQuery, type ToolVersion } from './query.ts'
import { OpenaiComputerCallOutput } from './result.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type OpenaiBody, type OpenaiMeta } from './to-unified.ts'

export { OpenaiComputerCallOutput } from './result.ts'
export type { OpenaiBody, OpenaiMeta } from './to-unified.ts'

export const openaiAdapter: Adapter<OpenaiBody, OpenaiMeta, OpenaiQuery> = {
  name: 'openai',
  description: 'OpenAI computer use (Responses API): the computer_call item (or its action, or its list of actions), answered with the computer_call_output item for the next request: its call_id (from the item or the call_id query) and a screenshot of the screen after the whole call. ' +
    `keypress keys are pressed together; keys on a pointer action are held around it; button wheel is the middle button. scroll_x/scroll_y pixels become wheel notches of ${DEFAULT_PX_PER_NOTCH} px (scroll_px_per_notch), a remainder rounding away from zero. wait waits ${DEFAULT_WAIT_SECONDS} s (wait_seconds). ` +
    'A call with pending_safety_checks is refused with 409 until the query acknowledges them (acknowledge_safety_checks=true or their ids); they are then echoed as acknowledged_safety_checks. ' +
    'A failure is answered with the same item, status "incomplete" and an `error` field of ours (remove it before sending the item on), with the error\'s HTTP status. No current_url: a desktop has no page address.',
  coordinates: 'pixels of the screenshots the model is sent: the declared display (display_width_px/display_height_px, the display_width/display_height of a computer_use_preview tool), else the screen',
  versions: [
    { name: 'computer', description: 'The computer tool (gpt-5.4 and later): a computer_call carries a batch of actions, run in order as one batch.', schema: OpenaiComputerInput },
    { name: 'computer_use_preview', description: 'The computer_use_preview tool (model computer-use-preview): a computer_call carries one action.', schema: OpenaiComputerUsePreviewInput },
  ],
  query: OpenaiOwnQuery,
  version: (query) => query.tool_version,
  translate: toUnified,
  result: (outcome, context, translation) => toNativeResult(outcome, translation, context.version as ToolVersion),
  resultSchema: OpenaiComputerCallOutput,
}
