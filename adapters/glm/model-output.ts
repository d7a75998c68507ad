/**
 * What the route takes: GLM-V's reply as text (src/schemas/model-text.ts): its explanation, the
 * action, often inside <|begin_of_box|>…<|end_of_box|>, and `Memory:`.
 */
import type { ModelText } from '../../src/schemas/model-text.ts'
import { modelText } from '../../src/schemas/model-text.ts'

export const GlmInput = modelText('GlmPcInput',
  "A GLM-4.5V/4.6V reply in the PC action space: an explanation, one call such as left_click(start_box='[586, 446]', element_info='OK button') (points 0–999), then Memory:.")
export type GlmInput = ModelText
export { replyText } from '../../src/schemas/model-text.ts'
