/** What every action route derives from its request: the client's space, screenshot wish, abort signal, limits. */
import type { FastifyReply } from 'fastify'
import type { RunOptions } from '../src/executor/executor.ts'
import type { ActionQuery } from '../src/schemas/action-query.ts'
import { clientSpace } from '../src/scaling.ts'

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
  return {
    ...(client && { client }),
    screenshot: query.screenshot === true,
    signal: clientGone(reply),
    limits,
    indexed,
  }
}
