/**
 * src/screen/screenshot.ts on known pixels: X's BGRX and RGBA both come out as the right RGB in every
 * format (PNG exactly, the lossy ones closely), at the raw size or the one asked for, the last
 * pixel included; the caller's buffer is left as it was.
 */
import sharp from 'sharp'
import t from 'tap'
import type { RawImage } from '../src/driver/driver.ts'
import { photographic, repeatShare } from '../src/screen/png-encoders.ts'
import { writeRgb } from '../src/screen/pixels.ts'
import { encodeImage, rgbx } from '../src/screen/screenshot.ts'

// 3x2: red, green, blue / white, black, a colour with every channel different.
const RGB = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255], [0, 0, 0], [10, 120, 230]]
const image = (order: 'bgra' | 'rgba', padding = 0): RawImage => {
  const data = Buffer.alloc(RGB.length * 4 + padding, 0x77)
  RGB.forEach(([r, g, b], i) => data.set(order === 'bgra' ? [b!, g!, r!, 0] : [r!, g!, b!, 0xff], i * 4))
  return { width: 3, height: 2, order, data }
}

const decode = async (encoded: Buffer) => {
  const { data, info } = await sharp(encoded).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return { width: info.width, height: info.height, pixels: Array.from({ length: info.width * info.height }, (_, i) => [...data.subarray(i * 3, i * 3 + 3)]) }
}

t.test('PNG keeps every pixel exactly, from either byte order', async (t) => {
  for (const order of ['bgra', 'rgba'] as const) {
    const raw = image(order, 8)
    const before = Buffer.from(raw.data)
    const { width, height, pixels } = await decode(await encodeImage(raw))
    t.strictSame({ width, height, pixels }, { width: 3, height: 2, pixels: RGB }, order)
    t.ok(raw.data.equals(before), `${order}: the caller's pixels are untouched`)
  }
})

t.test('rgbx reads as RGB plus a byte to drop, and refuses a short buffer', async (t) => {
  const out = rgbx(image('bgra'))
  t.equal(out.length, 6 * 4)
  t.strictSame([...out.subarray(20, 23)], [10, 120, 230], 'the last pixel')
  t.throws(() => rgbx({ width: 3, height: 2, order: 'bgra', data: Buffer.alloc(10) }), /needs 24 bytes, got 10/)
})

t.test('every format decodes at the asked size with its colours, whatever X puts in the pad byte', async (t) => {
  // Large flat areas, so lossy encoders keep the colours: red on the left, blue on the right.
  const width = 64
  const height = 32
  const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 40)
  for (const pad of [0, 0xff, 0x80]) {
    const data = Buffer.alloc(width * height * 4)
    for (let i = 0; i < width * height; i++) data.set(i % width < 32 ? [0, 0, 255, pad] : [255, 0, 0, pad], i * 4)
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      for (const size of [{ width, height }, { width: 32, height: 16 }, { width: 100, height: 10 }]) {
        const what = `${format} ${size.width}x${size.height}, pad ${pad}`
        const encoded = await encodeImage({ width, height, order: 'bgra', data }, size, { format, ...(format !== 'png' && { quality: 90 }) })
        const meta = await sharp(encoded).metadata()
        t.strictSame([meta.format, meta.width, meta.height], [format, size.width, size.height], what)
        const { pixels } = await decode(encoded)
        const row = Math.floor(size.height / 2) * size.width
        const left = pixels[row + Math.floor(size.width / 8)]!
        const right = pixels[row + Math.floor((size.width * 7) / 8)]!
        t.ok(near(left, [255, 0, 0]) && near(right, [0, 0, 255]), `${what}: red left (${left}), blue right (${right})`)
      }
    }
  }
})

/** Noise: no pixel repeats its neighbour, as in a photograph (the photographic PNG path). */
const noise = (width: number, height: number, order: 'bgra' | 'rgba'): RawImage => {
  const data = Buffer.alloc(width * height * 4 + 1)
  let seed = 12345
  for (let i = 0; i < width * height * 4; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    data[i] = (i & 3) === 3 ? 0 : seed >>> 24
  }
  return { width, height, order, data }
}

t.test('a photographic screen is told from a flat one by sampling its rows', async (t) => {
  const flat = Buffer.alloc(64 * 32 * 4, 0x40)
  t.equal(photographic(flat, 64, 32), false, 'flat colour')
  t.equal(photographic(noise(64, 32, 'rgba').data, 64, 32), true, 'noise')
  // Text on a flat page repeats most of its pixels: every 10th pixel of a row is dark, so
  // it and the one after it differ from their left neighbour (80 % repeat).
  const text = Buffer.alloc(64 * 32 * 4, 0xff)
  for (let i = 0; i < 64 * 32; i += 10) text.set([0, 0, 0], i * 4)
  t.equal(photographic(text, 64, 32), false, 'sparse dark pixels on white')
  // A page with a photograph over a third of its width: two thirds repeat.
  const page = Buffer.alloc(64 * 32 * 4, 0xff)
  const photo = noise(64, 32, 'rgba').data
  for (let y = 0; y < 32; y++) photo.copy(page, y * 64 * 4, y * 64 * 4, (y * 64 + 22) * 4)
  t.equal(photographic(page, 64, 32), true, 'a third of it a photograph')
  t.ok(Math.abs(repeatShare(page, 64, 32) - 41 / 63) < 1e-9, 'its share of repeats: the 41 white pixels after the first of each sampled row')
  t.equal(repeatShare(noise(64, 32, 'rgba').data, 64, 32), 0, 'noise repeats nothing')
  // Each filter fdeflate is given (Up below 10 % repeats, adaptive up to 75 %) keeps every pixel.
  for (const [name, pixels] of [['the page', page], ['noise', noise(64, 32, 'rgba').data]] as const) {
    const { data } = await sharp(await encodeImage({ width: 64, height: 32, order: 'rgba', data: pixels })).raw().toBuffer({ resolveWithObject: true })
    const expected = Buffer.alloc(64 * 32 * 3)
    for (let i = 0; i < 64 * 32; i++) pixels.copy(expected, i * 3, i * 4, i * 4 + 3)
    t.ok(data.equals(expected), `${name}: every pixel`)
  }
})

t.test('a photographic PNG keeps every pixel exactly, opaque, at the raw or the asked size, and leaves the caller\'s pixels alone', async (t) => {
  const width = 40
  const height = 24
  for (const order of ['bgra', 'rgba'] as const) {
    const raw = noise(width, height, order)
    const before = Buffer.from(raw.data)
    const encoded = await encodeImage(raw)
    t.ok(raw.data.equals(before), `${order}: the caller's pixels are untouched`)
    const { data, info } = await sharp(encoded).raw().toBuffer({ resolveWithObject: true })
    t.strictSame([info.width, info.height], [width, height], `${order}: its size`)
    const expected = Buffer.alloc(width * height * info.channels)
    for (let i = 0; i < width * height; i++) {
      const [a, b, c] = [raw.data[i * 4]!, raw.data[i * 4 + 1]!, raw.data[i * 4 + 2]!]
      expected.set(order === 'bgra' ? [c, b, a] : [a, b, c], i * info.channels)
      if (info.channels === 4) expected[i * 4 + 3] = 255
    }
    t.ok(data.equals(expected), `${order}: every pixel, and an opaque alpha`)
    const smaller = await encodeImage(raw, { width: 20, height: 10 })
    const meta = await sharp(smaller).metadata()
    t.strictSame([meta.format, meta.width, meta.height], ['png', 20, 10], `${order}: resized`)
    const { channels } = await sharp(smaller).stats()
    if (channels.length === 4) t.equal(channels[3]!.min, 255, `${order}: resized, opaque`)
  }
  // Back to back on the pooled buffer: each answer stays its own.
  const [one, two] = await Promise.all([encodeImage(noise(width, height, 'rgba')), encodeImage(noise(width, height, 'rgba'))])
  t.ok(one.equals(two), 'two encodes at once of the same pixels agree')
})

t.test('writeRgb takes R, G and B of each pixel, from either byte order, at any offset of either buffer', async (t) => {
  // 21 pixels: four at a time, and one left over.
  const width = 7
  const height = 3
  for (const order of ['bgra', 'rgba'] as const) {
    const source = noise(width, height, order).data
    // Into `out` at 4 (a word boundary: RGBA goes four pixels at a time) or at 5.
    for (const at of [4, 5]) {
      const expected = Buffer.alloc(at + width * height * 3 + 3, 0xee)
      for (let i = 0; i < width * height; i++) {
        const [a, b, c] = [source[i * 4]!, source[i * 4 + 1]!, source[i * 4 + 2]!]
        expected.set(order === 'bgra' ? [c, b, a] : [a, b, c], at + i * 3)
      }
      // Offsets 0 and 1 are read a word at a time (a reordered grab starts one byte in), 2 and 3 byte by byte.
      for (const offset of [0, 1, 2, 3]) {
        const backing = Buffer.alloc(offset + source.length + 4, 0x55)
        source.copy(backing, offset)
        const data = backing.subarray(offset, offset + source.length)
        const out = Buffer.alloc(expected.length, 0xee)
        writeRgb({ width, height, order, data }, out, at)
        t.ok(out.equals(expected), `${order} from offset ${offset} into ${at}: every pixel, nothing around it touched`)
      }
    }
  }
  t.throws(() => writeRgb({ width, height, order: 'rgba', data: Buffer.alloc(10) }, Buffer.alloc(100), 0), /needs 84 bytes, got 10/)
  t.throws(() => writeRgb({ width, height, order: 'rgba', data: Buffer.alloc(84) }, Buffer.alloc(62), 0), /do not fit/)
})

t.test('a photographic PNG is RGB: the pad byte is not carried as an alpha channel', async (t) => {
  const meta = await sharp(await encodeImage(noise(40, 24, 'bgra'))).metadata()
  t.strictSame([meta.format, meta.channels, meta.hasAlpha], ['png', 3, false])
  const resized = await sharp(await encodeImage(noise(40, 24, 'rgba'), { width: 20, height: 12 })).metadata()
  t.strictSame([resized.format, resized.channels, resized.width, resized.height], ['png', 3, 20, 12])
})

/** A `width`x`height` image of `count` colours (each channel different), at byte `offset` of its buffer. */
function ofColours (count: number, width: number, height: number, order: 'bgra' | 'rgba', offset = 0): { raw: RawImage, rgb: number[][] } {
  const colours = Array.from({ length: count }, (_, i) => [(i * 37) & 255, (i * 91 + 5) & 255, (i * 151 + 9) & 255])
  const backing = Buffer.alloc(offset + width * height * 4, 0x33)
  const data = backing.subarray(offset)
  const rgb: number[][] = []
  for (let i = 0; i < width * height; i++) {
    // Runs of a colour, then the next: every colour appears, in no simple order.
    const [r, g, b] = colours[Math.floor(i / 3 + (i % 7)) % count]!
    data.set(order === 'bgra' ? [b!, g!, r!, 0] : [r!, g!, b!, 0xff], i * 4)
    rgb.push([r!, g!, b!])
  }
  return { raw: { width, height, order, data }, rgb }
}

t.test('a screen of at most 16 colours is an indexed PNG of those colours, exact at any width, from either byte order', async (t) => {
  // 1, 2 and 4 bits a pixel; a width of 13 leaves a part byte at the end of every row.
  for (const count of [1, 2, 3, 4, 5, 16]) {
    for (const order of ['bgra', 'rgba'] as const) {
      // Offset 1: a reordered grab starts one byte into its buffer.
      for (const offset of [0, 1]) {
        const { raw, rgb } = ofColours(count, 13, 5, order, offset)
        const before = Buffer.from(raw.data)
        const encoded = await encodeImage(raw)
        const meta = await sharp(encoded).metadata()
        t.equal(meta.isPalette, true, `${count} colours, ${order}, offset ${offset}: indexed`)
        const { width, height, pixels } = await decode(encoded)
        t.strictSame({ width, height, pixels }, { width: 13, height: 5, pixels: rgb }, `${count} colours, ${order}, offset ${offset}: every pixel`)
        t.ok(raw.data.equals(before), `${count} colours, ${order}, offset ${offset}: the caller's pixels are untouched`)
      }
    }
  }
  const { raw } = ofColours(17, 13, 5, 'rgba')
  t.equal((await sharp(await encodeImage(raw)).metadata()).isPalette, false, '17 colours: not indexed')
})

t.test('a bare desktop (one colour, 1280x800) is under 1 KB, as ImageMagick writes it', async (t) => {
  const data = Buffer.alloc(1280 * 800 * 4)
  for (let i = 0; i < 1280 * 800; i++) data.set([0x30, 0x50, 0x70, 0], i * 4)
  const encoded = await encodeImage({ width: 1280, height: 800, order: 'bgra', data })
  t.ok(encoded.length < 1024, `${encoded.length} bytes`)
  const { data: back, info } = await sharp(encoded).raw().toBuffer({ resolveWithObject: true })
  t.strictSame([info.width, info.height, info.channels], [1280, 800, 3])
  t.ok(back.every((value, i) => value === [0x70, 0x50, 0x30][i % 3]), 'every pixel the one colour')
})
