/**
 * The space each model version's coordinates live in. Qwen2.5-VL answers in pixels of the
 * screenshot as its processor resized it (smart_resize of the display the client shows it);
 * Qwen3-VL answers on a relative 0–999 grid whatever the image size.
 */
import type { CoordinateSpace } from '../../src/adapter.ts'
import type { Size } from '../../src/geometry.ts'
import { smartResize, type SmartResizeOptions } from '../../src/smart-resize.ts'

/** Qwen2.5-VL's processor constants (shared/research/model-formats.md §1e). */
export const QWEN25_RESIZE: SmartResizeOptions = { factor: 28, minPixels: 3136, maxPixels: 12845056 }

export const QWEN3_GRID: CoordinateSpace = { size: { width: 1000, height: 1000 }, name: "Qwen3-VL's 0–999 relative grid" }

export function spaceOf (version: string, display: Size): CoordinateSpace {
  if (version === '3') return QWEN3_GRID
  const size = smartResize(display, QWEN25_RESIZE)
  return { size, name: `Qwen2.5-VL's ${size.width}x${size.height} smart-resized screenshot` }
}
