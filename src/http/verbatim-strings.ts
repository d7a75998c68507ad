/**
 * Writes the screenshots of a JSON answer into its body as they are. Serialized the usual way, a
 * 3 MB base64 screenshot is escape-scanned (JSON.stringify, ~10 ms), concatenated into the body
 * string and encoded again to UTF-8 for the socket, and V8 collects every copy: most of the CPU
 * of a photographic screenshot. Base64 we made (src/screen/base64.ts) needs no escaping, so
 * before serialization each is swapped for a short token, and after it the body is assembled
 * as bytes with the base64 copied in. The token carries a random per-process secret: text a
 * client sent cannot forge one.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { anyImageBase64, forgetImageBase64, isImageBase64 } from '../screen/base64.ts'

const SECRET = `verbatim${randomBytes(12).toString('hex')}n`
/** JSON answers nest a few levels (an adapter's blocks in a list in an object); deeper is left as it is. */
const MAX_DEPTH = 12
const swapped = new WeakMap<FastifyReply, string[]>()

/** What stands in the serialized body for the `index`th string until it is put back. */
export const token = (index: number): string => `${SECRET}${index}`

/** `value` with each remembered base64 string replaced by its token (containers copied, never changed). */
function swap (value: unknown, strings: string[], depth: number): unknown {
  if (typeof value === 'string') {
    if (!isImageBase64(value)) return value
    strings.push(value)
    return token(strings.length - 1)
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    value.forEach((item, i) => {
      const next = swap(item, strings, depth + 1)
      if (next !== item) (copy ??= [...value])[i] = next
    })
    return copy ?? value
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value
  let copy: Record<string, unknown> | undefined
  for (const [key, item] of Object.entries(value)) {
    const next = swap(item, strings, depth + 1)
    if (next !== item) (copy ??= { ...value })[key] = next
  }
  return copy ?? value
}

/** A token in a serialized body: the secret, its index, and the closing quote (so 1 is not read in 10). */
const TOKEN = new RegExp(`${SECRET}(\\d+)(?=")`, 'g')

/**
 * The memory of the last body sent, taken again by the next: a fresh few MB each screenshot is
 * external memory, which V8 counts toward a full collection of the whole heap (one every three
 * or four photographic screenshots, ~15 ms of CPU each). Given back only once the socket has
 * written it all ('finish'); a body the client left half-read is left to the collector.
 */
let spare: Buffer | undefined
/** Larger bodies (a screenshot of a very large screen) are not kept. */
const MAX_SPARE_BYTES = 32 * 1024 * 1024

function take (bytes: number): Buffer {
  const memory = spare && spare.length >= bytes ? spare : Buffer.allocUnsafe(bytes)
  if (memory === spare) spare = undefined
  return memory
}

function giveBack (memory: Buffer): void {
  if (memory.length <= MAX_SPARE_BYTES && (!spare || spare.length < memory.length)) spare = memory
}

/**
 * The serialized body as bytes, each `"token"` holding its base64 again, in `memory` (which it
 * fills from the start). Tokens are found wherever they stand: a serializer writes fields in
 * its schema's order, not the object's.
 */
export function assemble (body: string, strings: string[], memory = take): Buffer {
  const parts: Array<{ text: string, raw: boolean }> = []
  let at = 0
  for (const match of body.matchAll(TOKEN)) {
    const text = strings[Number(match[1])]
    if (text === undefined) continue
    parts.push({ text: body.slice(at, match.index), raw: false }, { text, raw: true })
    at = match.index + match[0].length
  }
  parts.push({ text: body.slice(at), raw: false })
  const bytes = parts.reduce((sum, part) => sum + (part.raw ? part.text.length : Buffer.byteLength(part.text)), 0)
  const out = memory(bytes)
  let offset = 0
  // Base64 is ASCII: one byte a character.
  for (const part of parts) offset += out.write(part.text, offset, part.raw ? 'ascii' : 'utf8')
  return out.subarray(0, bytes)
}

export function verbatimStrings (app: FastifyInstance): void {
  app.addHook('preSerialization', async (_request, reply, payload) => {
    // Most answers (a move, a click) carry no screenshot: no walk through them.
    if (!anyImageBase64()) return payload
    const strings: string[] = []
    const next = swap(payload, strings, 0)
    if (!strings.length) return payload
    swapped.set(reply, strings)
    return next
  })
  app.addHook('onSend', async (_request, reply, payload) => {
    const strings = swapped.get(reply)
    if (!strings) return payload
    swapped.delete(reply)
    for (const text of strings) forgetImageBase64(text)
    if (typeof payload !== 'string') return payload
    let memory: Buffer | undefined
    const body = assemble(payload, strings, (bytes) => (memory = take(bytes)))
    reply.raw.once('finish', () => giveBack(memory!))
    return body
  })
}
