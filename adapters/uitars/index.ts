/** UI-TARS (ByteDance): the model's raw reply, its Action: calls run on the desktop. */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import { coordinatesQuery } from '../shared/coordinate-conventions.ts'
import { UitarsAbsoluteInput, UitarsRelativeInput, type UitarsInput } from './model-output.ts'
import { UitarsResult } from './result.ts'
import { CONVENTIONS, coordinateSpace, DEFAULT_CONVENTION, type UitarsQuery } from './space.ts'
import { toNativeResult } from './to-native-result.ts'
import { LONG_PRESS_SECONDS, NOTCHES_PER_SCROLL, toUnified, WAIT_SECONDS, type UitarsMeta } from './to-unified.ts'

export { UitarsResult } from './result.ts'
export type { UitarsMeta } from './to-unified.ts'
export type { UitarsQuery } from './space.ts'

export const uitarsAdapter: Adapter<UitarsInput, UitarsMeta, UitarsQuery> = {
  name: 'uitars',
  description: "A UI-TARS reply as the model wrote it (Content-Type: text/plain, or JSON {\"response\": …}): Thought:/Reflection:/Action_Summary: and the calls after Action: (several, separated by blank lines), with points written (x,y), <point>x y</point>, <bbox>x1 y1 x2 y2</bbox>, <|box_start|>(x,y)<|box_end|> or as a box [x1,y1,x2,y2] (its centre). " +
    `Answered with the reply as read, each call's unified actions and whether it ran, the cursor and a screenshot. type's trailing \\n presses Enter; hotkey keys are split on spaces; scroll is ${NOTCHES_PER_SCROLL} wheel notches; wait() is ${WAIT_SECONDS} s; long_press holds ${LONG_PRESS_SECONDS} s unless time= says; finished() runs nothing and is reported; call_user() waits for a person to take the desktop over and hand it back (request_human; their message in human). ` +
    'A reply that does not parse is a 400 quoting the part that failed.',
  consumes: ['application/json', 'text/plain'],
  coordinates: 'relative: 0–1000 on each axis; absolute: pixels of the display after smart_resize (factor 28), as UI-TARS-1.5 sees it',
  versions: [
    { name: 'relative', description: 'UI-TARS 1.0 and the Doubao UI-TARS models: 0–1000 on each axis, whatever the screenshot size.', schema: UitarsRelativeInput },
    { name: 'absolute', description: "UI-TARS-1.5 (Qwen2.5-VL based): pixels of the screenshot as the model's processor resized it — the display (display_width_px/display_height_px, else the screen) after smart_resize, factor 28, 78,400 to 12,845,056 pixels.", schema: UitarsAbsoluteInput },
  ],
  ...coordinatesQuery(CONVENTIONS, `How the reply's points are written: relative (UI-TARS 1.0, Doubao) or absolute (UI-TARS-1.5). Default: ${DEFAULT_CONVENTION}.`),
  space: coordinateSpace,
  translate: toUnified,
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: UitarsResult,
}
