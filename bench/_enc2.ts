import sharp from 'sharp'
import { Transformer, CompressionType, FilterType } from '@napi-rs/image'
import { photoPixels } from './photo.ts'
const W = 1280, H = 800
const rgb = await photoPixels(W, H)
// a BGRX buffer as X gives it
const bgrx = Buffer.alloc(W * H * 4)
for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) { bgrx[j] = rgb[i + 2]!; bgrx[j + 1] = rgb[i + 1]!; bgrx[j + 2] = rgb[i]!; bgrx[j + 3] = 0 }
function toRgba (src: Buffer, dst: Buffer) {
  const s = new Uint32Array(src.buffer, src.byteOffset, src.length >> 2)
  const d = new Uint32Array(dst.buffer, dst.byteOffset, dst.length >> 2)
  for (let i = 0; i < s.length; i++) { const v = s[i]!; d[i] = 0xff000000 | (v & 0xff00) | ((v >>> 16) & 0xff) | ((v & 0xff) << 16) }
}
const rgba = Buffer.alloc(W * H * 4)
async function time (name: string, f: () => Promise<Buffer> | Buffer) {
  await f(); const ts: number[] = []; let size = 0
  for (let i = 0; i < 10; i++) { const s = performance.now(); size = (await f()).length; ts.push(performance.now() - s) }
  ts.sort((a, b) => a - b); console.log(name.padEnd(40), ts[5]!.toFixed(1), 'ms', (size / 1e6).toFixed(2), 'MB')
}
await time('toRgba loop', () => { toRgba(bgrx, rgba); return rgba })
const hdr = Buffer.from(`P6\n${W} ${H}\n255\n`)
await time('ppm via sharp removeAlpha', async () => Buffer.concat([hdr, await sharp(bgrx, { raw: { width: W, height: H, channels: 4 } }).removeAlpha().raw().toBuffer()]))
const ppm = Buffer.concat([hdr, rgb])
try { await time('napi ppm fast up', () => new Transformer(ppm).png({ compressionType: CompressionType.Fast, filterType: FilterType.Up })) } catch (e) { console.log('ppm fail', (e as Error).message) }
await time('napi rgba fast up (sync)', () => Transformer.fromRgbaPixels(rgba, W, H).pngSync({ compressionType: CompressionType.Fast, filterType: FilterType.Up }))
await time('napi rgba fast up', () => Transformer.fromRgbaPixels(rgba, W, H).png({ compressionType: CompressionType.Fast, filterType: FilterType.Up }))
await time('napi rgba fast paeth', () => Transformer.fromRgbaPixels(rgba, W, H).png({ compressionType: CompressionType.Fast, filterType: FilterType.Paeth }))
await time('napi rgba fast adaptive', () => Transformer.fromRgbaPixels(rgba, W, H).png({ compressionType: CompressionType.Fast, filterType: FilterType.Adaptive }))
// desktop-like content: flat colours and text-ish
const flat = Buffer.alloc(W * H * 4)
for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) { const j = (y * W + x) * 4; const t = (y % 16 < 10 && x % 8 < 5 && (x * 7 + y * 3) % 11 < 6) ? 20 : 230; flat[j] = t; flat[j + 1] = t; flat[j + 2] = y < 30 ? 80 : t; flat[j + 3] = 255 }
const flatRgb = await sharp(flat, { raw: { width: W, height: H, channels: 4 } }).removeAlpha().raw().toBuffer()
await time('flat sharp l1 nofilter', () => sharp(flatRgb, { raw: { width: W, height: H, channels: 3 } }).png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer())
await time('flat sharp l1 adaptive', () => sharp(flatRgb, { raw: { width: W, height: H, channels: 3 } }).png({ compressionLevel: 1, adaptiveFiltering: true }).toBuffer())
for (const [f, fn] of [[FilterType.NoFilter, 'none'], [FilterType.Sub, 'sub'], [FilterType.Up, 'up'], [FilterType.Adaptive, 'adaptive'], [FilterType.Paeth, 'paeth']] as const) {
  await time(`flat napi fast ${fn}`, () => Transformer.fromRgbaPixels(flat, W, H).png({ compressionType: CompressionType.Fast, filterType: f }))
}
