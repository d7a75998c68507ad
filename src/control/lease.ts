/**
 * The desktop's control lease (docs/takeover.md). A person takes the desktop over (POST
 * /control/takeover, or the live view's button) and hands it back (POST /control/release, the
 * button, the lease's timeout, or the live view's tab closing). While it is held the executor
 * refuses every acting request with a 423 (`assertAgentMayAct`), before any input; reads go on.
 * A release first lets go of whatever is held (the `releasing` hooks: the executor's held input,
 * the live view's pressed keys), then answers the request_human calls waiting for it.
 */
import type { Logger } from 'pino'
import { ControlConflict, DesktopTakenOver, DesktopUnavailable } from '../errors/errors.ts'
import {
  DEFAULT_HUMAN_SECONDS, DEFAULT_LEASE_SECONDS, type HumanAnswer, type HumanRequest, type Lease, type Released,
} from './schema.ts'

/** The longest Retry-After a 423 carries: a person may hand back long before the lease ends. */
export const MAX_RETRY_AFTER_SECONDS = 10
const DEFAULT_HOLDER = 'operator'

export type ReleaseReason = 'released' | 'timeout' | 'closed'

/** Something that happened to the lease, for the recordings and the webhook. */
export type ControlEvent =
  | { type: 'takeover', lease: Lease }
  | { type: 'release', lease: Lease, reason: ReleaseReason, held_ms: number, message: string | null }
  | { type: 'request', request: HumanRequest }

interface Held { lease: Lease, since: number, owner: string | undefined, timer: NodeJS.Timeout }
interface Waiter { request: HumanRequest, since: number, resolve: (answer: HumanAnswer) => void, reject: (error: Error) => void }

export interface TakeoverOptions {
  holder?: string | undefined
  timeoutS?: number | undefined
  /** The live view tab taking over (its viewer id): only it may send input, and its closing releases. */
  owner?: string
}

export interface ControlLeaseOptions {
  log: Logger
  now?: () => number
}

export class ControlLease {
  readonly #log: Logger
  readonly #now: () => number
  #held: Held | undefined
  readonly #waiters = new Set<Waiter>()
  readonly #releasing: Array<() => Promise<void>> = []
  readonly #listeners: Array<(event: ControlEvent) => void> = []
  /** A release under way: a second one (the timeout and the button at once) waits for it. */
  #release: Promise<Released> | undefined

  constructor (options: ControlLeaseOptions) {
    this.#log = options.log
    this.#now = options.now ?? Date.now
  }

  get lease (): Lease | null { return this.#held?.lease ?? null }

  /** The live view tab holding the lease, if one took it. */
  get owner (): string | undefined { return this.#held?.owner }

  /** The request_human calls waiting, oldest first. */
  get requests (): HumanRequest[] { return [...this.#waiters].map((waiter) => waiter.request) }

  /** How long the oldest request_human has waited (ms), or null when none waits. */
  oldestRequestMs (): number | null {
    const first = this.#waiters.values().next().value
    return first ? this.#now() - first.since : null
  }

  /** Called before a lease ends, to let go of what is held; awaited, its failures logged. */
  onReleasing (release: () => Promise<void>): void { this.#releasing.push(release) }

  /** Told every takeover, release and new request_human (never awaited). */
  onEvent (listener: (event: ControlEvent) => void): void { this.#listeners.push(listener) }

  takeover (options: TakeoverOptions = {}): Lease {
    const holder = options.holder ?? DEFAULT_HOLDER
    const held = this.#held
    if (held && (held.lease.holder !== holder || held.owner !== options.owner)) {
      throw new ControlConflict(`the desktop is already taken over by ${JSON.stringify(held.lease.holder)} since ${held.lease.since}; ` +
        'they hand it back with POST /control/release (or the live view\'s "Hand back")')
    }
    const now = this.#now()
    const timeoutMs = (options.timeoutS ?? DEFAULT_LEASE_SECONDS) * 1000
    const since = held?.since ?? now
    const lease: Lease = {
      holder,
      since: new Date(since).toISOString(),
      expires_at: new Date(now + timeoutMs).toISOString(),
      via: options.owner === undefined ? 'api' : 'live',
    }
    if (held) clearTimeout(held.timer)
    const timer = setTimeout(() => { void this.release({ reason: 'timeout' }).catch(() => {}) }, timeoutMs)
    timer.unref()
    this.#held = { lease, since, owner: options.owner, timer }
    if (!held) {
      this.#log.info({ holder, via: lease.via, timeoutS: timeoutMs / 1000 }, 'desktop taken over')
      this.#emit({ type: 'takeover', lease })
    }
    return lease
  }

  /**
   * Ends the lease: what is held is let go first, then the waiting request_human calls are
   * answered with `message`. `owner` set: only that live view tab's lease (else 409).
   */
  release (options: { message?: string | undefined, reason?: ReleaseReason, owner?: string } = {}): Promise<Released> {
    if (this.#release) return this.#release
    const held = this.#held
    if (!held) return Promise.reject(new ControlConflict('nobody holds the desktop: there is no lease to release (GET /control)'))
    if (options.owner !== undefined && held.owner !== options.owner) {
      return Promise.reject(new ControlConflict(`this live view does not hold the desktop: ${JSON.stringify(held.lease.holder)} does, since ${held.lease.since}`))
    }
    this.#release = this.#end(held, options.reason ?? 'released', options.message ?? null).finally(() => { this.#release = undefined })
    return this.#release
  }

  /** Throws the 423 while a lease is held: the one check every acting request passes. */
  assertAgentMayAct (): void {
    const held = this.#held
    if (!held) return
    const left = Math.max(1, Math.ceil((Date.parse(held.lease.expires_at) - this.#now()) / 1000))
    throw Object.assign(new DesktopTakenOver(`the desktop is taken over by ${JSON.stringify(held.lease.holder)} since ${held.lease.since}: ` +
      `nothing of this request ran. Reads (screenshots, the accessibility tree, windows, the cursor) still answer; act again once they hand it back (GET /control), at the latest ${held.lease.expires_at}`),
    { retryAfterSeconds: Math.min(left, MAX_RETRY_AFTER_SECONDS) })
  }

  /**
   * Waits until a person has taken over and handed back (a lease held now counts once released),
   * or `timeoutS` passes, or `signal` aborts (then rejects with its reason).
   */
  waitForHuman (message: string, timeoutS: number = DEFAULT_HUMAN_SECONDS, signal?: AbortSignal): Promise<HumanAnswer> {
    const since = this.#now()
    const request: HumanRequest = { message, since: new Date(since).toISOString(), until: new Date(since + timeoutS * 1000).toISOString() }
    return new Promise<HumanAnswer>((resolve, reject) => {
      const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', aborted); this.#waiters.delete(waiter) }
      const waiter: Waiter = { request, since, resolve: (answer) => { done(); resolve(answer) }, reject: (error) => { done(); reject(error) } }
      const timer = setTimeout(() => waiter.resolve({ outcome: 'timed_out', message: null, holder: null, held_ms: null, waited_ms: this.#now() - since }), timeoutS * 1000)
      const aborted = () => { done(); reject(signal!.reason) }
      if (signal?.aborted) { reject(signal.reason); return }
      signal?.addEventListener('abort', aborted, { once: true })
      this.#waiters.add(waiter)
      // The agent's words are the person's to read (live view, GET /control), not the log's.
      this.#log.info({ timeoutS, waiting: this.#waiters.size }, 'an agent asks for a person')
      this.#emit({ type: 'request', request })
    })
  }

  /**
   * Shutdown: the lease's timer stops, and every request_human still waiting is answered with a
   * 503 at once (a server that stops must not wait out an agent's timeout).
   */
  close (): void {
    if (this.#held) clearTimeout(this.#held.timer)
    for (const waiter of [...this.#waiters]) waiter.reject(new DesktopUnavailable('the server is shutting down: nobody will answer this request for a person here; ask again once it is back'))
  }

  async #end (held: Held, reason: ReleaseReason, message: string | null): Promise<Released> {
    clearTimeout(held.timer)
    for (const release of this.#releasing) {
      try { await release() } catch (error) { this.#log.warn({ err: error }, 'releasing held input at the end of a takeover failed') }
    }
    this.#held = undefined
    const heldMs = this.#now() - held.since
    const waiting = [...this.#waiters]
    for (const waiter of waiting) {
      waiter.resolve({ outcome: 'released', message, holder: held.lease.holder, held_ms: heldMs, waited_ms: this.#now() - waiter.since })
    }
    this.#log.info({ holder: held.lease.holder, reason, heldMs, answered: waiting.length }, 'desktop handed back')
    this.#emit({ type: 'release', lease: held.lease, reason, held_ms: heldMs, message })
    return { released: held.lease, held_ms: heldMs, answered: waiting.length }
  }

  #emit (event: ControlEvent): void {
    for (const listener of this.#listeners) {
      try { listener(event) } catch (error) { this.#log.warn({ err: error, event: event.type }, 'a control listener failed') }
    }
  }
}
