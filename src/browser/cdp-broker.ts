/**
 * Hands the browser's one DevTools pipe to one client at a time (a pipe has no connections to
 * tell clients apart; a second client would see the first one's events and answers). Message
 * ids are renumbered on the way in, so an answer still on its way to a client that has gone is
 * dropped rather than taken by the next one as its own. When a client leaves, what it set on
 * the browser's connection is undone — auto-attach, target discovery, the sessions it attached —
 * so the next client starts as on a fresh connection; the pages it opened stay, as the model
 * may be looking at them.
 *
 * Each session's open and close is logged and kept (the last SESSION_HISTORY, for GET /browser):
 * when, who, how long, how many messages and bytes each way; never a message's content. A
 * session opened with `onCall` reports each call of its client when it ends (answered, or
 * left unanswered by the session's end): its method, its target, sizes, timing and the
 * browser's error, never its parameters or result (typed text, cookies, screenshots).
 */
import type { Logger } from 'pino'
import { BrowserBusy, BrowserUnavailable } from '../errors/errors.ts'
import type { CdpPipe, DevtoolsSource } from './source.ts'

/** How many ended sessions GET /browser lists. */
export const SESSION_HISTORY = 20

/** How long a client waits for the session before it to finish closing before it is refused as busy. */
const ADMIT_WAIT_MS = 2000

/** How long the server's own calls (the version for discovery) wait for the browser. */
const CALL_TIMEOUT_MS = 10_000

/** The client side of a session: a WebSocket as the route holds it. */
export interface CdpClient {
  send: (message: string) => void
  close: (code: number, reason: string) => void
}

export interface CdpSessionRecord {
  id: number
  client: string
  opened_at: string
  closed_at?: string
  /** Why it ended: the client left, the browser went, the server stopped. */
  close_reason?: string
  messages_in: number
  messages_out: number
  bytes_in: number
  bytes_out: number
}

/** One call of a client, as it ended: what a recording keeps of it. */
export interface CdpCallRecord {
  /** The broker's session (GET /browser's `id`). */
  session: number
  /** The client's own id for the call. */
  id: number
  method: string
  /** The target session the call was sent to (flattened sessions), null at the browser level. */
  session_id: string | null
  /** The target a Target.* call names (params.targetId), an opaque id. */
  target_id: string | null
  bytes_in: number
  /** The answer's size; null when none came. */
  bytes_out: number | null
  /** When the call came (ms since the epoch) and how long its answer took. */
  started_at: number
  ms: number
  /** The browser's error answer (code and message), else null. */
  error: { code: number | null, message: string } | null
  /** Why no answer came (the session ended first); null when one came. */
  unanswered: string | null
}

interface Pending {
  /** The client's id. */
  theirs: number
  method: string
  sessionId: string | null
  targetId: string | null
  bytesIn: number
  startedAt: number
  started: number
}

interface Current {
  record: CdpSessionRecord
  client: CdpClient
  pipe: CdpPipe
  /** Our id → the client's call, for its calls still unanswered. */
  calls: Map<number, Pending>
  onCall: ((call: CdpCallRecord) => void) | undefined
  /** Sessions attached at the browser level (no sessionId on their event), detached when the client leaves. */
  attached: Set<string>
}

/** A CDP message's routing fields; undefined when the text is not a JSON object. */
function fields (text: string): { id?: unknown, method?: unknown, sessionId?: unknown, params?: { sessionId?: unknown, targetId?: unknown }, result?: unknown, error?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}

export class CdpBroker {
  readonly #source: DevtoolsSource
  readonly #log: Logger
  #current: Current | undefined
  /** A client between admission and its pipe being ready counts as present. */
  #opening = false
  #nextId = 1
  #sessions = 0
  readonly #history: CdpSessionRecord[] = []
  /** Clients waiting in admit() for the session open now to end. */
  readonly #ended: Array<() => void> = []
  /** The server's own calls (GET /browser/cdp/json/version) awaiting their answer. */
  readonly #internal = new Map<number, (message: Record<string, unknown>) => void>()
  /** Pipes this broker listens to already (a restarted browser has a new one). */
  readonly #wired = new WeakSet<CdpPipe>()

  constructor (source: DevtoolsSource, log: Logger) {
    this.#source = source
    this.#log = log
  }

  /**
   * Refuses a second client before its WebSocket is accepted (an HTTP 409 it can read). A
   * client that has just disconnected and comes back at once (its close still in flight) is
   * let in once the close has arrived, within `waitMs`.
   */
  async admit (waitMs = ADMIT_WAIT_MS): Promise<void> {
    const deadline = performance.now() + waitMs
    while ((this.#current || this.#opening) && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))
        this.#ended.push(() => { clearTimeout(timer); resolve() })
      })
    }
    this.#refuseIfBusy()
  }

  #refuseIfBusy (): void {
    if (this.#current || this.#opening) {
      throw new BrowserBusy(`another client holds the browser's DevTools connection (session ${this.#current?.record.id ?? 'opening'}); ` +
        'one client at a time: close the other (browser.disconnect() / browser.close()) and connect again')
    }
  }

  /** The session open now and the last ones ended, newest first. */
  sessions (): { current: CdpSessionRecord | null, recent: CdpSessionRecord[] } {
    return { current: this.#current ? { ...this.#current.record } : null, recent: this.#history.map((record) => ({ ...record })) }
  }

  /** Connects a client to the browser (started if need be); rejects when it cannot start. */
  async open (client: CdpClient, clientAddress: string, onCall?: (call: CdpCallRecord) => void): Promise<{ received: (text: string) => void, closed: (reason?: string) => void }> {
    this.#refuseIfBusy()
    this.#opening = true
    let pipe: CdpPipe
    try {
      pipe = await this.#source.pipe()
    } catch (error) {
      this.#opening = false
      this.#wake()
      throw error
    }
    this.#opening = false
    const record: CdpSessionRecord = { id: ++this.#sessions, client: clientAddress, opened_at: new Date().toISOString(), messages_in: 0, messages_out: 0, bytes_in: 0, bytes_out: 0 }
    const current: Current = { record, client, pipe, calls: new Map(), attached: new Set(), onCall }
    this.#current = current
    this.#wire(pipe)
    this.#log.info({ session: record.id, client: clientAddress }, 'CDP session opened')
    return {
      received: (text) => this.#fromClient(current, text),
      closed: (reason = 'the client closed the connection') => this.#end(current, reason),
    }
  }

  /** Ends the session open now (the server is stopping). */
  close (): void {
    if (this.#current) {
      this.#current.client.close(1001, 'the server is stopping')
      this.#end(this.#current, 'the server stopped')
    }
  }

  /** A call of the server's own at the browser level (starting the browser if need be), beside any client's session. */
  async call (method: string, timeoutMs = CALL_TIMEOUT_MS): Promise<Record<string, unknown>> {
    const pipe = await this.#source.pipe()
    this.#wire(pipe)
    const id = this.#nextId++
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => { this.#internal.delete(id); reject(new BrowserUnavailable(`the browser did not answer ${method} within ${timeoutMs / 1000} s`)) }, timeoutMs)
      this.#internal.set(id, (message) => { clearTimeout(timer); resolve(message) })
    })
    pipe.send(JSON.stringify({ id, method }))
    const message = await answer
    if (typeof message.result !== 'object' || message.result === null) throw new BrowserUnavailable(`the browser refused ${method}: ${JSON.stringify(message.error ?? null).slice(0, 200)}`)
    return message.result as Record<string, unknown>
  }

  #wire (pipe: CdpPipe): void {
    if (this.#wired.has(pipe)) return
    this.#wired.add(pipe)
    pipe.onMessage((text) => this.#fromBrowser(pipe, text))
    pipe.onClose((reason) => {
      const current = this.#current
      if (current?.pipe !== pipe) return
      current.client.close(1011, reason.slice(0, 120))
      this.#end(current, reason)
    })
  }

  #fromClient (current: Current, text: string): void {
    if (this.#current !== current) return
    const message = fields(text)
    if (!message || typeof message.id !== 'number' || typeof message.method !== 'string') {
      current.client.close(1007, 'not a CDP call: a JSON object with a numeric id and a method is expected')
      this.#end(current, 'the client sent something that is not a CDP call')
      return
    }
    const bytesIn = Buffer.byteLength(text)
    current.record.messages_in++
    current.record.bytes_in += bytesIn
    const id = this.#nextId++
    const targetId = message.params?.targetId
    current.calls.set(id, {
      theirs: message.id,
      method: message.method,
      sessionId: typeof message.sessionId === 'string' ? message.sessionId : null,
      targetId: typeof targetId === 'string' ? targetId : null,
      bytesIn,
      startedAt: Date.now(),
      started: performance.now(),
    })
    current.pipe.send(JSON.stringify({ ...message, id }))
  }

  #fromBrowser (pipe: CdpPipe, text: string): void {
    const message = fields(text)
    if (!message) return
    const internal = typeof message.id === 'number' ? this.#internal.get(message.id) : undefined
    if (internal) {
      this.#internal.delete(message.id as number)
      internal(message)
      return
    }
    const current = this.#current
    if (current?.pipe !== pipe) return
    let out = text
    if (typeof message.id === 'number') {
      const pending = current.calls.get(message.id)
      // Ours (the clean-up after a client) or a call of a client gone: nobody's to read.
      if (pending === undefined) return
      current.calls.delete(message.id)
      out = JSON.stringify({ ...message, id: pending.theirs })
      const error = message.error as { code?: unknown, message?: unknown } | undefined
      this.#report(current, pending, {
        bytes_out: Buffer.byteLength(out),
        error: error === undefined ? null : { code: typeof error.code === 'number' ? error.code : null, message: String(error.message ?? '') },
        unanswered: null,
      })
    } else if (message.sessionId === undefined) {
      const session = message.params?.sessionId
      if (message.method === 'Target.attachedToTarget' && typeof session === 'string') current.attached.add(session)
      if (message.method === 'Target.detachedFromTarget' && typeof session === 'string') current.attached.delete(session)
    }
    current.record.messages_out++
    current.record.bytes_out += Buffer.byteLength(out)
    current.client.send(out)
  }

  #report (current: Current, pending: Pending, end: Pick<CdpCallRecord, 'bytes_out' | 'error' | 'unanswered'>): void {
    current.onCall?.({
      session: current.record.id,
      id: pending.theirs,
      method: pending.method,
      session_id: pending.sessionId,
      target_id: pending.targetId,
      bytes_in: pending.bytesIn,
      started_at: pending.startedAt,
      ms: Math.round((performance.now() - pending.started) * 10) / 10,
      ...end,
    })
  }

  /** Tells clients waiting in admit() that the browser is free (or may be). */
  #wake (): void {
    for (const resolve of this.#ended.splice(0)) resolve()
  }

  #end (current: Current, reason: string): void {
    if (this.#current !== current) return
    this.#current = undefined
    this.#wake()
    const { record, pipe } = current
    for (const pending of current.calls.values()) this.#report(current, pending, { bytes_out: null, error: null, unanswered: reason })
    current.calls.clear()
    record.closed_at = new Date().toISOString()
    record.close_reason = reason
    this.#history.unshift(record)
    this.#history.length = Math.min(this.#history.length, SESSION_HISTORY)
    const { id, client, messages_in: messagesIn, messages_out: messagesOut, bytes_in: bytesIn, bytes_out: bytesOut } = record
    this.#log.info({ session: id, client, reason, ms: Date.parse(record.closed_at) - Date.parse(record.opened_at), messagesIn, messagesOut, bytesIn, bytesOut }, 'CDP session closed')
    if (pipe.closed) return
    // Undone as a fresh connection would have it; the answers carry ids no client owns.
    const call = (method: string, params: object) => pipe.send(JSON.stringify({ id: this.#nextId++, method, params }))
    call('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true })
    call('Target.setDiscoverTargets', { discover: false })
    for (const sessionId of current.attached) call('Target.detachFromTarget', { sessionId })
  }
}
