/**
 * PNG encoders of a screenshot, measured against each other by the bench (bench/real-content.ts)
 * on an empty desktop, a browser on a page of text and photographs, and a full-screen photograph.
 * Every one is lossless and decodes at the image's own size; they differ in time and bytes.
 */
import { CompressionType, FilterType, Transformer } from '@napi-rs/image'
import sharp from 'sharp'
import type { RawImage } from '../driver/driver.ts'
import { rgbx } from './pixels.ts'

export interface PngEncoder {
  name: string
  encode (image: RawImage): Promise<Buffer>
}

/**
 * The pixels as RGBA with an opaque alpha, in place: the fourth byte of each RGBX pixel is X's
 * padding (0 on Xvfb), which an RGBA encoder would take for full transparency.
 */
export function opaqueRgba (image: RawImage): Buffer {
  const data = rgbx(image)
  for (let i = 3; i < data.length; i += 4) data[i] = 255
  return data
}

/** sharp (libvips → libspng, zlib): RGB, the given zlib level, with or without adaptive filtering. */
function viaSharp (level: number, adaptiveFiltering: boolean): PngEncoder {
  return {
    name: `sharp zlib ${level}${adaptiveFiltering ? ', adaptive filters' : ', no filter'}`,
    encode: ({ width, height, ...image }) => sharp(rgbx({ width, height, ...image }), { raw: { width, height, channels: 4 } })
      .removeAlpha().png({ compressionLevel: level, adaptiveFiltering }).toBuffer(),
  }
}

/** @napi-rs/image (the png crate): its Fast mode deflates with fdeflate; RGBA. */
function viaFdeflate (filter: FilterType, name: string): PngEncoder {
  return {
    name: `fdeflate (@napi-rs/image Fast), ${name} filter`,
    encode: (image) => Transformer.fromRgbaPixels(opaqueRgba(image), image.width, image.height)
      .png({ compressionType: CompressionType.Fast, filterType: filter }),
  }
}

export const PNG_CANDIDATES: readonly PngEncoder[] = [
  viaSharp(1, false),
  viaSharp(1, true),
  viaFdeflate(FilterType.Up, 'Up'),
  viaFdeflate(FilterType.Paeth, 'Paeth'),
  viaFdeflate(FilterType.Adaptive, 'adaptive'),
]
