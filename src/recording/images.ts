/** A screenshot's file extension, from its first bytes (the encoding a request asked for: PNG, JPEG or WebP). */
export function mediaTypeOfImage (bytes: Buffer): 'png' | 'jpg' | 'webp' {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpg'
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp'
  return 'png'
}

export const IMAGE_MEDIA_TYPES = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const
