/**
 * Scrapybara's file tool and code.execute on the fleet: forwarded, body and query as they came,
 * to the instance's desktop, which serves both under the same paths (routes/scrapybara-tools.ts)
 * — the file commands over its home jail (src/files: `..` and links out refused, writes atomic
 * and under the control lease), the code in its python3 kernels through its shell. The fleet
 * checks only what is its own: the instance (404, 409 paused, 410 ended) and, for code, its
 * --shell (403 naming the flag, as /bash answers); everything else is the desktop's answer.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import replyFrom from '@fastify/reply-from'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errorBody, replyFailure } from '../../src/http/error-handler.ts'
import { InvalidDesktopRequest, ToolOff } from '../../src/errors/errors.ts'
import { FileRequest, FileResponse } from '../../src/files/command-table.ts'
import { ErrorBody } from '../../src/schemas/error-body.ts'
import { CodeExecuteRequest, CodeExecuteResponse } from '../../src/shell/code-schema.ts'
import type { Fleet } from '../fleet.ts'
import { InstanceParams } from './schemas.ts'

export const CODE_SHELL_OFF = "code.execute needs the fleet's shell: start the fleet with --shell (env FLEET_SHELL=1), which starts every desktop with the server's --shell (the code runs as the desktop's user in its home)"

const config = { acceptsApiKeyHeader: true }
const tags = ['scrapybara']
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 413: ErrorBody, 423: ErrorBody, 503: ErrorBody }

export const scrapybaraForwardRoutes: FastifyPluginAsyncTypebox<{ fleet: Fleet, shell: boolean }> = async (scope, { fleet, shell }) => {
  scope.setErrorHandler(function (caught: FastifyError, _request, reply) {
    const error = caught.validation ? new InvalidDesktopRequest('the instance id in the path must be 16 lowercase hex digits, as POST /v1/start answered it') : caught
    const body = errorBody(error)
    replyFailure(reply, body, caught)
    return reply.send(body)
  })
  await scope.register(replyFrom, { retryMethods: [], disableRequestLogging: true })
  // The body goes on as it came: the desktop validates it against the same schema.
  ;(scope as unknown as FastifyInstance).removeAllContentTypeParsers()
  ;(scope as unknown as FastifyInstance).addContentTypeParser('*', (_request, payload, done) => { done(null, payload) })

  const forward = (path: string, guard?: () => void) => (request: FastifyRequest, reply: FastifyReply): void => {
    guard?.()
    const id = (request.params as { instance_id: string }).instance_id
    const { url, token } = fleet.target(id, `POST /v1/instance/${id}/resume`)
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''
    void reply.from(`${url}/v1/instance/${id}/${path}${query}`, {
      rewriteRequestHeaders: (_request, headers) => {
        const { 'x-api-key': _key, host: _host, ...rest } = headers
        return { ...rest, authorization: `Bearer ${token}` }
      },
    })
  }

  scope.post('/v1/instance/:instance_id/file', {
    config,
    schema: {
      summary: "Scrapybara's file tool (read, write, append, exists, list, mkdir, delete, move, copy, view, create, replace, insert, delete_lines, grep) over the instance's home, run by its desktop",
      tags, params: InstanceParams, body: FileRequest, response: { 200: FileResponse, ...errors },
    },
    // Described for the document; the body is checked by the desktop, which answers in the same words.
    validatorCompiler: () => () => true,
  }, forward('file'))

  scope.post('/v1/instance/:instance_id/code/execute', {
    config,
    schema: {
      summary: "Run Python in the instance's persistent python3 kernel (Scrapybara's code.execute; the fleet's --shell)",
      tags, params: InstanceParams, body: CodeExecuteRequest, response: { 200: CodeExecuteResponse, ...errors },
    },
    validatorCompiler: () => () => true,
  }, forward('code/execute', () => { if (!shell) throw new ToolOff(CODE_SHELL_OFF) }))
}
