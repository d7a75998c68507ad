/**
 * Raw pixels from the driver → the PNG a model sees, at the size it believes the screen is.
 * sharp (libvips) encodes and resizes off the main thread; we only reorder the bytes, which
 * X hands out as BGRA and PNG wants as RGB.
 */
import sharp from 'sharp'
import type { RawImage } from './driver.ts'
import type { Size } from './geometry.ts'

/**
 * zlib level 1: measured ~5x faster than the default for ~1.6x the bytes (feasibility §6c).
 * On loopback the bytes are cheap and the milliseconds are not; the image a model sees is
 * pixel-identical either way.
 */
const PNG_COMPRESSION_LEVEL = 1

/** Packs 4-byte pixels into 3-byte RGB, swapping B and R when the source is BGRA. */
export function toRgb ({ data, width, height, order }: RawImage): Buffer {
  const pixels = width * height
  const rgb = Buffer.allocUnsafe(pixels * 3)
  const [r, b] = order === 'bgra' ? [2, 0] : [0, 2]
  for (let i = 0, o = 0, end = pixels * 4; i < end; i += 4, o += 3) {
    rgb[o] = data[i + r]!
    rgb[o + 1] = data[i + 1]!
    rgb[o + 2] = data[i + b]!
  }
  return rgb
}

/** Encodes a screenshot as PNG, resized to `size` when that differs from the raw image. */
export async function encodePng (image: RawImage, size?: Size): Promise<Buffer> {
  let pipeline = sharp(toRgb(image), { raw: { width: image.width, height: image.height, channels: 3 } })
  if (size && (size.width !== image.width || size.height !== image.height)) {
    // fill: a client may declare another aspect ratio; its coordinates map per axis too.
    pipeline = pipeline.resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' })
  }
  return pipeline.png({ compressionLevel: PNG_COMPRESSION_LEVEL, adaptiveFiltering: false }).toBuffer()
}
