/** Pixel layouts: X's BGRX rows turned into RGBX rows, the layout sharp reads as 4 raw channels. */
import type { RawImage } from '../driver/driver.ts'

/**
 * Reorders, in place, the BGRX pixels in the first `bytes` of `buffer` (which has one byte
 * more) and answers them as RGBX: Buffer#swap32 (one native call) turns each pixel into XRGB;
 * read from one byte further on, that is RGBX, whose fourth byte (the next pixel's X, or the
 * spare byte at the end) is dropped before encoding.
 */
export function reorderToRgbx (buffer: Buffer, bytes: number): Buffer {
  if (buffer.length !== bytes + 1) throw new Error(`reordering ${bytes} bytes needs a buffer of ${bytes + 1}, got ${buffer.length}`)
  buffer.subarray(0, bytes).swap32()
  buffer[bytes] = 0
  return buffer.subarray(1)
}

/** A copy of the first `bytes` of `bgrx` as RGBX. */
export function bgrxToRgbx (bgrx: Buffer, bytes: number): Buffer {
  const copy = Buffer.allocUnsafe(bytes + 1)
  bgrx.copy(copy, 0, 0, bytes)
  return reorderToRgbx(copy, bytes)
}

/** The pixels as RGBX rows sharp can read as 4 raw channels: as they are, or copied from BGRX. */
export function rgbx ({ data, width, height, order }: RawImage): Buffer {
  const bytes = width * height * 4
  if (data.length < bytes) throw new Error(`a ${width}x${height} image needs ${bytes} bytes, got ${data.length}`)
  if (order === 'rgba') return data.subarray(0, bytes)
  return bgrxToRgbx(data, bytes)
}
