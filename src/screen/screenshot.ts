/**
 * Raw pixels from the driver → the image a model sees (PNG by default, JPEG or WebP when a
 * client asks), at the size it believes the screen is. sharp (libvips) and fdeflate
 * (@napi-rs/image, for photographic PNGs) encode and resize on threads of their own, so the event
 * loop only reorders bytes with one native call (X hands out BGRX, every encoder wants RGB) and,
 * for a PNG, samples every 8th row to pick its encoder.
 */
import sharp from 'sharp'
import type { RawImage } from '../driver/driver.ts'
import type { Size } from './geometry.ts'
import { rgbx } from './pixels.ts'
import { BY_CONTENT, fdeflatePng, photographic, rgbPpm, ZLIB_PNG } from './png-encoders.ts'
import { unreachable } from '../errors/unreachable.ts'

export { rgbx } from './pixels.ts'

export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const
export type ImageFormat = typeof IMAGE_FORMATS[number]

/** How a screenshot is encoded. `quality` (1–100) applies to jpeg and webp only. */
export interface ImageEncoding {
  format: ImageFormat
  quality?: number
}

export const DEFAULT_ENCODING: ImageEncoding = { format: 'png' }
/** sharp's own default for both lossy formats; named here so the OpenAPI text can say it. */
export const DEFAULT_QUALITY = 80

export const MEDIA_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const satisfies Record<ImageFormat, string>
export type ImageMediaType = typeof MEDIA_TYPES[ImageFormat]

/**
 * WebP's fastest method: its default (4) took ~100 ms for one 1280x800 screen here, for a
 * file a few percent smaller; a screenshot is looked at once.
 */
const WEBP_EFFORT = 0

/**
 * Encodes a screenshot, resized to `size` when that differs from the raw image. A PNG goes to
 * the encoder that suits the content (png-encoders.ts); `image`'s pixels are left as they were.
 */
export async function encodeImage (image: RawImage, size?: Size, encoding: ImageEncoding = DEFAULT_ENCODING): Promise<Buffer> {
  const raw = { width: image.width, height: image.height, channels: 4 } as const
  const resized = size !== undefined && (size.width !== image.width || size.height !== image.height)
  if (!resized && encoding.format === 'png') return BY_CONTENT.encode(image)
  let pipeline = sharp(rgbx(image), { raw }).removeAlpha()
  if (resized) {
    // sharp resizes before it drops the fourth byte, and premultiplies by it as alpha: X's
    // pad byte (often 0) would blacken the image. So the RGB comes out first, then is resized.
    const rgb = await pipeline.raw().toBuffer()
    // fill: a client may declare another aspect ratio; its coordinates map per axis too.
    pipeline = sharp(rgb, { raw: { ...raw, channels: 3 } }).resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' })
  }
  const quality = encoding.quality ?? DEFAULT_QUALITY
  switch (encoding.format) {
    case 'png': {
      if (!photographic(image.data, image.width, image.height)) return pipeline.png(ZLIB_PNG).toBuffer()
      // The resized pixels are sharp's fresh output (RGB: the alpha was removed), the encoder's alone.
      const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true })
      return fdeflatePng(rgbPpm(data, info.width, info.height))
    }
    case 'jpeg': return pipeline.jpeg({ quality }).toBuffer()
    case 'webp': return pipeline.webp({ quality, effort: WEBP_EFFORT }).toBuffer()
    default: return unreachable(encoding.format)
  }
}

/** Encodes a screenshot as PNG (the seed's format), resized to `size` when that differs. */
export function encodePng (image: RawImage, size?: Size): Promise<Buffer> {
  return encodeImage(image, size, DEFAULT_ENCODING)
}
