/**
 * OSWorld's guest protocol (--osworld): the HTTP server `desktop_env`'s PythonController and
 * SetupController talk to inside their VM, served on a port of its own (--osworld-port, 5000
 * as the harness assumes) because its paths are fixed at the root and one of them
 * (`/accessibility`) is also ours. It shares the server's desktop: the same executor and its
 * queue, the pyautogui dialect, the accessibility source, the home jail and the recorder.
 * Behind the same Host/Origin guard; with a token, the token too, which the harness sends as
 * the password of `http://osworld:<token>@host` (requests turns a URL's user info into Basic
 * auth), or as a Bearer token.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Logger } from 'pino'
import { installErrorHandler } from '../../src/http/error-handler.ts'
import { clientErrorHandler, guardHook } from '../../src/http/http-guard.ts'
import { RouteNotFound } from '../../src/errors/errors.ts'
import { createValidatorCompiler } from '../../src/schemas/validation.ts'
import { ErrorBody } from '../../src/schemas/error-body.ts'
import { GUEST_SCHEMAS } from '../../src/osworld/schema.ts'
import type { GuestDeps } from './deps.ts'
import { guestAuthHook } from './auth.ts'
import { formBodies } from './form-bodies.ts'
import { screenRoutes } from './screen.ts'
import { executeRoutes } from './execute.ts'
import { accessibilityRoutes } from './accessibility.ts'
import { fileRoutes } from './files.ts'
import { windowRoutes } from './windows.ts'
import { recordingRoutes } from './recording.ts'
import { wallpaperRoutes } from './wallpaper.ts'

export type { GuestDeps } from './deps.ts'

export interface GuestOptions extends GuestDeps {
  logger: Logger
  token?: string
  listenHost?: string
  allowHosts?: readonly string[]
  bodyLimit: number
  /** As the main port's: a client's headers and whole request in time (else 408), and the most connections. */
  requestTimeoutMs: number
  headersTimeoutMs: number
  maxConnections: number
}

/** The guest's Fastify instance; it listens nowhere (src/runtime/server.ts listens, tests inject). */
export async function buildGuestApp (options: GuestOptions): Promise<FastifyInstance> {
  const { logger, token, listenHost, allowHosts, bodyLimit, requestTimeoutMs: requestTimeout, headersTimeoutMs: headersTimeout, maxConnections, ...deps } = options
  const app = Fastify({
    loggerInstance: logger.child({ component: 'osworld' }) as FastifyBaseLogger,
    // Uploads (/setup/upload) are streamed into the home and bounded by the jail's own limits.
    bodyLimit,
    requestTimeout,
    http: { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(50, Math.min(1000, headersTimeout / 4)) },
    clientErrorHandler: clientErrorHandler(requestTimeout, headersTimeout),
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.server.maxConnections = maxConnections
  for (const schema of [...GUEST_SCHEMAS, ErrorBody]) app.addSchema(schema)
  app.setValidatorCompiler(createValidatorCompiler([...GUEST_SCHEMAS, ErrorBody]))
  installErrorHandler(app, bodyLimit)
  app.setNotFoundHandler((request) => {
    throw new RouteNotFound(`no route ${request.method} ${request.url.split('?')[0]} in the OSWorld guest protocol; docs/osworld.md lists its routes`)
  })
  app.addHook('onRequest', guardHook({
    token: Boolean(token),
    ...(listenHost !== undefined && { listenHost }),
    ...(allowHosts && { allowHosts }),
  }))
  if (token) app.addHook('onRequest', guestAuthHook(token))
  formBodies(app)
  for (const routes of [screenRoutes, executeRoutes, accessibilityRoutes, fileRoutes, windowRoutes, recordingRoutes, wallpaperRoutes]) {
    await app.register(routes, deps)
  }
  return app
}
