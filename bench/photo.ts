/**
 * Photographic-like pixels made at bench time (no download): fractal value noise — octaves of
 * random values, each upscaled smoothly and summed with weights falling as 1/f, as natural images'
 * spectra do — tinted per channel, plus a fine sensor grain. PNG compresses it about as badly
 * as a real photograph, which is the point: the screenshot rows' worst case.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import sharp from 'sharp'
// Seeded, so each run measures the same image.
import { prng as random } from '../stress/harness.ts'

/** RGB pixels (3 bytes each) of a width x height photograph-like image. */
export async function photoPixels (width: number, height: number, seed = 1): Promise<Buffer> {
  const next = random(seed)
  const sum = new Float32Array(width * height * 3)
  let weights = 0
  for (let octave = 0, cell = 256; cell >= 2; octave++, cell /= 2) {
    const w = Math.max(2, Math.ceil(width / cell))
    const h = Math.max(2, Math.ceil(height / cell))
    const small = Buffer.alloc(w * h * 3)
    for (let i = 0; i < small.length; i++) small[i] = Math.floor(next() * 256)
    const big = await sharp(small, { raw: { width: w, height: h, channels: 3 } }).resize(width, height, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer()
    const weight = 1 / (octave + 1)
    weights += weight
    for (let i = 0; i < sum.length; i++) sum[i]! += big[i]! * weight
  }
  const out = Buffer.alloc(width * height * 3)
  for (let i = 0; i < out.length; i++) {
    const value = sum[i]! / weights
    // Stretch the contrast the averaging flattened, then add grain.
    out[i] = Math.max(0, Math.min(255, Math.round((value - 128) * 2.2 + 128 + (next() - 0.5) * 10)))
  }
  return out
}

/** The same as a JPEG file (what a browser or an image viewer would be given). */
export async function photoJpeg (width: number, height: number, seed = 1): Promise<Buffer> {
  return sharp(await photoPixels(width, height, seed), { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer()
}

/** A page of text and photographs for the browser, in `dir`. */
export async function writePage (dir: string): Promise<string> {
  const photos = await Promise.all([1, 2, 3, 4].map(async (seed) => {
    const name = `photo-${seed}.jpg`
    await writeFile(join(dir, name), await photoJpeg(480, 320, seed + 10))
    return name
  }))
  const paragraph = 'Screenshots of real pages mix text, which compresses well, with photographs, which do not. ' +
    'This page stands for the pages models are shown: a column of prose beside pictures, a heading, a list. '
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Bench page</title>
<style>body{font:16px/1.5 sans-serif;margin:24px;color:#222}img{width:300px;height:200px;margin:6px;float:left}
h1{color:#1a4c8a}p{max-width:1100px}</style></head><body><h1>Real content: text and photographs</h1>
${photos.map((name, i) => `<img src="${name}" alt="photo ${i}">`).join('')}
${Array.from({ length: 12 }, (_, i) => `<p>${i + 1}. ${paragraph.repeat(2 + (i % 3))}</p>`).join('\n')}
<ul>${Array.from({ length: 8 }, (_, i) => `<li>Item ${i + 1}: ${paragraph.slice(0, 60 + i * 7)}</li>`).join('')}</ul></body></html>`
  const page = join(dir, 'page.html')
  await writeFile(page, html)
  return page
}
