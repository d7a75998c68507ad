/**
 * POST /computer — one unified action; POST /computer/batch — several, as one unit.
 * Handlers only orchestrate: planning, execution and scaling live in src/.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ActionResponse, BatchResponse } from '../src/actions/response.ts'
import type { FastifyReply } from 'fastify'
import type { UnifiedAction } from '../src/actions/index.ts'
import { ActionQuery, type ActionQuery as ActionQueryType } from '../src/schemas/action-query.ts'
import { BatchFailure, ErrorBody } from '../src/schemas/error-body.ts'
import { errorBody, replyFailure } from '../src/http/error-handler.ts'
import { strictTextBodies } from '../src/http/text-bodies.ts'
import { runOptions } from './run-options.ts'

export const computerRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { executor, actionSchemas } = fastify
  strictTextBodies(fastify)

  const single = {
    querystring: Type.Ref(ActionQuery),
    body: Type.Ref(actionSchemas.UnifiedAction),
    response: { 200: Type.Ref(ActionResponse), '4xx': Type.Ref(ErrorBody), '5xx': Type.Ref(ErrorBody) },
  }

  const runOne = async (action: UnifiedAction, query: ActionQueryType, reply: FastifyReply) => {
    const outcome = await executor.run([action], runOptions(query, reply))
    if (outcome.error) throw outcome.error
    return outcome.results[0]!
  }

  fastify.post('/computer', {
    schema: { summary: 'Run one action of the unified action space', tags: ['computer'], ...single },
  }, async (request, reply) => runOne(request.body, request.query, reply))

  // The seed system's own path, so its official SDKs work unchanged against this server.
  fastify.post('/v1/instance/:instance_id/computer', {
    config: { acceptsApiKeyHeader: true },
    // The seed's Python SDK sends each option it was not given as null (`hold_keys: null` on
    // every click): null there means absent, as the seed's own API takes it.
    preValidation: async (request) => { request.body = withoutNullFields(request.body) as typeof request.body },
    schema: {
      summary: 'POST /computer under the seed system\'s path (its SDKs send x-api-key)',
      tags: ['compatibility'],
      params: Type.Object({ instance_id: Type.String({ description: 'Ignored: one server is one instance.' }) }),
      ...single,
    },
  }, async (request, reply) => runOne(request.body, request.query, reply))

  fastify.post('/computer/batch', {
    schema: {
      summary: 'Run several actions in order as one unit; stops at the first failure',
      description: 'Nothing else runs on the desktop between the actions. Every action is validated before the first one runs. On a failure the answer has the failing action\'s status and error body, plus the results of the actions before it and `failed_index`.',
      tags: ['computer'],
      querystring: Type.Ref(ActionQuery),
      body: Type.Ref(actionSchemas.ActionBatch),
      response: { 200: Type.Ref(BatchResponse), '4xx': Type.Ref(BatchFailure), '5xx': Type.Ref(BatchFailure) },
    },
  }, async (request, reply) => {
    const outcome = await executor.run(request.body.actions, runOptions(request.query, reply, true))
    if (!outcome.error) return { results: outcome.results, failed_index: null }
    const body = errorBody(outcome.error)
    const { failedIndex } = outcome
    const kind = request.body.actions[failedIndex!]!.action
    replyFailure(reply, body, outcome.error)
    return reply.send({
      ...body,
      message: `actions[${failedIndex}] (${kind}): ${body.message}`,
      results: outcome.results,
      failed_index: failedIndex,
    })
  })
}

/** A JSON object's top-level fields that are null, dropped; anything else as it came. */
function withoutNullFields (body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null))
}
