/** GLM-4.5V / 4.6V (Zhipu AI) in the PC action space: the reply's one call run on the desktop. */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { GlmInput } from './model-output.ts'
import { GlmResult } from './result.ts'
import { DEFAULT_STEP, toUnified, WAIT_SECONDS, type GlmMeta } from './to-unified.ts'
import { toNativeResult } from './to-native-result.ts'

export { GlmResult } from './result.ts'
export type { GlmMeta } from './to-unified.ts'

/** "The coordinates involved are all represented in thousandths (0-999)." */
export const GRID = { size: { width: 1000, height: 1000 }, name: "GLM-V's 0–999 grid (thousandths of the screenshot)" }

export const glmAdapter: Adapter<GlmInput, GlmMeta, ActionQuery> = {
  name: 'glm',
  description: "A GLM-4.5V/4.6V reply in the PC action space as the model wrote it (Content-Type: text/plain, or JSON {\"response\": …}): an explanation, one call — left_click/right_click/middle_click/hover/left_double_click(start_box='[x,y]', element_info=…), left_drag(start_box, end_box), key(keys='ctrl+c'), type(content=…), scroll(start_box, direction, step), WAIT(), DONE(), FAIL() — often inside <|begin_of_box|>…<|end_of_box|>, then Memory:. " +
    `Answered with the reply as read (reasoning, explanation, the call, its element_info and the memory to send back), the unified actions and whether they ran, the cursor and a screenshot. scroll turns step notches (${DEFAULT_STEP} by default); WAIT() is ${WAIT_SECONDS} s; DONE() and FAIL() run nothing and are reported. ` +
    'A reply without an action, or one that does not parse, is a 400 quoting it.',
  consumes: ['application/json', 'text/plain'],
  coordinates: "GLM-V's 0–999 grid (thousandths of the screenshot), whatever the display size",
  versions: [
    { name: 'pc', description: "GLM-V's PC action space (GLM-4.5V, GLM-4.6V): points '[x,y]' in thousandths, 0–999.", schema: GlmInput },
  ],
  space: () => GRID,
  translate: toUnified,
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: GlmResult,
}
