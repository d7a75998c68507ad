/**
 * The Scrapybara v1 instance API on the fleet, as the Scrapybara TypeScript and Python SDKs call
 * it (their generated clients fix the paths, the `x-api-key` header, and the bodies' field names),
 * so a program written for Scrapybara runs with only its base URL and key changed. An instance is
 * a fleet desktop: POST /v1/start is a create (from the warm pool when its resolution is the
 * pool's), `timeout_hours` its TTL; /computer is forwarded to the desktop's own Scrapybara route;
 * /stream_url names its live view through the fleet; /upload writes through its /files. Errors
 * are the fleet's body ({statusCode, code, error, message}), which the SDKs hand over as the
 * error's body; what cannot be served answers 501 ERR_NOT_IMPLEMENTED naming what is missing.
 */
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import replyFrom from '@fastify/reply-from'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import type { Readable } from 'node:stream'
import { errorBody, replyFailure } from '../../src/http/error-handler.ts'
import { NotImplemented } from '../../src/errors/errors.ts'
import { InvalidInstanceRequest } from './invalid.ts'
import { ErrorBody } from '../../src/schemas/error-body.ts'
import { RETRY_AFTER_FULL_SECONDS, type Fleet } from '../fleet.ts'
import { LIMITS, parseScreen } from '../schemas.ts'
import { INSTANCE_TYPE_LABEL, toInstance } from './instance.ts'
import { InstanceParams, InstanceResponse, ValidationBody, ResumeQuery, ScreenshotResponse, StartRequest, StatusResponse, StreamUrlResponse, UploadResponse } from './schemas.ts'
import { readUpload } from './upload.ts'
import { scrapybaraBrowserRoutes } from './browser.ts'
import { UNSERVED } from './unserved.ts'
import { emptyJsonIsNoBody } from '../routes/empty-json.ts'
import { Type } from '@sinclair/typebox'

const errors = { 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ValidationBody, 501: ErrorBody, 503: ErrorBody }
/** The SDKs send x-api-key; Authorization: Bearer is taken too. */
const config = { acceptsApiKeyHeader: true }
const tags = ['scrapybara']

const FIELDS: Record<string, string> = {
  instance_type: "instance_type must be 'ubuntu' or 'browser' (both a full desktop, browser's with Chromium and its DevTools; 'windows' is not served)",
  timeout_hours: `timeout_hours must be a number of hours, ${LIMITS.minTtlSeconds / 3600 * 60}/60 to ${LIMITS.maxTtlSeconds / 3600}`,
  blocked_domains: 'blocked_domains must be a list of domain names',
  resolution: `resolution must be [width, height] in pixels, width ${LIMITS.minSide}..${LIMITS.maxWidth}, height ${LIMITS.minSide}..${LIMITS.maxHeight}`,
}

/** A refused request in words, and where it is (Scrapybara's `loc`), for these routes' own bodies and ids. */
function describe (error: FastifyError): { message: string, loc: Array<string | number> } {
  if (error.validationContext === 'params') return { message: 'the instance id in the path must be 16 lowercase hex digits, as POST /v1/start answered it', loc: ['path', 'instance_id'] }
  if (error.validationContext === 'querystring') return { message: `the query does not fit: ${error.message}`, loc: ['query'] }
  const first = error.validation![0]!
  const field = first.instancePath.split('/').filter(Boolean)[0]
  if (field && FIELDS[field]) return { message: FIELDS[field], loc: ['body', field] }
  if (first.keyword === 'additionalProperties') return { message: `unknown field '${String(first.params.additionalProperty)}': POST /v1/start takes ${Object.keys(StartRequest.properties).join(', ')}`, loc: ['body', String(first.params.additionalProperty)] }
  return { message: `the body must be a JSON object with the fields ${Object.keys(StartRequest.properties).join(', ')}`, loc: ['body'] }
}

/**
 * The fleet's error body, with these routes' validation messages and the 429's Retry-After. A
 * request that does not fit is a 422 as Scrapybara answers one, with `detail` (FastAPI's
 * validation error, which the SDKs parse into their UnprocessableEntityError) beside our fields.
 */
function errorHandler (scope: FastifyInstance) {
  scope.setErrorHandler(function (caught: FastifyError, _request, reply) {
    const described = caught.validation ? describe(caught) : undefined
    const error = described
      ? new InvalidInstanceRequest(described.message, described.loc)
      : (caught as { code?: string }).code === 'ERR_INVALID_DESKTOP_REQUEST' ? new InvalidInstanceRequest(caught.message, ['body']) : caught
    const body = { ...errorBody(error), ...(error instanceof InvalidInstanceRequest && { detail: error.detail }) }
    // A route not served is the client's to know, not an incident: logged as a refusal, without a stack.
    if (body.statusCode === 501) reply.code(501).log.info({ code: body.code, message: body.message }, 'request refused')
    else replyFailure(reply, body, caught)
    if (body.statusCode === 429) reply.header('retry-after', String(RETRY_AFTER_FULL_SECONDS))
    return reply.send(body)
  })
}

/** The desktop's answer as it is, when it is an error (its own body and status). */
async function relayFailure (response: Response, reply: FastifyReply) {
  reply.code(response.status).header('content-type', response.headers.get('content-type') ?? 'application/json')
  return reply.send(Buffer.from(await response.arrayBuffer()))
}

const resumeRoute = (id: string) => `POST /v1/instance/${id}/resume`

export const scrapybaraRoutes: FastifyPluginAsyncTypebox<{ fleet: Fleet }> = async (app, { fleet }) => {
  // JSON bodies; an empty one with a JSON content type (how the SDK posts /stop, /pause) is no body.
  await app.register(async (untyped) => {
    const scope = untyped.withTypeProvider<TypeBoxTypeProvider>()
    errorHandler(scope)
    emptyJsonIsNoBody(scope)

    scope.post('/v1/start', {
      config,
      // No body at all is a start with every default.
      preValidation: (request, _reply, done) => { request.body ??= {}; done() },
      schema: { summary: 'Start an instance (Scrapybara\'s start_ubuntu / start_browser): a fleet desktop, from the warm pool when its resolution is the pool\'s', tags, body: StartRequest, response: { 200: InstanceResponse, ...errors, 429: ErrorBody } },
    }, async (request) => {
      const { instance_type: type, timeout_hours: hours, blocked_domains: blocked, resolution } = request.body
      if (type === 'windows') throw new NotImplemented('Windows instances are not served: this fleet runs Ubuntu desktops only (instance_type ubuntu or browser)')
      if (blocked && blocked.length > 0) throw new NotImplemented('blocked_domains is not served: the fleet does not filter a desktop\'s network; start without it')
      const screen = resolution ? parseScreen(`${resolution[0]}x${resolution[1]}`) : undefined
      if (typeof screen === 'string') throw new InvalidInstanceRequest(FIELDS.resolution!, ['body', 'resolution'])
      let ttlSeconds: number | undefined
      if (hours !== undefined && hours !== null) {
        ttlSeconds = Math.round(hours * 3600)
        if (!(ttlSeconds >= LIMITS.minTtlSeconds && ttlSeconds <= LIMITS.maxTtlSeconds)) throw new InvalidInstanceRequest(`${FIELDS.timeout_hours} (got ${hours})`, ['body', 'timeout_hours'])
      }
      // A browser instance runs Chromium, whose DevTools its browser routes serve; an ubuntu one the fleet's --browser.
      const view = await fleet.create({ ...(screen && { screen }), ...(ttlSeconds !== undefined && { ttlSeconds }), ...(type === 'browser' && { browser: 'chromium' as const }), labels: { [INSTANCE_TYPE_LABEL]: type ?? 'ubuntu' } })
      return toInstance(view)
    })

    scope.get('/v1/instances', { config, schema: { summary: 'The instances started and not stopped', tags, response: { 200: Type.Array(InstanceResponse), 401: ErrorBody } } },
      async () => fleet.list().map(toInstance))

    scope.get('/v1/instance/:instance_id', { config, schema: { summary: 'One instance: deploying, running, paused or terminated', tags, params: InstanceParams, response: { 200: InstanceResponse, ...errors } } },
      async (request) => toInstance(fleet.get(request.params.instance_id)))

    scope.post('/v1/instance/:instance_id/screenshot', { config, schema: { summary: 'A screenshot of the instance\'s screen (PNG, base64)', tags, params: InstanceParams, response: { 200: ScreenshotResponse, ...errors } } },
      async (request, reply) => {
        const { url, token } = fleet.target(request.params.instance_id, resumeRoute(request.params.instance_id))
        const response = await fetch(`${url}/computer`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'take_screenshot' }),
        })
        if (!response.ok) return relayFailure(response, reply)
        const { base64_image: image } = await response.json() as { base64_image: string }
        return { base64_image: image }
      })

    scope.get('/v1/instance/:instance_id/stream_url', { config, schema: { summary: 'The instance\'s live view, through the fleet', tags, params: InstanceParams, response: { 200: StreamUrlResponse, ...errors } } },
      async (request) => {
        const { id } = fleet.get(request.params.instance_id)
        fleet.target(id, resumeRoute(id))
        return { stream_url: `${request.protocol}://${request.host}/desktops/${id}/live` }
      })

    scope.post('/v1/instance/:instance_id/stop', { config, schema: { summary: 'End the instance and remove its home; stopping a stopped one answers the same', tags, params: InstanceParams, response: { 200: StatusResponse, ...errors } } },
      async (request) => {
        const id = request.params.instance_id
        if (fleet.get(id).status !== 'terminated') await fleet.remove(id, 'stopped by its client')
        return { status: 'terminated' }
      })

    scope.post('/v1/instance/:instance_id/pause', { config, schema: { summary: 'Freeze the instance (no CPU; its actions answer 409 until it is resumed)', tags, params: InstanceParams, response: { 200: StatusResponse, ...errors } } },
      async (request) => ({ status: (await fleet.pause(request.params.instance_id)).status }))

    scope.post('/v1/instance/:instance_id/resume', { config, schema: { summary: 'Thaw a paused instance; answers once it acts again', tags, params: InstanceParams, querystring: ResumeQuery, response: { 200: InstanceResponse, ...errors } } },
      async (request) => {
        if (request.query.timeout_hours !== undefined) throw new NotImplemented('timeout_hours on resume is not served: an instance\'s timeout is fixed when it starts; resume without it')
        return toInstance(await fleet.resume(request.params.instance_id))
      })

    await scope.register(scrapybaraBrowserRoutes, { fleet })
    for (const { method, url, missing } of UNSERVED) {
      scope.route({ method, url, config, schema: { hide: true }, handler: async () => { throw new NotImplemented(missing) } })
    }
  })

  // Bodies passed on as they came: the action to the desktop, the upload's form read here.
  await app.register(async (untyped) => {
    const scope = untyped.withTypeProvider<TypeBoxTypeProvider>()
    errorHandler(scope)
    await scope.register(replyFrom, { retryMethods: [], disableRequestLogging: true })
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', (_request, payload, done) => { done(null, payload) })

    scope.post('/v1/instance/:instance_id/computer', {
      config,
      schema: { summary: 'One action (Scrapybara\'s computer tool), forwarded to the desktop\'s own Scrapybara route', tags, params: InstanceParams },
    }, (request, reply) => {
      const id = request.params.instance_id
      const { url, token } = fleet.target(id, resumeRoute(id))
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''
      return reply.from(`${url}/v1/instance/${id}/computer${query}`, {
        rewriteRequestHeaders: (_request, headers) => {
          const { 'x-api-key': _key, host: _host, ...rest } = headers
          return { ...rest, authorization: `Bearer ${token}` }
        },
      })
    })

    scope.post('/v1/instance/:instance_id/upload', {
      config,
      schema: { summary: 'Upload a file (multipart: file, path) into the instance\'s home', tags, params: InstanceParams, consumes: ['multipart/form-data'], response: { 200: UploadResponse, ...errors, 413: ErrorBody } },
    }, async (request, reply) => {
      const id = request.params.instance_id
      const { url, token } = fleet.target(id, resumeRoute(id))
      const upload = await readUpload(request.body as Readable, request.headers['content-type'])
      const response = await fetch(`${url}/files/${upload.relative.split('/').map(encodeURIComponent).join('/')}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body: upload.file,
      })
      if (!response.ok) return relayFailure(response, reply)
      await response.body?.cancel()
      return { filename: upload.filename, path: upload.path, ...(upload.file.type && { media_type: upload.file.type }) }
    })
  })
}
