/** pyautogui code (OpenCUA, the OSWorld baselines, Aguvis, Agent S): read, never run as Python. */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import { coordinatesQuery } from '../shared/coordinate-conventions.ts'
import { PyautoguiAbsoluteInput, PyautoguiRelativeInput, PyautoguiSmartResizeInput, type PyautoguiInput } from './model-output.ts'
import { PyautoguiResult } from './result.ts'
import { CONVENTIONS, coordinateSpace, DEFAULT_CONVENTION, type PyautoguiQuery } from './space.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type PyautoguiMeta } from './to-unified.ts'

export { PyautoguiResult } from './result.ts'
export type { PyautoguiMeta } from './to-unified.ts'
export type { PyautoguiQuery } from './space.ts'

export const pyautoguiAdapter: Adapter<PyautoguiInput, PyautoguiMeta, PyautoguiQuery> = {
  name: 'pyautogui',
  description: 'pyautogui code as a model wrote it (Content-Type: text/plain, or JSON {"response": …}): the reply with its ```python block, or the bare code. ' +
    'A restricted reader, not Python: only calls with literal arguments — pyautogui.click/leftClick/doubleClick/tripleClick/rightClick/middleClick/moveTo/dragTo/mouseDown/mouseUp/scroll/vscroll/hscroll/write/typewrite/press/hotkey/keyDown/keyUp, ' +
    'computer.triple_click/wait/terminate, time.sleep, pyperclip.copy/paste (the clipboard, with --clipboard) and the bare WAIT, DONE, FAIL — with comments and blank lines; anything else is a 400 quoting its line. ' +
    'Answered with each call as read, the unified actions it became and whether it ran, the cursor and a screenshot; terminate/DONE/FAIL and WAIT/computer.wait() run nothing and are reported.',
  consumes: ['application/json', 'text/plain'],
  coordinates: 'absolute: pixels of the display; smart-resize: pixels of the display after smart_resize (factor 28), as OpenCUA sees it; relative: 0–1 fractions of the display',
  versions: [
    { name: 'absolute', description: 'The OSWorld baselines, Agent S: pixels of the display (display_width_px/display_height_px, else the screen).', schema: PyautoguiAbsoluteInput },
    { name: 'smart-resize', description: "OpenCUA (Qwen2.5-VL based): pixels of the screenshot as the model's processor resized it — the display after smart_resize, factor 28, 3,136 to 12,845,056 pixels.", schema: PyautoguiSmartResizeInput },
    { name: 'relative', description: 'Fractions of the display, 0–1 on each axis (1.0 is the last pixel).', schema: PyautoguiRelativeInput },
  ],
  ...coordinatesQuery(CONVENTIONS, `How the code's x and y are written: absolute (display pixels), smart-resize (OpenCUA) or relative (0–1). Default: ${DEFAULT_CONVENTION}.`),
  space: coordinateSpace,
  translate: toUnified,
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: PyautoguiResult,
}
