/**
 * Bodies are text, and text is Unicode. Node decodes a body with the replacement character for
 * every byte that is not UTF-8, and JSON lets `"\ud800"` through, so either would reach the
 * desktop as something nobody sent (type_text typing U+FFFD, or a keysym lookup of half a
 * character). These parsers refuse both with a 400 that says where.
 */
import type { FastifyInstance } from 'fastify'
import { InvalidEncoding } from '../errors/errors.ts'

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

function decode (body: Buffer): string {
  try {
    return decoder.decode(body)
  } catch {
    const at = firstInvalidByte(body)
    throw new InvalidEncoding(`the request body is not valid UTF-8 (byte 0x${body[at]!.toString(16).padStart(2, '0')} at offset ${at}); send text encoded as UTF-8`)
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidByte (body: Buffer): number {
  for (let i = 0; i < body.length;) {
    const lead = body[i]!
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0
    if (length === 0) return i
    for (let k = 1; k < length; k++) if (((body[i + k] ?? 0) & 0xc0) !== 0x80) return i
    // Overlong, surrogate and out-of-range sequences are all caught by TextDecoder; the lead byte is where they start.
    try { decoder.decode(body.subarray(i, i + length)) } catch { return i }
    i += length
  }
  return 0
}

/** Where the first string with a lone surrogate is, as `actions[0].text`, or undefined. */
export function findLoneSurrogate (value: unknown, path = ''): { path: string, index: number, unit: number } | undefined {
  if (typeof value === 'string') {
    const index = loneSurrogate(value)
    return index < 0 ? undefined : { path, index, unit: value.charCodeAt(index) }
  }
  // Every request body passes here: a path is spelled out only where there is something to
  // look into, not for each number and clean string.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      if (clean(item)) continue
      const found = findLoneSurrogate(item, `${path}[${i}]`)
      if (found) return found
    }
    return undefined
  }
  if (value && typeof value === 'object') {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue
      const keyAt = loneSurrogate(key)
      if (keyAt >= 0) return { path: path ? `a field name in ${path}` : 'a field name', index: keyAt, unit: key.charCodeAt(keyAt) }
      const item = (value as Record<string, unknown>)[key]
      if (clean(item)) continue
      const found = findLoneSurrogate(item, path ? `${path}.${key}` : key)
      if (found) return found
    }
  }
  return undefined
}

/** A value with no string in it, or a string without a lone surrogate. */
const clean = (value: unknown) => typeof value === 'string' ? loneSurrogate(value) < 0 : typeof value !== 'object' || value === null

/** Index of the first unpaired UTF-16 surrogate, or -1. */
export function loneSurrogate (text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) { i++; continue }
      return i
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return i
  }
  return -1
}

/** The refusal of a lone surrogate, worded the same for a body and for a planned action's text. */
export function loneSurrogateMessage (field: string, index: number, unit: number): string {
  return `${field || 'the body'} has a lone surrogate (\\u${unit.toString(16)}) at index ${index}: it must be valid Unicode text`
}

/** In a batch, the action at fault is named as planning names it: `actions[1]: text has …`. */
function refusal ({ path, index, unit }: { path: string, index: number, unit: number }): Error {
  const inBatch = /^actions\[(\d+)\]\.(.+)$/.exec(path)
  if (!inBatch) return new InvalidEncoding(loneSurrogateMessage(path, index, unit))
  const error = new InvalidEncoding(`actions[${inBatch[1]}]: ${loneSurrogateMessage(inBatch[2]!, index, unit)}`)
  return Object.assign(error, { failedIndex: Number(inBatch[1]) })
}

/**
 * Replaces the plugin's JSON and text/plain parsers (parsers are encapsulated: only the
 * plugin's routes get them) with ones that refuse what is not Unicode.
 */
export function strictTextBodies (fastify: FastifyInstance): void {
  const json = fastify.getDefaultJsonParser('error', 'ignore')
  fastify.removeContentTypeParser(['application/json', 'text/plain'])
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string
    try {
      text = decode(body as Buffer)
    } catch (error) {
      done(error as Error, undefined)
      return
    }
    json(request, text, (error, value) => {
      if (error) return done(error, undefined)
      // Strict UTF-8 decodes to whole characters: a lone surrogate can only come from a \u escape.
      const lone = text.includes('\\u') ? findLoneSurrogate(value) : undefined
      if (lone) return done(refusal(lone), undefined)
      done(null, value)
    })
  })
  fastify.addContentTypeParser('text/plain', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, decode(body as Buffer))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
}
