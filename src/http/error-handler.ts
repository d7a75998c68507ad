/**
 * The one error handler. Every failure leaves as Fastify's error body
 * `{ statusCode, code, error, message }` with a message a person can act on. Client errors
 * are logged at info (they are not incidents), server errors at error with their cause.
 */
import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorBody } from '../schemas/error-body.ts'
import { BodyTooLarge, failedIndexOf, InvalidAction, InvalidPath, InvalidQuery } from '../errors/errors.ts'
import { validationFailedIndex } from '../schemas/validation.ts'

/** Seconds a client should wait before retrying while the desktop (re)starts. */
export const RETRY_AFTER_SECONDS = 2

/** Fastify's own errors for malformed requests, re-worded where its message is terse. */
function fromFastify (error: FastifyError, bodyLimit: number): Error {
  if (error.validation) {
    if (error.validationContext === 'querystring') return new InvalidQuery(error.message)
    if (error.validationContext === 'params') return new InvalidPath(error.message)
    const refusal = new InvalidAction(error.message)
    // The message already names the batch's action (`actions[3]: …`); the body says which too.
    const index = error.validationContext === 'body' ? validationFailedIndex(error.validation) : undefined
    return index === undefined ? refusal : Object.assign(refusal, { failedIndex: index })
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new BodyTooLarge(`the request body is larger than the ${bodyLimit}-byte limit (see --max-body-bytes)`)
  }
  return error
}

export function errorBody (error: Error): ErrorBody {
  const { statusCode = 500, code = 'ERR_INTERNAL' } = error as Partial<FastifyError>
  const failedIndex = failedIndexOf(error)
  return {
    statusCode,
    code,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message: statusCode < 500 || code.startsWith('ERR_') ? error.message : 'internal server error',
    ...(failedIndex !== undefined && { failed_index: failedIndex }),
  }
}

/**
 * A failure's status, Retry-After and log line, the same whichever route answers it (the error
 * handler, a failed batch, an adapter's native result): a 5xx is logged at error with `cause`.
 */
export function replyFailure (reply: FastifyReply, body: ErrorBody, cause: unknown): void {
  if (body.statusCode >= 500) reply.log.error({ err: cause }, body.message)
  else reply.log.info({ code: body.code, message: body.message }, 'request refused')
  if (body.statusCode === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS))
  // A refusal that knows when to come back (a limit's window) says so itself.
  const retryAfter = (cause as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter))
  reply.code(body.statusCode)
}

export function installErrorHandler (app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler(function (caught: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
    const body = errorBody(fromFastify(caught, bodyLimit))
    replyFailure(reply, body, caught)
    return reply.send(body)
  })
}
