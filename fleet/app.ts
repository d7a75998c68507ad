/**
 * The fleet's HTTP API: the lifecycle routes (create, get, list, delete), the fleet's health
 * and OpenAPI document, and every route of a desktop under /desktops/{id}/, forwarded to the
 * desktop's own server with its token put in place of the fleet's key, so a client needs one
 * URL and one key. The same error bodies as the server's (src/http/error-handler.ts).
 */
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify'
import replyFrom from '@fastify/reply-from'
import { withControl } from './control.ts'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { authHook } from '../src/http/auth.ts'
import { errorBody, replyFailure } from '../src/http/error-handler.ts'
import { guardHook } from '../src/http/http-guard.ts'
import { InvalidDesktopRequest } from '../src/errors/errors.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'
import { RETRY_AFTER_FULL_SECONDS, type Fleet } from './fleet.ts'
import { pauseRoutes } from './routes/pause.ts'
import { scrapybaraRoutes } from './scrapybara/routes.ts'
import { scrapybaraShellRoutes } from './scrapybara/shell.ts'
import { scrapybaraForwardRoutes } from './scrapybara/forward.ts'
import { CreateDesktop, DesktopList, DesktopParams, DesktopView, describeValidation, FleetHealth, FORWARDED_TAG } from './schemas.ts'
import { createSpec } from './options.ts'
import { resetRoute } from './routes/reset.ts'
import { liveRoutes } from './routes/live.ts'
import { desktopPath } from './routes/desktop-path.ts'
import { browserRoutes } from './routes/browser.ts'
import websocket from '@fastify/websocket'
import { LIVE_MAX_MESSAGE_BYTES } from '../routes/live.ts'

export interface FleetAppOptions {
  fleet: Fleet
  /** The fleet's API key; without one (loopback only, config.ts) every route is open. */
  token?: string
  /** The address it listens on: the Host and Origin guard's rule depends on it, as the server's does. */
  listenHost?: string
  /** Where requests are logged (main.ts's pino); none in tests. */
  logger?: FastifyBaseLogger
  /** The desktops run the server's shell (the fleet's --shell): Scrapybara's /bash and /env are served. */
  shell?: boolean
}

/** Everything of a desktop's API the fleet forwards, under /desktops/{id}/. */
export const FORWARDED = ['computer', 'computer/*', 'adapters', 'accessibility', 'accessibility/*', 'files', 'files/*', 'health', 'mcp', 'recordings', 'recordings/*', 'openapi.json', 'control', 'control/*'] as const

export async function buildFleetApp (options: FleetAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // Unknown fields are refused, not silently dropped; nothing is coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>()
  const { fleet } = options

  app.setErrorHandler(function (caught: FastifyError, _request, reply) {
    const error = caught.validation ? new InvalidDesktopRequest(describeValidation(caught.validationContext, caught.validation)) : caught
    const body = errorBody(error)
    replyFailure(reply, body, caught)
    if (body.statusCode === 429) reply.header('retry-after', String(RETRY_AFTER_FULL_SECONDS))
    return reply.send(body)
  })
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ statusCode: 404, code: 'ERR_NOT_FOUND', error: 'Not Found', message: `no route ${request.method} ${request.url.split('?')[0]} on this fleet (GET /openapi.json lists them)` })
  })
  // Once for the whole fleet (it answers every upgrade of the server: twice would route each one
  // twice), and before every other hook, as the server does (src/http/app.ts): it marks upgrades
  // and ends the socket of each one answered over HTTP (a 403 from the guard, a 401), which a
  // hook of its own registered after those would not see. The same most per message as the desktop's.
  await app.register(websocket, { options: { maxPayload: LIVE_MAX_MESSAGE_BYTES } })
  // Only a path is a request target here: an absolute URL ("GET http://host/…") would otherwise
  // reach a forwarded route with a path that is not the desktop's, and no host but a desktop's own is ever asked.
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/')) throw new InvalidDesktopRequest('the request target must be a path starting with \'/\', not an absolute URL: the fleet forwards to its own desktops only')
  })
  // A web page whose DNS name points here, or any other site's page, is refused before the key is looked at.
  app.addHook('onRequest', guardHook({ ...(options.listenHost && { listenHost: options.listenHost }), token: Boolean(options.token) }))
  if (options.token) app.addHook('onRequest', authHook(options.token))

  await app.register(swagger, {
    openapi: {
      info: { title: 'computer-gateway fleet', version: '0.1.0', description: 'Desktops on demand: create, get, list and end desktops, and reach each one\'s API through the fleet.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  })

  const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody }
  app.get('/health', { config: { public: true }, schema: { summary: 'Whether the warm pool is full', response: { 200: FleetHealth } } },
    async () => fleet.health())

  app.post('/desktops', {
    // No body at all is a create with every default.
    preValidation: (request, _reply, done) => { request.body ??= {}; done() },
    schema: { summary: 'Create a desktop (from the warm pool when its screen, profile and autostart are the pool\'s)', body: CreateDesktop, response: { 201: DesktopView, ...errors, 429: ErrorBody, 503: ErrorBody } },
  }, async (request, reply) => {
    const { ttl_seconds: ttlSeconds, labels } = request.body ?? {}
    const view = await fleet.create({ ...createSpec(request.body ?? {}, fleet.poolSpec), ...(ttlSeconds !== undefined && { ttlSeconds }), ...(labels && { labels }) })
    return reply.code(201).send(view)
  })

  app.get('/desktops', { schema: { summary: 'The desktops handed out and not ended', response: { 200: DesktopList, 401: ErrorBody } } },
    async () => ({ desktops: await withControl(fleet.list()) }))

  app.get('/desktops/:id', { schema: { summary: 'One desktop: starting, running, or terminated (and why)', params: DesktopParams, response: { 200: DesktopView, ...errors } } },
    async (request) => fleet.get(request.params.id))

  app.delete('/desktops/:id', { schema: { summary: 'End a desktop and remove its home', params: DesktopParams, response: { 204: Type.Null({ description: 'ended' }), ...errors } } },
    async (request, reply) => {
      await fleet.remove(request.params.id)
      return reply.code(204).send(null)
    })

  await app.register(pauseRoutes, { fleet })
  await app.register(scrapybaraRoutes, { fleet })
  await app.register(scrapybaraShellRoutes, { fleet, shell: options.shell === true })
  await app.register(scrapybaraForwardRoutes, { fleet, shell: options.shell === true })
  await app.register(resetRoute, { fleet })
  await app.register(liveRoutes, { fleet })
  await app.register(browserRoutes, { fleet })

  await app.register(async (scope) => {
    await scope.register(replyFrom, { retryMethods: [], disableRequestLogging: true })
    // Bodies pass through as the client sent them (JSON, uploads), unparsed.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', (_request, payload, done) => { done(null, payload) })
    for (const route of FORWARDED) {
      scope.route({
        method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'],
        url: `/desktops/:id/${route}`,
        // HEAD comes with GET already.
        exposeHeadRoute: false,
        schema: { summary: `A desktop's /${route}, forwarded with its token`, tags: [FORWARDED_TAG], params: route.endsWith('*') ? Type.Object({ id: DesktopParams.properties.id, '*': Type.String() }) : DesktopParams },
        handler (request, reply) {
          const { id } = request.params as { id: string }
          const { url, token } = fleet.target(id)
          const path = desktopPath(request)
          return reply.from(`${url}${path}`, {
            rewriteRequestHeaders: (_request, headers) => {
              const { 'x-api-key': _key, host: _host, ...rest } = headers
              return { ...rest, authorization: `Bearer ${token}` }
            },
          })
        },
      })
    }
  })

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger())
  return app
}
