/**
 * Reading a screenshot as a vision model does, for what the accessibility tree does not expose
 * (a PDF page's text): Tesseract OCR (Debian's tesseract-ocr) over the image, upscaled so small
 * text reads, its words grouped into lines with boxes in the screenshot's own pixels.
 */
import { execFile } from 'node:child_process'
import sharp from 'sharp'

export interface ScreenLine { text: string, box: { x: number, y: number, w: number, h: number } }

const SCALE = 2

export async function readScreen (png: Buffer): Promise<ScreenLine[]> {
  const { width } = await sharp(png).metadata()
  const big = await sharp(png).resize({ width: width! * SCALE }).grayscale().png().toBuffer()
  const tsv = await new Promise<string>((resolve, reject) => {
    const child = execFile('tesseract', ['stdin', 'stdout', '--psm', '3', 'tsv'], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => error ? reject(error) : resolve(stdout))
    child.stdin!.end(big)
  })
  const lines = new Map<string, Array<{ text: string, x: number, y: number, w: number, h: number }>>()
  for (const row of tsv.split('\n').slice(1)) {
    const cells = row.split('\t')
    if (cells[0] !== '5' || !cells[11]?.trim()) continue
    const key = cells.slice(1, 5).join('.')
    const [x, y, w, h] = cells.slice(6, 10).map((cell) => Number(cell) / SCALE) as [number, number, number, number]
    lines.set(key, [...(lines.get(key) ?? []), { text: cells[11].trim(), x, y, w, h }])
  }
  return [...lines.values()].map((words) => {
    const x = Math.min(...words.map((word) => word.x))
    const y = Math.min(...words.map((word) => word.y))
    return {
      text: words.map((word) => word.text).join(' '),
      box: { x, y, w: Math.max(...words.map((word) => word.x + word.w)) - x, h: Math.max(...words.map((word) => word.y + word.h)) - y },
    }
  })
}
