/**
 * Qwen2-VL's smart_resize: the size a Qwen-based model (Qwen2.5-VL, Qwen3-VL, UI-TARS 1.5)
 * actually sees a screenshot at, and so the space its absolute coordinates live in.
 * A port of `smart_resize` from QwenLM's qwen-vl-utils / ByteDance's ui_tars action parser,
 * including Python's round-half-to-even, so 1280x800 gives the same 1288x812 it gives there.
 */
import type { Size } from '../../src/screen/geometry.ts'

export interface SmartResizeOptions {
  /** Patch size × merge size: 28 for Qwen2/2.5-VL and UI-TARS, 32 for Qwen3-VL. */
  factor: number
  minPixels: number
  maxPixels: number
}

/** UI-TARS 1.5's constants (`codes/ui_tars/action_parser.py`). */
export const UI_TARS_RESIZE: SmartResizeOptions = { factor: 28, minPixels: 100 * 28 * 28, maxPixels: 16384 * 28 * 28 }

const MAX_RATIO = 200

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven (value: number): number {
  const floor = Math.floor(value)
  const diff = value - floor
  if (diff > 0.5) return floor + 1
  if (diff < 0.5) return floor
  return floor % 2 === 0 ? floor : floor + 1
}

export function smartResize ({ width, height }: Size, { factor, minPixels, maxPixels }: SmartResizeOptions): Size {
  if (Math.max(width, height) / Math.min(width, height) > MAX_RATIO) {
    throw new RangeError(`a ${width}x${height} screen is too far from square for smart_resize (aspect ratio above ${MAX_RATIO})`)
  }
  let h = Math.max(factor, roundHalfEven(height / factor) * factor)
  let w = Math.max(factor, roundHalfEven(width / factor) * factor)
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels)
    h = Math.max(factor, Math.floor(height / beta / factor) * factor)
    w = Math.max(factor, Math.floor(width / beta / factor) * factor)
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width))
    h = Math.ceil((height * beta) / factor) * factor
    w = Math.ceil((width * beta) / factor) * factor
  }
  return { width: w, height: h }
}
