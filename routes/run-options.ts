/** What every action route derives from its request: the client's space, screenshot wish, abort signal. */
import type { FastifyReply } from 'fastify'
import type { RunOptions } from '../src/executor/executor.ts'
import type { ActionQuery } from '../src/schemas/action-query.ts'
import { clientSpace } from '../src/scaling.ts'

export function runOptions (query: ActionQuery, reply: FastifyReply): RunOptions {
  const client = clientSpace(query)
  // The response's 'close' before it finished means the client went away: stop, release.
  const controller = new AbortController()
  reply.raw.once('close', () => { if (!reply.raw.writableFinished) controller.abort() })
  return {
    ...(client && { client }),
    screenshot: query.screenshot === true,
    signal: controller.signal,
  }
}
