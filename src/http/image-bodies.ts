/**
 * Writes the screenshots of an answer into its body from their bytes (src/screen/deferred-images.ts).
 * A route asks `deferImages(reply)` for the answer's images and passes them to the executor,
 * whose screenshots then come as tokens; the answer is serialized as usual, and after that the
 * body is assembled as bytes, each token's base64 written from its image. Serialized the usual
 * way, 3 MB of base64 would be escape-scanned (~10 ms), copied into the body string, encoded
 * to UTF-8 again for the socket, and each copy collected by V8.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import { base64Length, writeBase64 } from '../screen/base64.ts'
import { DeferredImages } from '../screen/deferred-images.ts'

const DECORATOR = 'imageBodies'
const pending = new WeakMap<FastifyReply, DeferredImages>()

/** The images of `reply`'s answer; undefined on an app without image bodies (their text is then inline). */
export function deferImages (reply: FastifyReply): DeferredImages | undefined {
  if (!reply.server.hasDecorator(DECORATOR)) return undefined
  let images = pending.get(reply)
  if (!images) pending.set(reply, images = new DeferredImages())
  return images
}

/**
 * The memory of the last body sent, taken again by the next: a fresh few MB each screenshot is
 * external memory, which V8 counts toward a full collection of the whole heap. Given back only
 * once the socket has written it all ('finish'); a body the client left half-read is left to
 * the collector.
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

/** The serialized body as bytes, each token's image as base64, in `memory` (filled from the start). */
export function assemble (body: string, images: DeferredImages, memory: (bytes: number) => Buffer = take): Buffer {
  const parts: Array<string | Buffer> = []
  let at = 0
  for (const token of images.tokens(body)) {
    parts.push(body.slice(at, token.at), token.image)
    at = token.at + token.length
  }
  parts.push(body.slice(at))
  const bytes = parts.reduce((sum, part) => sum + (typeof part === 'string' ? Buffer.byteLength(part) : base64Length(part.length)), 0)
  const out = memory(bytes)
  let offset = 0
  for (const part of parts) offset += typeof part === 'string' ? out.write(part, offset) : writeBase64(part, out, offset)
  return out.subarray(0, bytes)
}

export function imageBodies (app: FastifyInstance): void {
  app.decorate(DECORATOR, true)
  // A callback, not an async function: every answer passes here, most of them without images.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const images = pending.get(reply)
    if (!images) { done(null, payload); return }
    pending.delete(reply)
    let body: unknown = payload
    try {
      if (typeof payload === 'string' && images.size > 0) {
        let memory: Buffer | undefined
        body = assemble(payload, images, (bytes) => (memory = take(bytes)))
        reply.raw.once('finish', () => giveBack(memory!))
      }
    } catch (error) {
      done(error as Error)
      return
    } finally {
      images.release()
    }
    done(null, body)
  })
}
