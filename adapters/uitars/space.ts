/**
 * The two coordinate conventions, chosen by `?coordinates=`:
 * - relative: UI-TARS 1.0 (Qwen2-VL based) and the Doubao UI-TARS models (`<point>`, `<bbox>`),
 *   0–1000 on each axis whatever the screenshot's size;
 * - absolute: UI-TARS-1.5 (Qwen2.5-VL based), pixels of the screenshot as the model's image
 *   processor resized it (smart_resize, factor 28, up to 16384×28×28 pixels).
 * The image the model saw is the screenshot the client sent it, which is the display
 * (display_width_px/display_height_px, else the screen), so the smart-resize starts there.
 */
import type { AdapterContext, CoordinateSpace } from '../../src/pipeline/adapter.ts'
import { InvalidQuery } from '../../src/errors/errors.ts'
import { smartResize, UI_TARS_RESIZE } from '../shared/smart-resize.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'

export const CONVENTIONS = ['relative', 'absolute'] as const
export type Convention = (typeof CONVENTIONS)[number]
export const DEFAULT_CONVENTION: Convention = 'relative'

export type UitarsQuery = ActionQuery & { coordinates?: Convention }

export const RELATIVE_GRID: CoordinateSpace = {
  size: { width: 1000, height: 1000 },
  name: "UI-TARS' relative 0–1000 scale",
}

export function coordinateSpace (context: AdapterContext<UitarsQuery>): CoordinateSpace {
  if (context.version === 'relative') return RELATIVE_GRID
  const { display } = context
  try {
    const size = smartResize(display, UI_TARS_RESIZE)
    return { size, name: `the ${size.width}x${size.height} image UI-TARS 1.5 sees (the ${display.width}x${display.height} display after smart_resize)` }
  } catch (error) {
    throw new InvalidQuery(`coordinates=absolute: ${(error as Error).message}`)
  }
}
