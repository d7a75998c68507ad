/** Fastify's error shape, used by every route for every 4xx and 5xx. */
import { Type, type Static } from '@sinclair/typebox'
import { ActionResponse } from '../actions/response.ts'

export const ErrorBody = Type.Object({
  statusCode: Type.Integer(),
  code: Type.String({ description: 'A stable code from the error catalogue (docs/ARCHITECTURE.md).' }),
  error: Type.String({ description: 'The HTTP status text.' }),
  message: Type.String({ description: 'What was wrong, written for a person; `actions[i]: …` when it concerns one action of a batch.' }),
  failed_index: Type.Optional(Type.Integer({
    minimum: 0,
    description: 'When a batch was refused before anything ran, the index of the action at fault: in `actions` of /computer/batch; ' +
      'of an adapter, in the payload\'s list of calls when the payload does not fit its schema, else in the translated actions (those /translate lists).',
  })),
}, { $id: 'ErrorBody', title: 'ErrorBody' })
export type ErrorBody = Static<typeof ErrorBody>

/**
 * A batch that stopped at a failing action: the error body of that failure (so generic
 * clients read it like any error), plus the results of the actions that ran before it.
 */
export const BatchFailure = Type.Object({
  ...ErrorBody.properties,
  results: Type.Optional(Type.Array(Type.Ref(ActionResponse), { description: 'Responses of the actions that ran before the failure.' })),
  failed_index: Type.Optional(Type.Integer({ description: 'Index of the action that failed; absent when the request was refused before any action ran.' })),
}, { $id: 'BatchFailure', title: 'BatchFailure' })
export type BatchFailure = Static<typeof BatchFailure>
