/**
 * A desktop's browser through the fleet (docs/browser-devtools.md), for desktops created with
 * `browser: chromium`: GET /desktops/{id}/browser (what runs, its DevTools sessions), the
 * DevTools discovery …/browser/cdp/json/version with its webSocketDebuggerUrl pointing through
 * the fleet, and the DevTools WebSocket …/browser/cdp, piped to the desktop's /browser/cdp with
 * the desktop's token. The fleet's key is checked on the upgrade by the fleet's auth hook like on
 * any route (Authorization, or x-api-key as a Scrapybara program sends it); the desktop never
 * sees it, and no Origin or cookie of the client's is passed on.
 */
import replyFrom from '@fastify/reply-from'
import type {} from '@fastify/websocket'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { RouteNotFound } from '../../src/errors/errors.ts'
import type { Fleet } from '../fleet.ts'
import { DesktopParams, FORWARDED_TAG } from '../schemas.ts'
import { pipe } from './live.ts'
import { desktopPath } from './desktop-path.ts'

const config = { acceptsApiKeyHeader: true }

/** Where this request's client reaches a desktop's DevTools through the fleet: the scheme and Host it came by (the guard has checked the Host). */
export function fleetCdpUrl (request: FastifyRequest, id: string): string {
  return `${request.protocol === 'https' ? 'wss' : 'ws'}://${request.host}/desktops/${id}/browser/cdp`
}

/** The desktop's answer as it is (its status, its body): an error of the desktop's is the client's to read. */
export async function relay (response: Response, reply: FastifyReply) {
  reply.code(response.status).header('content-type', response.headers.get('content-type') ?? 'application/json')
  return reply.send(Buffer.from(await response.arrayBuffer()))
}

/** Under the one @fastify/websocket the app registers before its hooks (app.ts). */
export const browserRoutes: FastifyPluginAsync<{ fleet: Fleet }> = async (app, { fleet }) => {
  await app.register(replyFrom, { retryMethods: [], disableRequestLogging: true })
  const id = (request: FastifyRequest) => (request.params as { id: string }).id
  /** The request to the desktop with its token, the fleet's key and the client's Host left behind. */
  const forward = (request: FastifyRequest, reply: FastifyReply) => {
    const { url, token } = fleet.target(id(request))
    return reply.from(`${url}${desktopPath(request)}`, {
      rewriteRequestHeaders: (_request, headers) => {
        const { 'x-api-key': _key, host: _host, cookie: _cookie, ...rest } = headers
        return { ...rest, authorization: `Bearer ${token}` }
      },
    })
  }

  app.get('/desktops/:id/browser', { config, schema: { summary: "A desktop's browser and its DevTools sessions (GET /browser), forwarded with its token", tags: [FORWARDED_TAG], params: DesktopParams } }, forward)

  for (const path of ['/desktops/:id/browser/cdp/json/version', '/desktops/:id/browser/cdp/json/version/']) {
    app.get(path, {
      config,
      schema: {
        ...(path.endsWith('/') && { hide: true }),
        tags: [FORWARDED_TAG],
        summary: "DevTools discovery of a desktop's Chromium: its version, and webSocketDebuggerUrl through the fleet (starts the browser)",
        params: DesktopParams,
      },
    }, async (request, reply) => {
      const { url, token } = fleet.target(id(request))
      const response = await fetch(`${url}/browser/cdp/json/version`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) })
      if (!response.ok) return relay(response, reply)
      // The desktop names its own address; the client reaches it through the fleet only.
      return { ...await response.json() as Record<string, unknown>, webSocketDebuggerUrl: fleetCdpUrl(request, id(request)) }
    })
  }

  /** The desktop a WebSocket's upgrade was checked against, for its handler. */
  const targets = new WeakMap<FastifyRequest, { url: string, token: string }>()
  app.route({
    method: 'GET',
    url: '/desktops/:id/browser/cdp',
    config,
    schema: { tags: [FORWARDED_TAG], summary: "A desktop's Chromium DevTools WebSocket (Playwright connectOverCDP, Puppeteer connect), piped to the desktop's with its token", params: DesktopParams },
    // Before the upgrade, so an unknown, ended, paused or starting desktop is an HTTP answer (404, 410, 409, 503) and not a socket.
    preHandler: async (request) => { targets.set(request, fleet.target(id(request))) },
    handler: async (request) => {
      throw new RouteNotFound(`${request.url.split('?')[0]} is a WebSocket: connect a CDP client to it (its discovery is …/browser/cdp/json/version)`)
    },
    wsHandler: (socket, request) => {
      const { url, token } = targets.get(request)!
      pipe(socket, request, `${url.replace(/^http/, 'ws')}/browser/cdp`, { authorization: `Bearer ${token}` })
    },
  })
}
