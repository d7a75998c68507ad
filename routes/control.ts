/**
 * The control lease's routes (docs/takeover.md): GET /control, POST /control/takeover and POST
 * /control/release, with the token like every API route. The live view's button takes the same
 * lease through its own cookie routes (routes/live-control.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { ControlLease } from '../src/control/lease.ts'
import { ControlState, LeaseSchema, ReleaseBody, ReleasedSchema, TakeoverBody } from '../src/control/schema.ts'
import { Type } from '@sinclair/typebox'
import { ErrorBody } from '../src/schemas/error-body.ts'

/** A POST without a body is an empty one: every field of these bodies is optional. */
export const noBodyIsEmpty = async (request: FastifyRequest) => { request.body ??= {} }

export const controlRoutes: FastifyPluginAsyncTypebox<{ control: ControlLease }> = async (fastify, { control }) => {
  const state = () => ({ lease: control.lease, requests: control.requests })

  fastify.get('/control', {
    schema: {
      summary: 'Who holds the desktop, and which request_human calls wait for a person',
      tags: ['control'],
      response: { 200: Type.Ref(ControlState) },
    },
  }, async (_request, reply) => {
    reply.header('cache-control', 'no-store')
    return state()
  })

  fastify.post('/control/takeover', {
    preValidation: noBodyIsEmpty,
    schema: {
      summary: 'A person takes the desktop over: the agent\'s actions answer 423 until release',
      description: 'Acting requests of every route (the dialects, /computer, MCP, the shell, OSWorld\'s guest) answer 423 ERR_DESKTOP_TAKEN_OVER while the lease is held; reads go on. The same holder taking over again renews the lease; another answers 409.',
      tags: ['control'],
      body: TakeoverBody,
      response: { 200: Type.Ref(LeaseSchema), '4xx': Type.Ref(ErrorBody) },
    },
  }, async (request) => control.takeover({ holder: request.body.holder, timeoutS: request.body.timeout_s }))

  fastify.post('/control/release', {
    preValidation: noBodyIsEmpty,
    schema: {
      summary: 'Hands the desktop back to the agent',
      description: 'Whatever the person holds (keys, buttons) is released first; then every waiting request_human is answered with `message`.',
      tags: ['control'],
      body: ReleaseBody,
      response: { 200: Type.Ref(ReleasedSchema), '4xx': Type.Ref(ErrorBody) },
    },
  }, async (request) => control.release({ message: request.body.message }))
}
