/** Conatus' computer-use actions (CUAction), bare or inside the AIToolCall that carries them. */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { ConatusInput, type ConatusAction, type ConatusToolCall } from './cu-action.ts'
import { ConatusToolResult } from './result.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type ConatusMeta } from './to-unified.ts'
import { unwrap } from './unwrap.ts'

export const conatusAdapter: Adapter<ConatusAction | ConatusToolCall, ConatusMeta, ActionQuery> = {
  name: 'conatus',
  description: "Conatus' computer-use actions (left_mouse_click, drag, keypress, scroll, …), bare or as an AIToolCall whose arguments are a dict or a JSON string; answered as a tool result carrying the call_id.",
  coordinates: 'the display (display_width_px/display_height_px, else the screen); scroll distance_xy in pixels (120 per notch)',
  versions: [{
    name: 'cu_action',
    description: 'The CU* dataclasses of conatus.models.inputs_outputs.tool_calls, as safe_asdict() writes them.',
    schema: ConatusInput,
  }],
  // A computer-use loop shows the model the screen after each action, unless the client declines.
  translate: (input, context) => toUnified(unwrap(input), context.query.screenshot !== false),
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: ConatusToolResult,
}
