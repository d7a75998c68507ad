/**
 * PNG encoders of a screenshot. Which is cheapest depends on the content (bench/real-content.ts
 * measures them on an empty desktop, a browser on a page of text and photographs, and a
 * full-screen photograph): zlib at level 1 (sharp) is fastest and smallest where the screen is
 * mostly flat colour and text, but spends ~5–8x longer than fdeflate (@napi-rs/image's Fast
 * mode, the png crate) on a photograph, for bigger output. So a screenshot is sampled first and
 * goes to the one that suits it; a screen of a few colours is written indexed (palette-png.ts).
 * Every encoder is lossless and decodes at the image's own size.
 */
import { CompressionType, FilterType, Transformer } from '@napi-rs/image'
import sharp from 'sharp'
import type { RawImage } from '../driver/driver.ts'
import { fewColours, palettePng } from './palette-png.ts'
import { rgbx, writeRgb } from './pixels.ts'

export interface PngEncoder {
  name: string
  encode (image: RawImage): Promise<Buffer>
}

/** zlib level 1 without adaptive filtering: ~5x faster than the default on flat content (feasibility §6c). */
export const ZLIB_PNG = { compressionLevel: 1, adaptiveFiltering: false } as const
/**
 * fdeflate with its adaptive filter (the best of five per row), on RGB: ~10 % slower than
 * Paeth alone, 3 % smaller (a photograph, a web page with photographs), within 1.3x the bytes
 * of ImageMagick's zlib at level 7.
 */
const FDEFLATE_PNG = { compressionType: CompressionType.Fast, filterType: FilterType.Adaptive } as const

/**
 * The share of pixels, in every 8th row, that repeat their left neighbour: flat colour, text
 * and UI repeat most of theirs (a terminal 87 %, a spreadsheet 95 %), a web page with a few
 * photographs ~68 %, a photograph almost none (0.1 %).
 */
export function repeatShare (pixels: Buffer, width: number, height: number): number {
  let repeats = 0
  let sampled = 0
  for (let y = 0; y < height; y += 8) {
    const row = y * width * 4
    for (let x = 1; x < width; x++) {
      const at = row + x * 4
      if (pixels[at] === pixels[at - 4] && pixels[at + 1] === pixels[at - 3] && pixels[at + 2] === pixels[at - 2]) repeats++
    }
    sampled += width - 1
  }
  return sampled ? repeats / sampled : 1
}

/**
 * Whether photographs make up a good part of the screen: fewer than three quarters of the
 * sampled pixels repeat. fdeflate encodes such a screen (a web page with photographs) in half
 * sharp's time, 15 % smaller.
 */
const PHOTOGRAPHIC_REPEATS = 0.75
export const photographic = (pixels: Buffer, width: number, height: number): boolean => repeatShare(pixels, width, height) < PHOTOGRAPHIC_REPEATS

/**
 * Below this share of repeats the screen is photographs nearly throughout, and fdeflate's Up
 * filter is enough: on the full-screen photograph 11 ms against adaptive's 20 ms, 2119 against
 * 1949 KB (1.23x `import`'s 1723). On a page with some photographs Up's bytes would exceed
 * 1.3x `import`'s, so the adaptive filter stays there.
 */
const PHOTOGRAPH_REPEATS = 0.1

/** Spare buffers for fdeflate's input, so a screenshot does not cost a fresh 3 MB (V8 collects on external memory too). */
const spares: Buffer[] = []
const MAX_SPARES = 2

/**
 * The pixels as a binary PPM (P6: a short header, then RGB), in a buffer of our own.
 * @napi-rs/image encodes a PNG in the colour type it decoded: RGB is a quarter less to filter
 * and compress than RGBA with an opaque alpha (X's pad byte is dropped, never taken for
 * transparency), ~40 % faster and ~10 % smaller on a photograph. The caller's pixels are left
 * as they were.
 */
function ppm (image: RawImage): { data: Buffer, done: () => void } {
  const header = ppmHeader(image.width, image.height)
  const bytes = header.length + image.width * image.height * 3
  const spare = spares.pop()
  const data = spare?.length === bytes ? spare : Buffer.allocUnsafe(bytes)
  data.write(header, 0, 'latin1')
  writeRgb(image, data, header.length)
  return { data, done: () => { if (spares.length < MAX_SPARES) spares.push(data) } }
}

/** Padded with spaces to a multiple of four bytes, so the RGB after it starts at a word (writeRgb's fastest path). */
function ppmHeader (width: number, height: number): string {
  const fields = `${width} ${height}\n255\n`
  return `P6${' '.repeat(3 - ((fields.length + 2) % 4))}\n${fields}`
}

/** A PPM of RGB rows (sharp's raw output after removeAlpha), for fdeflatePng. */
export function rgbPpm (rgb: Buffer, width: number, height: number): Buffer {
  return Buffer.concat([Buffer.from(ppmHeader(width, height), 'latin1'), rgb.subarray(0, width * height * 3)])
}

/** fdeflate on a PPM that is the encoder's alone until it has finished. */
export async function fdeflatePng (ppmBytes: Buffer, filterType: FilterType = FDEFLATE_PNG.filterType): Promise<Buffer> {
  return new Transformer(ppmBytes).png({ compressionType: FDEFLATE_PNG.compressionType, filterType })
}

function viaSharp (level: number, adaptiveFiltering: boolean): PngEncoder {
  return {
    name: `sharp zlib ${level}${adaptiveFiltering ? ', adaptive filters' : ', no filter'}`,
    encode: (image) => sharp(rgbx(image), { raw: { width: image.width, height: image.height, channels: 4 } })
      .removeAlpha().png({ compressionLevel: level, adaptiveFiltering }).toBuffer(),
  }
}

function viaFdeflate (filterType: FilterType, filter: string): PngEncoder {
  return {
    name: `fdeflate (@napi-rs/image Fast), ${filter} filter`,
    encode: async (image) => {
      const input = ppm(image)
      try {
        return await fdeflatePng(input.data, filterType)
      } finally {
        input.done()
      }
    },
  }
}

const ZLIB = viaSharp(ZLIB_PNG.compressionLevel, ZLIB_PNG.adaptiveFiltering)
const FDEFLATE = viaFdeflate(FDEFLATE_PNG.filterType, 'adaptive')
const FDEFLATE_UP = viaFdeflate(FilterType.Up, 'Up')

/**
 * What screenshots use: an indexed PNG for a screen of at most 16 colours (a bare desktop),
 * fdeflate for a screen with photographs (with the Up filter when it is photographs nearly
 * throughout), zlib level 1 (sharp) for the rest. Telling the few colours apart costs a screen
 * of text or pictures well under 0.1 ms: it stops at the 17th.
 */
export const BY_CONTENT: PngEncoder = {
  name: 'ours: indexed if ≤ 16 colours, else by repeats: fdeflate Up (< 10 %), fdeflate adaptive (< 75 %), sharp zlib 1',
  encode: (image) => {
    const colours = fewColours(image)
    if (colours) return palettePng(image, colours)
    // Either byte order: a pixel repeats its neighbour in both.
    const repeats = repeatShare(image.data, image.width, image.height)
    return (repeats < PHOTOGRAPH_REPEATS ? FDEFLATE_UP : repeats < PHOTOGRAPHIC_REPEATS ? FDEFLATE : ZLIB).encode(image)
  },
}

/** The candidates the bench measures against each other, ours among them. */
export const PNG_CANDIDATES: readonly PngEncoder[] = [
  ZLIB,
  viaSharp(1, true),
  FDEFLATE_UP,
  viaFdeflate(FilterType.Paeth, 'Paeth'),
  FDEFLATE,
  BY_CONTENT,
]
