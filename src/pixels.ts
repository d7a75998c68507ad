/** Pixel layouts: X's BGRX rows turned into RGBX rows, the layout sharp reads as 4 raw channels. */

/**
 * A copy of the first `bytes` of `bgrx` as RGBX. Buffer#swap32 (one native call) turns each
 * pixel into XRGB; read from one byte further on, that is RGBX, whose fourth byte (the next
 * pixel's X, or the spare byte at the end) is dropped before encoding.
 */
export function bgrxToRgbx (bgrx: Buffer, bytes: number, into?: Buffer): Buffer {
  // `into` (bytes + 1 long, or ignored) is memory a caller reuses from an earlier copy.
  const swapped = into?.length === bytes + 1 ? into : Buffer.allocUnsafe(bytes + 1)
  bgrx.copy(swapped, 0, 0, bytes)
  swapped.subarray(0, bytes).swap32()
  swapped[bytes] = 0
  return swapped.subarray(1)
}
