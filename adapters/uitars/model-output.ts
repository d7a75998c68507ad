/** What the route takes: a UI-TARS reply as text (src/schemas/model-text.ts), per coordinate convention. */
import type { ModelText } from '../../src/schemas/model-text.ts'
import { modelText } from '../../src/schemas/model-text.ts'

export const UitarsRelativeInput = modelText('UitarsRelativeInput',
  "A UI-TARS reply (Thought:/Reflection:/Action_Summary: and an Action: with one or more calls) whose points are relative, 0–1000 on each axis.")
export const UitarsAbsoluteInput = modelText('UitarsAbsoluteInput',
  'A UI-TARS reply whose points are pixels of the smart-resized screenshot the model saw.')

export type UitarsInput = ModelText
export { replyText } from '../../src/schemas/model-text.ts'
