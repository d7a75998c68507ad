/**
 * The screenshot the toolset's model sees, and so the pixels its coordinates are in. The tool
 * entry declares no display size, and an image over the API's limits would be downscaled by the
 * API, leaving the model's coordinates in a size nobody knows. So the size is ours: the display
 * the query declares (display_width_px/display_height_px), else the screen scaled down, aspect
 * kept, until it is within the limits Anthropic documents for every Claude model: 1568 pixels
 * on the long edge and about 1.15 megapixels (shared/research/model-formats.md).
 */
import type { CoordinateSpace } from '../../src/pipeline/adapter.ts'
import type { Size } from '../../src/screen/geometry.ts'

export const LONG_EDGE_MAX = 1568
export const PIXELS_MAX = 1_150_000

export function fittedForClaude (screen: Size): Size {
  const scale = Math.min(1, LONG_EDGE_MAX / Math.max(screen.width, screen.height), Math.sqrt(PIXELS_MAX / (screen.width * screen.height)))
  if (scale === 1) return screen
  return { width: Math.max(1, Math.floor(screen.width * scale)), height: Math.max(1, Math.floor(screen.height * scale)) }
}

/** Undefined when the query declared the display: then that display is the space, as for every adapter. */
export function toolsetSpace (screen: Size, declared: boolean): CoordinateSpace | undefined {
  if (declared) return undefined
  const size = fittedForClaude(screen)
  if (size === screen) return undefined
  return { size, screenshot: size, name: `the ${size.width}x${size.height} screenshot Claude is shown (the ${screen.width}x${screen.height} screen scaled to Claude's image limits)` }
}
