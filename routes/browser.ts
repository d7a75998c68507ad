/**
 * The desktop's browser beside the desktop (--browser chromium): GET /browser/cdp is the
 * browser's DevTools WebSocket, through the gateway with the token (Playwright's
 * `chromium.connectOverCDP(url, { headers })`, Puppeteer's `connect({ browserWSEndpoint, headers })`);
 * GET /browser/cdp/json/version is the discovery they ask an http URL for, pointing back here.
 * The guard and auth hooks run on the upgrade request like on any other: no web page, foreign
 * Host or missing token gets in. GET /browser says what runs and the sessions it had.
 *
 * A session whose upgrade request carries X-Recording-Id records each of its calls (method,
 * target, sizes, timing, error; never their contents) as steps of that episode (with --record;
 * src/recording/cdp-steps.ts).
 *
 * Without DevTools (--browser firefox, or a desktop with no X display) the same paths answer
 * 409 naming what would serve them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type {} from '@fastify/websocket'
import type { FastifyRequest } from 'fastify'
import type { RawData, WebSocket } from 'ws'
import { CdpBroker, type CdpCallRecord } from '../src/browser/cdp-broker.ts'
import type { ControlLease } from '../src/control/lease.ts'
import { cdpRecording } from '../src/recording/cdp-steps.ts'
import { RECORDING_HEADER } from '../src/recording/hooks.ts'
import { BrowserStatus, CdpVersion } from '../src/browser/schema.ts'
import { BrowserNoDevtools } from '../src/errors/errors.ts'
import type { BrowserKind } from '../src/runtime/desktop-apps.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'

const errors = { '4xx': Type.Ref(ErrorBody), '5xx': Type.Ref(ErrorBody) }

/** The most of the browser's messages that may wait for a client reading too slowly; then it is disconnected. */
export const MAX_BUFFERED_BYTES = 64 << 20

export interface BrowserRoutesOptions {
  browser: BrowserKind
  /** The broker of the browser's DevTools pipe; none: the routes refuse with `why`. */
  broker?: CdpBroker
  /** Why there are no DevTools here (what a client reads in the 409). */
  why?: string
  /**
   * The desktop's control lease: while a person holds it, a new DevTools connection answers 423
   * before the upgrade, and one open at the takeover is closed (1013, try again later).
   */
  control?: ControlLease
}

/** Where this request's client reaches /browser/cdp: the same scheme and Host it came by (the guard has checked the Host). */
function cdpUrl (request: FastifyRequest): string {
  return `${request.protocol === 'https' ? 'wss' : 'ws'}://${request.headers.host ?? '127.0.0.1'}/browser/cdp`
}

export const browserRoutes: FastifyPluginAsyncTypebox<BrowserRoutesOptions> = async (fastify, { browser, broker, why, control }) => {
  const refuse = () => new BrowserNoDevtools(why ?? 'this server has no browser DevTools')

  fastify.get('/browser', {
    schema: {
      operationId: 'getBrowser',
      summary: 'The desktop\'s browser and its DevTools sessions',
      description: 'Which browser the desktop has (--browser), whether /browser/cdp serves its DevTools, the session open now and the last ones ended (who, when, how many messages and bytes; never their content).',
      tags: ['browser'],
      response: { 200: Type.Ref(BrowserStatus), ...errors },
    },
  }, async () => ({ browser, devtools: broker !== undefined, ...broker?.sessions() ?? { current: null, recent: [] } }))

  for (const url of ['/browser/cdp/json/version', '/browser/cdp/json/version/']) {
    fastify.get(url, {
      schema: {
        ...(url.endsWith('/') ? { hide: true } : {}),
        operationId: 'getBrowserCdpVersion',
        summary: 'DevTools discovery: the browser\'s version and its WebSocket',
        description: 'What a CDP client asks an http endpoint for (Playwright `connectOverCDP("http://…/browser/cdp", { headers })`): the browser\'s version, and `webSocketDebuggerUrl` pointing at this server\'s /browser/cdp. Starts the browser if it does not run. 409 without DevTools (--browser firefox).',
        tags: ['browser'],
        response: { 200: Type.Ref(CdpVersion), ...errors },
      },
    }, async (request) => {
      if (!broker) throw refuse()
      const version = await broker.call('Browser.getVersion')
      const text = (name: string) => String(version[name] ?? '')
      return {
        'Browser': text('product'),
        'Protocol-Version': text('protocolVersion'),
        'User-Agent': text('userAgent'),
        'V8-Version': text('jsVersion'),
        'WebKit-Version': text('revision'),
        webSocketDebuggerUrl: cdpUrl(request),
      }
    })
  }

  if (!broker) {
    fastify.get('/browser/cdp', { schema: { hide: true } }, async () => { throw refuse() })
    return
  }
  // A person taking the desktop over takes the browser too: the agent's open session ends.
  const sockets = new Set<WebSocket>()
  control?.onEvent((event) => {
    if (event.type !== 'takeover') return
    for (const socket of sockets) socket.close(1013, `the desktop is taken over by "${event.lease.holder}"`.slice(0, 120))
  })
  // The episode a session records its calls into, by request (started before the upgrade, so a refusal is read).
  const recordings = new WeakMap<FastifyRequest, (call: CdpCallRecord) => void>()
  // Refused (409) before the upgrade, so the client reads why; a race past it is closed 1013 below.
  fastify.get('/browser/cdp', {
    schema: { hide: true },
    websocket: true,
    preValidation: async (request) => {
      control?.assertAgentMayAct()
      const record = fastify.recorder ? await cdpRecording(fastify.recorder, request.headers[RECORDING_HEADER], request.ip) : undefined
      if (record) recordings.set(request, record)
      await broker.admit()
    },
  }, (socket: WebSocket, request: FastifyRequest) => {
    sockets.add(socket)
    const queued: string[] = []
    let session: { received: (text: string) => void, closed: (reason?: string) => void } | undefined
    let open = true
    socket.on('message', (data: RawData, binary: boolean) => {
      const text = binary ? '' : data.toString()
      if (session) session.received(text)
      else queued.push(text)
    })
    socket.on('close', () => { open = false; sockets.delete(socket); session?.closed() })
    const send = (message: string) => {
      socket.send(message)
      // A screencast or a flood of network events to a client that does not read would grow without end.
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES && open) {
        const why = `the client read too slowly: more than ${MAX_BUFFERED_BYTES >> 20} MiB of the browser's messages waited for it`
        socket.close(1008, why)
        session?.closed(why)
      }
    }
    broker.open({ send, close: (code, reason) => socket.close(code, reason) }, request.ip, recordings.get(request)).then((opened) => {
      session = opened
      if (!open) { opened.closed(); return }
      for (const text of queued.splice(0)) opened.received(text)
    }, (error: Error & { code?: string }) => {
      socket.close(error.code === 'ERR_BROWSER_BUSY' ? 1013 : 1011, error.message.slice(0, 120))
    })
  })
}
