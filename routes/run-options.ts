/** What every action route derives from its request: the client's space, screenshot wish and encoding, settling, abort signal, limits, where its screenshots go. */
import type { FastifyReply } from 'fastify'
import type { RunOptions } from '../src/executor/executor.ts'
import type { ActionQuery } from '../src/schemas/action-query.ts'
import { clientSpace } from '../src/screen/scaling.ts'
import { screenshotOptions } from '../src/http/screenshot-query.ts'
import { deferImages } from '../src/http/image-bodies.ts'

/** Aborted when the client goes away: the response's 'close' before it finished. */
export function clientGone (reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  reply.raw.once('close', () => { if (!reply.raw.writableFinished) controller.abort() })
  return controller.signal
}

/** `indexed`: the request is a batch, so a refusal names the action at fault. */
export function runOptions (query: ActionQuery, reply: FastifyReply, indexed = false): RunOptions {
  const { limits } = reply.server.actionSchemas
  const client = clientSpace(query, limits)
  const images = deferImages(reply)
  return {
    ...(client && { client }),
    screenshot: query.screenshot === true,
    // Off here unless asked: a unified client may take screenshots at once on purpose.
    ...screenshotOptions(query, false),
    signal: clientGone(reply),
    limits,
    indexed,
    ...(images && { images }),
  }
}
