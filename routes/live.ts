/**
 * The live view (README "Live view"): GET /live (the page), live/novnc/* (noVNC's client
 * from the @novnc/novnc package), POST|DELETE /live/session (the token traded for a session
 * cookie, and back), GET /live/state (what the side panel shows) and GET /live/websockify
 * (a WebSocket bridged to the desktop's VNC server, inside this process). src/http/app.ts registers
 * @fastify/websocket for it, before every other hook.
 *
 * With a token configured, everything but POST /live/session wants the session cookie, and
 * POST /live/session wants the token; the Origin/Host rules (src/http/http-guard.ts) hold for all
 * of it, WebSocket included. Input from the browser passes only with --live-control, and
 * what it held is released when its socket closes.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, normalize, sep } from 'node:path'
import type { Duplex } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type {} from '@fastify/websocket'
import { Type } from '@sinclair/typebox'
import type { RawData, WebSocket } from 'ws'
import { RouteNotFound, Unauthorized } from '../src/errors/errors.ts'
import type { Activity } from '../src/live/activity.ts'
import { RfbInputFilter } from '../src/live/rfb-input.ts'
import { cookieValue, LIVE_COOKIE, sessionCookie, type LiveSessions } from '../src/live/sessions.ts'
import type { LiveSource } from '../src/live/source.ts'
import { signInPage, viewerPage } from './live-page.ts'
import type { ControlLease } from '../src/control/lease.ts'
import { liveControlRoutes, LiveViewers, VIEWER_ID } from './live-control.ts'

export interface LiveRouteOptions {
  source: LiveSource
  /** The desktop's control lease: with --live-control, a tab's input passes only while it holds it. */
  control: ControlLease
  sessions: LiveSessions
  activity: Activity
  /** Whether the server has an API token; without one the live view is as open as the rest of the API. */
  token: boolean
}

/** noVNC's own files: its RFB library and what it imports. */
const NOVNC_ROOT = dirname(dirname(createRequire(import.meta.url).resolve('@novnc/novnc')))
const NOVNC_FILE = /^(core|vendor)\/[A-Za-z0-9_./-]+\.js$/
/** The largest WebSocket message a viewer may send (noVNC's are a few bytes; clipboard text more). */
export const LIVE_MAX_MESSAGE_BYTES = 2 << 20
/** Unread bytes for a viewer before the bridge stops reading from the VNC server. */
const MAX_BUFFERED = 8 << 20
/** How long the VNC connection gets to take the last releases before it is cut. */
const CLOSE_GRACE_MS = 2000

const LiveState = Type.Object({
  ready: Type.Boolean(),
  screen: Type.Union([Type.Object({ width: Type.Integer(), height: Type.Integer() }), Type.Null()]),
  queue: Type.Integer(),
  held: Type.Object({ keys: Type.Array(Type.String()), buttons: Type.Array(Type.String()) }),
  control: Type.Boolean(),
  lease: Type.Union([Type.Object({ holder: Type.String(), since: Type.String(), expires_at: Type.String(), via: Type.String() }), Type.Null()]),
  /** Whether the tab asking (?viewer=) holds the lease. */
  yours: Type.Boolean(),
  requests: Type.Array(Type.Object({ message: Type.String(), since: Type.String(), until: Type.String() })),
  last_action: Type.Union([Type.Object({
    route: Type.String(),
    action: Type.Union([Type.String(), Type.Null()]),
    status: Type.Integer(),
    ms: Type.Integer(),
    at: Type.String(),
  }), Type.Null()]),
})

/** A page of ours only: scripts and connections to this server alone, never framed. */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}

export const liveRoutes: FastifyPluginAsyncTypebox<LiveRouteOptions> = async (fastify, options) => {
  const { source, sessions, activity, control } = options
  const { executor } = fastify
  const viewers = new LiveViewers(control)

  const signedIn = (request: FastifyRequest) => !options.token || sessions.use(cookieValue(request.headers.cookie, LIVE_COOKIE))
  const requireSession = async (request: FastifyRequest) => {
    if (!signedIn(request)) throw new Unauthorized('the live view needs a session: open /live in a browser and give the API token there (POST /live/session with "Authorization: Bearer <token>")')
  }
  // The token is checked here instead of by authHook: the browser has only the cookie.
  const cookieRoute = { config: { public: true }, schema: { hide: true }, onRequest: requireSession }

  fastify.get('/live', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8')
    if (!signedIn(request)) return reply.code(401).send(signInPage())
    return viewerPage(source.control)
  })

  fastify.post('/live/session', { schema: { hide: true } }, async (request, reply) => {
    const id = sessions.issue()
    reply.header('set-cookie', sessionCookie(id, sessions.cookieMaxAgeSeconds, request.protocol === 'https')).header('cache-control', 'no-store')
    return reply.code(204).send()
  })

  fastify.delete('/live/session', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    sessions.revoke(cookieValue(request.headers.cookie, LIVE_COOKIE))
    return reply.code(204).header('set-cookie', sessionCookie('', 0, request.protocol === 'https')).send()
  })

  fastify.get<{ Querystring: { viewer?: string } }>('/live/state', { ...cookieRoute, schema: { hide: true, response: { 200: LiveState } } }, async (request, reply) => {
    const ready = executor.ready()
    const screen = ready ? await executor.screenSize().catch(() => null) : null
    reply.header('cache-control', 'no-store')
    const viewer = request.query.viewer
    return {
      ready: ready && screen !== null, screen, queue: executor.pending, held: executor.held(), control: source.control,
      lease: control.lease, yours: viewer !== undefined && control.owner === viewer, requests: control.requests, last_action: activity.last,
    }
  })

  await fastify.register(liveControlRoutes, { control, viewers, enabled: source.control, onRequest: requireSession })

  fastify.get<{ Params: { '*': string } }>('/live/novnc/*', cookieRoute, async (request, reply) => {
    const file = await novncFile(request.params['*'])
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(file)
  })

  fastify.get<{ Querystring: { viewer?: string } }>('/live/websockify', { ...cookieRoute, websocket: true }, (socket: WebSocket, request: FastifyRequest<{ Querystring: { viewer?: string } }>) => {
    // The tab's own id (the page makes one): its input passes while it holds the lease, and its closing releases it.
    const viewer = VIEWER_ID.test(request.query.viewer ?? '') ? request.query.viewer : undefined
    bridge(socket, request, source, viewers, viewer)
  })
}

async function novncFile (path: string): Promise<Buffer> {
  const relative = normalize(path)
  if (!NOVNC_FILE.test(path) || relative !== path || relative.split(sep).includes('..')) throw new RouteNotFound(`no noVNC file ${path}`)
  try {
    return await readFile(join(NOVNC_ROOT, relative))
  } catch {
    throw new RouteNotFound(`no noVNC file ${path}`)
  }
}

/** Bytes between the browser and the VNC server; the browser's pass through the input filter. */
function bridge (socket: WebSocket, request: FastifyRequest, source: LiveSource, viewers: LiveViewers, viewer: string | undefined): void {
  const log = request.log
  const filter = new RfbInputFilter(() => source.control && viewers.holds(viewer))
  const early: Buffer[] = []
  let vnc: Duplex | undefined
  let open = true

  const fromBrowser = (data: Buffer) => {
    try {
      const allowed = filter.push(data)
      if (allowed.length) vnc!.write(allowed)
    } catch (error) {
      log.warn({ err: error }, 'live view: the browser sent what the bridge cannot read; closing')
      socket.close(1008, (error as Error).message.slice(0, 120))
    }
  }
  // Listeners first: a message that arrives while the VNC connection is opened must not be lost.
  socket.on('message', (data: RawData) => {
    const chunk = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)
    if (vnc) fromBrowser(chunk)
    else early.push(chunk)
  })
  // What this tab holds is let go when the lease ends, before the agent is answered.
  const leave = viewer === undefined ? undefined : viewers.join(viewer, () => { const releases = filter.releases(); if (releases.length && vnc) vnc.write(releases) })
  socket.on('close', () => {
    open = false
    leave?.()
    if (!vnc) return
    // Whatever the browser held (a tab closed mid-drag) is let go before the connection ends.
    const releases = filter.releases()
    if (releases.length) log.info({ bytes: releases.length }, 'live view closed while holding input; released it')
    vnc.end(releases.length ? releases : undefined)
    setTimeout(() => vnc!.destroy(), CLOSE_GRACE_MS).unref()
  })

  source.connect().then((connection) => {
    if (!open) { connection.destroy(); return }
    vnc = connection
    connection.on('data', (chunk: Buffer) => {
      socket.send(chunk)
      if (socket.bufferedAmount > MAX_BUFFERED) {
        connection.pause()
        const resume = setInterval(() => {
          if (socket.bufferedAmount < MAX_BUFFERED / 2 || !open) { clearInterval(resume); connection.resume() }
        }, 50)
      }
    })
    connection.on('error', (error) => log.debug({ err: error }, 'live view: VNC connection error'))
    connection.on('close', () => { if (open) socket.close(1011, 'the desktop\'s VNC server went away; reconnect') })
    for (const chunk of early.splice(0)) fromBrowser(chunk)
  }, (error: unknown) => {
    log.warn({ err: error }, 'live view: no VNC connection')
    socket.close(1011, (error as Error).message.slice(0, 120))
  })
}

