/**
 * A tar (ustar) stream of a few files, for an episode's archive. The format is a 512-byte
 * header per file, the bytes padded to 512, two empty blocks at the end: small enough to
 * write here rather than add a dependency, and it streams (a video is never held in memory).
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { PassThrough, type Readable } from 'node:stream'

export interface TarEntry {
  /** The path inside the archive (ASCII, under 100 bytes). */
  name: string
  /** The file on disk, or the bytes themselves. */
  file?: string
  data?: Buffer
}

const BLOCK = 512

function header (name: string, size: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK)
  const field = (value: string, offset: number, length: number) => block.write(value, offset, length, 'ascii')
  const octal = (value: number, offset: number, length: number) => field(value.toString(8).padStart(length - 1, '0') + '\0', offset, length)
  field(name, 0, 100)
  octal(0o644, 100, 8)
  octal(0, 108, 8)
  octal(0, 116, 8)
  octal(size, 124, 12)
  octal(Math.floor(mtime / 1000), 136, 12)
  field('        ', 148, 8)
  field('0', 156, 1)
  field('ustar\0', 257, 6)
  field('00', 263, 2)
  let sum = 0
  for (const byte of block) sum += byte
  field(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8)
  return block
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK)

/** The archive of `entries`, in order; a file that vanished meanwhile ends the stream with an error. */
export function tarStream (entries: readonly TarEntry[]): Readable {
  const out = new PassThrough()
  void (async () => {
    for (const entry of entries) {
      if (Buffer.byteLength(entry.name) >= 100) throw new Error(`tar: name too long: ${entry.name}`)
      if (entry.data) {
        out.write(header(entry.name, entry.data.length, Date.now()))
        out.write(entry.data)
        out.write(padding(entry.data.length))
        continue
      }
      const info = await stat(entry.file!)
      out.write(header(entry.name, info.size, info.mtimeMs))
      // Only the size the header announced: a file still growing (a video being recorded) is cut there.
      for await (const chunk of createReadStream(entry.file!, { start: 0, end: Math.max(0, info.size - 1) })) {
        if (info.size === 0) break
        if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve))
      }
      out.write(padding(info.size))
    }
    out.end(Buffer.alloc(BLOCK * 2))
  })().catch((error: unknown) => out.destroy(error as Error))
  return out
}
