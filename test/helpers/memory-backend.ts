/**
 * The fleet's Backend contract (fleet/backends/backend.ts) in memory, for the control plane's
 * unit tests. It keeps the contract's promises as the Docker backend does: facts and claims are
 * write-once, `list` returns what was created and not removed (exited ones too), `remove` is
 * idempotent, and `watch` hears every desktop that stops. Each running desktop is a real HTTP
 * server on loopback that takes only its own token (GET /health open, as the desktop's is) and
 * answers any other request with what it received, so forwarding and isolation are tested
 * through real sockets. A test ends a desktop's process with kill(), as `docker kill` would.
 * A paused desktop is frozen as the engine's freezer freezes one: its server takes connections
 * but answers nothing, /health included, until it is unpaused.
 * A desktop with `browser: chromium` serves a DevTools stand-in as the server does: GET
 * /browser/cdp/json/version (naming the Host it was asked by) and the WebSocket /browser/cdp, with
 * its token, one client at a time (409 ERR_BROWSER_BUSY), answering each command with what it
 * got; with Firefox both answer 409 ERR_BROWSER_NO_DEVTOOLS.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import WebSocket, { WebSocketServer } from 'ws'
import type { AddressInfo } from 'node:net'
import { AlreadyClaimed, type Backend, type ClaimFacts, type DesktopFacts, type Instance } from '../../fleet/backends/backend.ts'

interface Held {
  facts: DesktopFacts
  claim?: ClaimFacts
  state: 'running' | 'paused' | 'exited'
  /** Requests that arrived while it was paused, answered when it thaws. */
  frozen: Array<() => void>
  server?: Server
  sockets?: WebSocketServer
  cdp?: WebSocketServer
  url?: string
  ready: boolean
  /** What its GET /health says of the control lease (docs/takeover.md); tests set it. */
  control: { taken_over: boolean, waiting: number, oldest_wait_ms: number | null }
}

/** A desktop's control as its /health tells it when nobody holds it and no agent waits. */
export const NO_CONTROL = { taken_over: false, waiting: 0, oldest_wait_ms: null }

export interface Echo { method: string, url: string, authorization?: string, apiKey?: string, contentType?: string, cookie?: string, origin?: string, body: string, desktop: string }

/** The live-view cookie a memory desktop issues on POST /live/session (with its token) and takes on /live/… (as the server's does). */
export const liveCookie = (id: string) => `live=session-of-${id}`
const hasLiveCookie = (request: IncomingMessage, id: string) => (request.headers.cookie ?? '').split(/;\s*/).includes(liveCookie(id))
const noDevtools = { statusCode: 409, code: 'ERR_BROWSER_NO_DEVTOOLS', error: 'Conflict', message: "the desktop's browser is Firefox, whose DevTools this server does not serve" }

export class MemoryBackend implements Backend {
  readonly held = new Map<string, Held>()
  private readonly watchers = new Set<(id: string) => void>()
  /** Whether a new desktop's server answers ready at once (else a test calls setReady). */
  readyAtStart = true
  /** Makes the next creates, or lists, reject, as an engine that fails would. */
  failCreate = false
  failList = false
  /** Makes the next pauses and unpauses reject, as an engine that fails would. */
  failFreezer = false
  /** While set, creates wait for it (a slow engine). */
  gate?: Promise<void>
  /** When set, a desktop answers POST /computer with what it returns for the action sent (as the server's unified answer), instead of the echo. */
  computerAnswer?: (action: Record<string, unknown>) => { status: number, body: unknown }
  /** Every request a desktop's server answered past its token check, in order. */
  readonly received: Echo[] = []
  /** Every call, in order, for tests that check what the control plane asked of the engine. */
  readonly calls: string[] = []
  /** Every request a desktop answered past its token check, as 'id METHOD url body', in order. */
  readonly served: string[] = []
  /** Every DevTools command a desktop's browser got, as 'id method', in order. */
  readonly commands: string[] = []

  async create (facts: DesktopFacts, claim?: ClaimFacts): Promise<Instance> {
    this.calls.push(`create ${facts.id}`)
    if (this.failCreate) throw new Error('the engine refused the create')
    await this.gate
    if (this.held.has(facts.id)) throw new Error(`desktop ${facts.id} exists`)
    const held: Held = { facts: structuredClone(facts), ...(claim && { claim: structuredClone(claim) }), state: 'running', frozen: [], ready: this.readyAtStart, control: { ...NO_CONTROL } }
    this.held.set(facts.id, held)
    held.server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      const handle = () => {
        const answer = (status: number, body: unknown) => {
          response.writeHead(status, { 'content-type': 'application/json' })
          response.end(JSON.stringify(body))
        }
        if (request.url === '/health') { answer(held.ready ? 200 : 503, { ready: held.ready, control: held.control }); return }
        const cookieRoute = request.url?.startsWith('/live') && !request.url.startsWith('/live/session')
        if (cookieRoute ? !hasLiveCookie(request, held.facts.id) : request.headers.authorization !== `Bearer ${held.facts.token}`) { answer(401, { code: 'ERR_UNAUTHORIZED', desktop: held.facts.id }); return }
        if (request.url === '/live/session' && request.method === 'POST') {
          response.writeHead(204, { 'set-cookie': `${liveCookie(held.facts.id)}; HttpOnly; SameSite=Strict` })
          response.end()
          return
        }
        if (request.url?.startsWith('/browser/cdp')) {
          if (held.facts.browser !== 'chromium') { answer(409, noDevtools); return }
          if (request.url === '/browser/cdp/json/version') {
            answer(200, { 'Browser': 'Chrome/0.0-memory', 'Protocol-Version': '1.3', 'User-Agent': 'memory', 'V8-Version': '0', 'WebKit-Version': '0', webSocketDebuggerUrl: `ws://${request.headers.host}/browser/cdp` })
            return
          }
        }
        this.served.push(`${held.facts.id} ${request.method} ${request.url} ${Buffer.concat(chunks).toString('utf8')}`)
        const echo: Echo = {
          method: request.method ?? '',
          url: request.url ?? '',
          authorization: request.headers.authorization,
          ...(typeof request.headers['x-api-key'] === 'string' && { apiKey: request.headers['x-api-key'] }),
          ...(request.headers['content-type'] && { contentType: request.headers['content-type'] }),
          ...(request.headers.cookie && { cookie: request.headers.cookie }),
          ...(request.headers.origin && { origin: request.headers.origin }),
          body: Buffer.concat(chunks).toString('utf8'),
          desktop: held.facts.id,
        }
        this.received.push(echo)
        // A screenshot answers with an image of its own (the desktop's id, as bytes), as the desktop's server would with a PNG.
        if (request.url === '/computer' && this.computerAnswer) {
          const { status, body } = this.computerAnswer(JSON.parse(echo.body) as Record<string, unknown>)
          answer(status, body)
          return
        }
        const shot = request.url === '/computer' && /"action"\s*:\s*"take_screenshot"/.test(echo.body)
        answer(200, shot ? { ...echo, base64_image: Buffer.from(`screen of ${held.facts.id}`).toString('base64') } : echo)
      }
      request.on('end', () => { if (held.state === 'paused') held.frozen.push(handle); else handle() })
    })
    // The live view's WebSocket: with the live cookie only (else 401, as the server's); it says
    // what it was opened with, then echoes every message as it came.
    const sockets = new WebSocketServer({ noServer: true })
    sockets.on('connection', (socket, request) => {
      socket.send(JSON.stringify({ desktop: held.facts.id, origin: request.headers.origin ?? null, authorization: request.headers.authorization ?? null, protocol: socket.protocol }))
      socket.on('message', (data, binary) => socket.send(data, { binary }))
    })
    held.sockets = sockets
    // The browser's DevTools: with the token (and Chromium) only, one client at a time; each
    // command answered with what the desktop got, Target.getTargets with a page of its own.
    const cdp = new WebSocketServer({ noServer: true })
    cdp.on('connection', (socket, request) => {
      socket.on('message', (data) => {
        const { id, method, params } = JSON.parse(String(data)) as { id: number, method: string, params?: unknown }
        this.commands.push(`${held.facts.id} ${method}`)
        const result = method === 'Target.getTargets'
          ? { targetInfos: [{ targetId: 'w', type: 'service_worker', url: 'https://worker.invalid/' }, { targetId: 'p', type: 'page', url: `https://example.com/${held.facts.id}` }] }
          : { desktop: held.facts.id, method, params: params ?? null, authorization: request.headers.authorization ?? null, origin: request.headers.origin ?? null }
        socket.send(JSON.stringify({ id, result }))
        // Browser.close ends the browser: its connection goes with it.
        if (method === 'Browser.close') socket.close()
      })
    })
    held.cdp = cdp
    held.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const refuse = (status: number, body: unknown) => {
        const text = JSON.stringify(body)
        socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`)
      }
      if (request.url === '/live/websockify') {
        if (!hasLiveCookie(request, held.facts.id)) { refuse(401, { code: 'ERR_UNAUTHORIZED', desktop: held.facts.id }); return }
        sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request))
      } else if (request.url === '/browser/cdp') {
        if (request.headers.authorization !== `Bearer ${held.facts.token}`) { refuse(401, { code: 'ERR_UNAUTHORIZED', desktop: held.facts.id }); return }
        if (held.facts.browser !== 'chromium') { refuse(409, noDevtools); return }
        if ([...cdp.clients].some((client) => client.readyState === WebSocket.OPEN)) { refuse(409, { statusCode: 409, code: 'ERR_BROWSER_BUSY', error: 'Conflict', message: 'another client holds the browser' }); return }
        cdp.handleUpgrade(request, socket, head, (ws) => cdp.emit('connection', ws, request))
      } else {
        refuse(404, { code: 'ERR_NOT_FOUND' })
      }
    })
    await new Promise<void>((resolve) => held.server!.listen(0, '127.0.0.1', resolve))
    held.url = `http://127.0.0.1:${(held.server.address() as AddressInfo).port}`
    return this.instance(held)
  }

  async claim (id: string, claim: ClaimFacts): Promise<void> {
    this.calls.push(`claim ${id}`)
    const held = this.held.get(id)
    if (!held) throw new Error(`no desktop ${id}`)
    if (held.claim) throw new AlreadyClaimed(id)
    held.claim = structuredClone(claim)
  }

  async inspect (id: string): Promise<Instance | undefined> {
    const held = this.held.get(id)
    return held && this.instance(held)
  }

  async list (): Promise<Instance[]> {
    if (this.failList) throw new Error('the engine did not answer')
    return [...this.held.values()].map((held) => this.instance(held))
  }

  async remove (id: string): Promise<void> {
    this.calls.push(`remove ${id}`)
    const held = this.held.get(id)
    if (!held) return
    this.held.delete(id)
    await this.stop(held)
  }

  async pause (id: string): Promise<void> {
    this.calls.push(`pause ${id}`)
    const held = this.running(id)
    held.state = 'paused'
  }

  async unpause (id: string): Promise<void> {
    this.calls.push(`unpause ${id}`)
    const held = this.running(id)
    held.state = 'running'
    for (const thaw of held.frozen.splice(0)) thaw()
  }

  /** A desktop the freezer can act on, as the engine checks it. */
  private running (id: string): Held {
    if (this.failFreezer) throw new Error('the engine refused the freezer')
    const held = this.held.get(id)
    if (!held || held.state === 'exited') throw new Error(`desktop ${id} is not running`)
    return held
  }

  watch (onExit: (id: string) => void): () => void {
    this.watchers.add(onExit)
    return () => this.watchers.delete(onExit)
  }

  /** The desktop's process ends by itself (as `docker kill`): it stays listed, exited, and the watchers hear of it. */
  async kill (id: string, { silently = false } = {}): Promise<void> {
    const held = this.held.get(id)
    if (!held) throw new Error(`no desktop ${id}`)
    await this.stop(held)
    if (!silently) for (const watcher of this.watchers) watcher(id)
  }

  setReady (id: string, ready: boolean): void {
    this.held.get(id)!.ready = ready
  }

  /** Ends every desktop's server (a test's teardown). */
  async close (): Promise<void> {
    await Promise.all([...this.held.values()].map((held) => this.stop(held)))
  }

  private async stop (held: Held) {
    held.state = 'exited'
    held.frozen.length = 0
    delete held.url
    const server = held.server
    delete held.server
    // Upgraded sockets are no longer the HTTP server's to close: ended first, as a killed desktop's would be.
    for (const socket of [...held.sockets?.clients ?? [], ...held.cdp?.clients ?? []]) socket.terminate()
    held.sockets?.close()
    held.cdp?.close()
    delete held.sockets
    delete held.cdp
    if (server) await new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) })
  }

  private instance (held: Held): Instance {
    return {
      facts: structuredClone(held.facts),
      ...(held.claim && { claim: structuredClone(held.claim) }),
      state: held.state,
      ...(held.url && { url: held.url }),
    }
  }
}
