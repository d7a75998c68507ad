/**
 * A screen of a few colours (a bare desktop: one) as an indexed PNG: 1, 2 or 4 bits a pixel
 * and a palette of exactly those colours, so lossless. zlib cannot shrink a 4 MB screen of one
 * colour below ~1/1000 (a match is at most 258 bytes): 28 KB at level 1, where ImageMagick's
 * `import` writes < 1 KB. sharp writes palette PNGs through libimagequant, 40–80 ms here for a
 * one-colour screen, so the few lines of PNG framing are written here (node:zlib deflates,
 * node:zlib crc32 checks).
 */
import { crc32, deflate } from 'node:zlib'
import { promisify } from 'node:util'
import type { RawImage } from '../driver/driver.ts'
import { pixelWords } from './pixels.ts'

/** Up to 16 colours: 4 bits a pixel, the smallest depth that still beats RGB by 6x. */
export const MAX_PALETTE = 16

const deflateAsync = promisify(deflate)
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const INDEXED = 3

/**
 * The image's colours (pixel keys: the three colour bytes in memory order, see pixelWords), in
 * order of first appearance; undefined once there are more than `max`, or where the pixels
 * cannot be read as words (a big-endian machine): a screen of text and pictures stops within
 * its first row or so.
 */
export function fewColours (image: RawImage, max = MAX_PALETTE): number[] | undefined {
  const view = pixelWords(image)
  if (!view) return undefined
  const { words, shift } = view
  const colours: number[] = []
  let last = -1
  for (let i = 0, end = image.width * image.height; i < end; i++) {
    const colour = (words[i]! >>> shift) & 0xffffff
    if (colour === last) continue
    last = colour
    if (colours.includes(colour)) continue
    if (colours.length === max) return undefined
    colours.push(colour)
  }
  return colours
}

/** The image as an indexed PNG over `colours` (from fewColours: every pixel's colour is among them). */
export async function palettePng (image: RawImage, colours: readonly number[]): Promise<Buffer> {
  const { words, shift } = pixelWords(image)!
  const { width, height, order } = image
  const depth = colours.length <= 2 ? 1 : colours.length <= 4 ? 2 : 4
  const perByte = 8 / depth
  const rowBytes = 1 + Math.ceil(width / perByte)
  // Filter type 0 (None) leads each row: rows of indices compress well as they are.
  const rows = Buffer.alloc(rowBytes * height)
  let last = -1
  let index = 0
  // One colour: every index is the 0 the rows start as.
  for (let y = 0, i = 0; y < height && colours.length > 1; y++) {
    const row = y * rowBytes + 1
    for (let x = 0; x < width; x++, i++) {
      const colour = (words[i]! >>> shift) & 0xffffff
      if (colour !== last) {
        index = colours.indexOf(colour)
        if (index < 0) throw new Error(`a colour at ${x},${y} is not in the palette`)
        last = colour
      }
      // Index 0 is the zero the row starts as.
      if (index) rows[row + ((x / perByte) | 0)]! |= index << (8 - depth * (1 + (x % perByte)))
    }
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([depth, INDEXED, 0, 0, 0], 8)
  // A key holds the colour bytes in memory order: red first for RGBA, blue first for BGRA.
  const [r, g, b] = order === 'rgba' ? [0, 8, 16] : [16, 8, 0]
  const palette = Buffer.from(colours.flatMap((colour) => [(colour >>> r) & 255, (colour >>> g) & 255, (colour >>> b) & 255]))
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('PLTE', palette), chunk('IDAT', await deflateAsync(rows)), chunk('IEND', Buffer.alloc(0))])
}

function chunk (type: string, body: Buffer): Buffer {
  const out = Buffer.alloc(12 + body.length)
  out.writeUInt32BE(body.length, 0)
  out.write(type, 4, 'latin1')
  body.copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length)
  return out
}
