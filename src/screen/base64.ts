/** Base64 written into a buffer, without a string the size of the whole (see deferred-images.ts). */

/** Characters of base64 (padded) for `bytes` bytes. */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4

/**
 * A multiple of three bytes: every chunk but the last encodes without padding. Its text
 * (64 K characters) is an ordinary young string, which a scavenge frees at almost no cost.
 */
const CHUNK = 48 * 1024

/** Writes `bytes` as base64 into `out` at `offset`; returns the characters written. */
export function writeBase64 (bytes: Buffer, out: Buffer, offset: number): number {
  let written = 0
  for (let at = 0; at < bytes.length; at += CHUNK) {
    written += out.write(bytes.toString('base64', at, Math.min(at + CHUNK, bytes.length)), offset + written, 'latin1')
  }
  return written
}
