/**
 * What the route takes: the model's reply as text (src/schemas/model-text.ts) — the whole reply
 * with its ```python block (OpenCUA's `## Thought / ## Action / ## Code`), or the bare code —
 * per coordinate convention.
 */
import type { ModelText } from '../../src/schemas/model-text.ts'
import { modelText } from '../../src/schemas/model-text.ts'

export const PyautoguiAbsoluteInput = modelText('PyautoguiAbsoluteInput',
  'pyautogui code (in a ```python block or bare) whose x/y are pixels of the display, as the OSWorld baselines write them.')
export const PyautoguiSmartResizeInput = modelText('PyautoguiSmartResizeInput',
  "pyautogui code whose x/y are pixels of the display after Qwen2.5-VL's smart_resize, as OpenCUA writes them.")
export const PyautoguiRelativeInput = modelText('PyautoguiRelativeInput',
  'pyautogui code whose x/y are fractions of the display, 0–1 on each axis.')

export type PyautoguiInput = ModelText
export { replyText } from '../../src/schemas/model-text.ts'
