/**
 * The three coordinate conventions, chosen by `?coordinates=`:
 * - absolute: pixels of the display (display_width_px/display_height_px, else the screen), as
 *   the OSWorld baselines and Agent S write them for the screen they were shown;
 * - smart-resize: pixels of the screenshot as OpenCUA's Qwen2.5-VL processor resized it
 *   (smart_resize, factor 28, 3136 to 12,845,056 pixels), the display as the starting size;
 * - relative: fractions of the display, 0–1 on each axis (Aguvis, some OpenCUA prompts).
 */
import type { AdapterContext, CoordinateSpace } from '../../src/pipeline/adapter.ts'
import { InvalidQuery } from '../../src/errors/errors.ts'
import type { Size } from '../../src/screen/geometry.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { smartResize, type SmartResizeOptions } from '../shared/smart-resize.ts'

export const CONVENTIONS = ['absolute', 'smart-resize', 'relative'] as const
export type Convention = (typeof CONVENTIONS)[number]
export const DEFAULT_CONVENTION: Convention = 'absolute'

export type PyautoguiQuery = ActionQuery & { coordinates?: Convention }

/** OpenCUA's image processor (Qwen2.5-VL): `min_pixels` 3136, `max_pixels` 12845056. */
export const OPENCUA_RESIZE: SmartResizeOptions = { factor: 28, minPixels: 3136, maxPixels: 12845056 }

/** The space coordinates are translated into; undefined is the display itself. */
export function coordinateSpace (context: AdapterContext<PyautoguiQuery>): CoordinateSpace | undefined {
  if (context.version !== 'smart-resize') return undefined
  const { display } = context
  try {
    const size = smartResize(display, OPENCUA_RESIZE)
    return { size, name: `the ${size.width}x${size.height} image OpenCUA sees (the ${display.width}x${display.height} display after smart_resize)` }
  } catch (error) {
    throw new InvalidQuery(`coordinates=smart-resize: ${(error as Error).message}`)
  }
}

/** The size the translated coordinates are pixels of. */
export const spaceSize = (context: AdapterContext<PyautoguiQuery>): Size => coordinateSpace(context)?.size ?? context.display
