/**
 * A desktop's live view through the fleet (docs/live-view.md): GET /desktops/{id}/live (the
 * page), its scripts and state under …/live/, and the WebSocket …/live/websockify, piped to the
 * desktop's own with the `ws` library. One URL and one key: the page asks for the fleet's key
 * once and posts it to …/live/session, which the fleet checks and trades for the desktop's token;
 * the desktop answers with its session cookie, which the browser scopes to /desktops/{id}/live
 * (the cookie has no Path), so each desktop's session opens that desktop's view alone.
 *
 * Everything else of the live view is public at the fleet and forwarded *without* the desktop's
 * token: the desktop checks its own session cookie, so the fleet opens nothing a cookie does not.
 * The fleet's Origin/Host guard has already passed a browser's request; its Origin is then put
 * as the desktop's own, which the desktop's guard (http-guard.ts) takes as same-origin.
 */
import replyFrom from '@fastify/reply-from'
import type {} from '@fastify/websocket'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import WebSocket, { type RawData } from 'ws'
import { RouteNotFound } from '../../src/errors/errors.ts'
import type { Fleet } from '../fleet.ts'
import { DesktopParams, LIVE_VIEW_TAG } from '../schemas.ts'
import { desktopPath } from './desktop-path.ts'

/** Unsent bytes toward one side before the other side is no longer read (noVNC's frames are large). */
const MAX_BUFFERED = 8 << 20
/** How long the desktop's socket may take to open. */
const OPEN_TIMEOUT_MS = 10_000

/** A live view tab's id, as the desktop's page makes it (routes/live-control.ts). */
const VIEWER_ID = /^[A-Za-z0-9-]{8,64}$/

const WildcardParams = Type.Object({ id: DesktopParams.properties.id, '*': Type.String() })

/** The request's headers for the desktop: no key of the fleet's, the cookie kept, a browser's Origin made the desktop's. */
function forwardedHeaders (headers: Record<string, string | string[] | undefined>, desktopUrl: string, token?: string) {
  const { authorization: _authorization, 'x-api-key': _key, host: _host, origin, ...rest } = headers
  return { ...rest, ...(origin !== undefined && { origin: new URL(desktopUrl).origin }), ...(token && { authorization: `Bearer ${token}` }) }
}

/** Under the one @fastify/websocket the app registers before its hooks (app.ts). */
export const liveRoutes: FastifyPluginAsync<{ fleet: Fleet }> = async (app, { fleet }) => {
  await app.register(replyFrom, { retryMethods: [], disableRequestLogging: true })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => { done(null, payload) })

  /** The desktop a WebSocket's upgrade was checked against, for its handler. */
  const targets = new WeakMap<FastifyRequest, string>()
  const forward = (withToken: boolean) => (request: FastifyRequest, reply: FastifyReply) => {
    const { url, token } = fleet.target((request.params as { id: string }).id)
    return reply.from(`${url}${desktopPath(request)}`, {
      rewriteRequestHeaders: (_request, headers) => forwardedHeaders(headers, url, withToken ? token : undefined),
    })
  }

  // The one route that takes the fleet's key: the key is traded for the desktop's session.
  app.post('/desktops/:id/live/session', { schema: { tags: [LIVE_VIEW_TAG], summary: "Open a live-view session on a desktop: the fleet's key for the desktop's session cookie", params: DesktopParams } }, forward(true))
  app.delete('/desktops/:id/live/session', { config: { public: true }, schema: { tags: [LIVE_VIEW_TAG], summary: 'End the live-view session of the cookie sent', params: DesktopParams } }, forward(false))
  app.get('/desktops/:id/live', { config: { public: true }, schema: { tags: [LIVE_VIEW_TAG], summary: "A desktop's live view (a page; it asks for the fleet's key once)", params: DesktopParams } }, forward(false))
  app.get('/desktops/:id/live/*', { config: { public: true }, schema: { tags: [LIVE_VIEW_TAG], summary: "The live view's scripts and state (the session cookie)", params: WildcardParams } }, forward(false))
  // Its Take over and Hand back buttons (docs/takeover.md), with the session cookie as the rest.
  app.post('/desktops/:id/live/takeover', { config: { public: true }, schema: { tags: [LIVE_VIEW_TAG], summary: 'The live view takes the desktop over (the session cookie)', params: DesktopParams } }, forward(false))
  app.post('/desktops/:id/live/release', { config: { public: true }, schema: { tags: [LIVE_VIEW_TAG], summary: 'The live view hands the desktop back (the session cookie)', params: DesktopParams } }, forward(false))

  app.route({
    method: 'GET',
    url: '/desktops/:id/live/websockify',
    config: { public: true },
    schema: { tags: [LIVE_VIEW_TAG], summary: "The live view's WebSocket, piped to the desktop's (the session cookie)", params: DesktopParams },
    // Before the upgrade, so an unknown or ended desktop is an HTTP answer (404, 410, 503) and not a socket.
    preHandler: async (request) => { targets.set(request, fleet.target((request.params as { id: string }).id).url) },
    handler: async (request) => {
      throw new RouteNotFound(`${request.url.split('?')[0]} is the live view's WebSocket: open it with a WebSocket client (the page at …/live does)`)
    },
    wsHandler: (socket, request) => {
      const url = targets.get(request)!
      const headers = forwardedHeaders({ cookie: request.headers.cookie, ...(request.headers.origin !== undefined && { origin: request.headers.origin }) }, url)
      // The tab's viewer id, alone of the query: its input passes while it holds the control lease.
      const viewer = new URL(request.url, 'http://fleet').searchParams.get('viewer')
      const query = viewer !== null && VIEWER_ID.test(viewer) ? `?viewer=${viewer}` : ''
      pipe(socket, request, `${url.replace(/^http/, 'ws')}/live/websockify${query}`, headers as Record<string, string>)
    },
  })
}

/**
 * Messages both ways, as they came (binary stays binary); either side's end ends the other; each
 * side paused while the other is behind. `headers` are all the desktop's socket is opened with.
 */
export function pipe (client: WebSocket, request: FastifyRequest, target: string, headers: Record<string, string>): void {
  const protocols = String(request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean)
  const desktop = new WebSocket(target, protocols, { headers, handshakeTimeout: OPEN_TIMEOUT_MS, perMessageDeflate: false, maxPayload: 64 << 20 })
  const early: Array<[RawData, boolean]> = []
  let earlyBytes = 0

  const relay = (to: WebSocket, from: WebSocket) => {
    let waiting: NodeJS.Timeout | undefined
    return (data: RawData, binary: boolean) => {
      to.send(data, { binary })
      if (waiting || to.bufferedAmount <= MAX_BUFFERED) return
      from.pause()
      waiting = setInterval(() => {
        if (to.bufferedAmount > MAX_BUFFERED / 2 && to.readyState === WebSocket.OPEN) return
        clearInterval(waiting)
        waiting = undefined
        from.resume()
      }, 20)
    }
  }
  const toDesktop = relay(desktop, client)
  client.on('message', (data, binary) => {
    if (desktop.readyState === WebSocket.OPEN) { toDesktop(data, binary); return }
    earlyBytes += (data as Buffer).length ?? 0
    if (earlyBytes > MAX_BUFFERED) { client.close(1009, 'too much sent before the desktop answered'); desktop.terminate(); return }
    early.push([data, binary])
  })
  desktop.on('open', () => {
    for (const [data, binary] of early.splice(0)) desktop.send(data, { binary })
    desktop.on('message', relay(client, desktop))
  })
  // The desktop refused the upgrade (no session: 401; another origin: 403; a busy browser: 409): the client learns why.
  desktop.on('unexpected-response', (_req, response) => {
    client.close(1008, `the desktop answered ${response.statusCode}${target.endsWith('/live/websockify') ? ': sign in at …/live' : ''}`)
    desktop.terminate()
  })
  // 1005 and 1006 say a close frame was missing; they may not be sent, so the other side gets a plain close.
  const closeCode = (code: number) => (code === 1005 || code === 1006 || code === 1015 ? 1000 : code)
  desktop.on('close', (code, reason) => { if (client.readyState === WebSocket.OPEN) client.close(closeCode(code), reason) })
  client.on('close', (code, reason) => {
    if (desktop.readyState === WebSocket.OPEN) desktop.close(closeCode(code), reason)
    else desktop.terminate()
  })
  desktop.on('error', (error) => {
    request.log.warn({ err: error }, 'a socket to the desktop failed')
    if (client.readyState === WebSocket.OPEN) client.close(1011, 'the desktop\'s socket is unreachable')
  })
  client.on('error', () => { desktop.terminate() })
}
