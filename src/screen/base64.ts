/**
 * Base64 of an image we encoded, remembered as text that needs no JSON escaping. A screenshot is
 * up to a few MB of base64; the HTTP layer (src/http/verbatim-strings.ts) writes a remembered
 * one into the body as it is, instead of having the serializer scan and copy it. Only the last
 * few are remembered, and each is forgotten once written, so nothing large stays pinned.
 */

/** Shorter strings cost the serializer little. */
export const VERBATIM_MIN_LENGTH = 64 * 1024
const REMEMBERED = 4
const verbatim = new Set<string>()

export function imageBase64 (bytes: Buffer): string {
  const text = bytes.toString('base64')
  if (text.length >= VERBATIM_MIN_LENGTH) {
    verbatim.add(text)
    if (verbatim.size > REMEMBERED) verbatim.delete(verbatim.values().next().value!)
  }
  return text
}

/** Whether `text` is base64 we made (checked by identity first: a long string's hash is its length). */
export function isImageBase64 (text: string): boolean {
  return text.length >= VERBATIM_MIN_LENGTH && verbatim.has(text)
}

/** Whether any is remembered: when none is, an answer has nothing to look for. */
export function anyImageBase64 (): boolean {
  return verbatim.size > 0
}

export function forgetImageBase64 (text: string): void {
  verbatim.delete(text)
}
