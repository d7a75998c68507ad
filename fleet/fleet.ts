/**
 * The control plane: the warm pool, --max, TTLs, adoption after a restart, and what happens
 * when a desktop dies. It holds only a cache of what the engine says (backend.list), so a new
 * process rebuilds it whole. Every engine call goes through the Backend contract.
 *
 * A desktop here is `starting` (created, its server not ready yet) or `ready`; it is in the pool
 * while it has no claim. Ended desktops are remembered (bounded) so a client asking after one
 * learns that it ended and why, rather than a bare 404. A client knows a desktop by the id its
 * claim names (a reset hands it a fresh desktop under the id it had), not always its own.
 *
 * A claimed desktop may be paused (the engine's freezer: no CPU, nothing answered) and resumed;
 * the engine reports a paused one as such, so a new process adopts it paused. Pauses and resumes
 * of one desktop run one after another, never interleaved.
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import { CannotPause, type Backend, type ClaimFacts, type DesktopFacts, type Instance } from './backends/backend.ts'
import { DesktopEnded, DesktopNotFound, DesktopPaused, DesktopUnavailable, FleetFull, NotImplemented } from '../src/errors/errors.ts'
import { LIMITS, type DesktopView } from './schemas.ts'
import { screenText, specKey, type DesktopSpec } from './options.ts'
import type { Autostart, BrowserKind, DesktopKind } from '../src/runtime/desktop-apps.ts'

export interface FleetOptions {
  backend: Backend
  /** Desktops kept started ahead, unclaimed. */
  warm: number
  /** Most desktops at once, pool included. */
  max: number
  /** The pool's screen and profile (default full); a create asking for others starts a desktop of its own. */
  screen: { width: number, height: number }
  desktop?: DesktopKind
  /** The pool's browser (default firefox); matched like the profile. */
  browser?: BrowserKind
  /** Whether a desktop's server answers ready (GET /health). */
  probe: (url: string) => Promise<boolean>
  /** Run on a pool desktop once its server is ready, before it counts as ready (fleet/warm-up.ts); a failure is ignored. */
  warmUp?: (url: string, token: string) => Promise<void>
  /** How long a desktop may take to become ready before it counts as failed. */
  startTimeoutMs: number
  /** How long a resumed desktop may take to answer its health probe again before it counts as failed (default 30 s). */
  resumeTimeoutMs?: number
  /** How often TTLs are checked and the engine's view is compared with ours. */
  sweepMs: number
  now?: () => number
  /** `level` is 'info' unless said: a desktop that dies before it was ever ready is an 'error' (an image or engine that cannot run one). */
  log?: (message: string, fields?: Record<string, unknown>, level?: 'info' | 'warn' | 'error') => void
}

interface Desktop {
  facts: DesktopFacts
  claim?: ClaimFacts
  url?: string
  /** Its OSWorld guest protocol, when the fleet runs desktops with --osworld. */
  osworldUrl?: string
  status: 'starting' | 'ready'
  /** Being created: the engine may not list it yet, so the sweep leaves it alone. */
  creating: boolean
  /** Frozen by the engine (pause); nothing is forwarded to it. Set before the engine is asked, so no request slips in meanwhile. */
  paused: boolean
  /** The pause or resume in progress; the next one waits for it. */
  transition?: Promise<void>
  /** Claimed by a reset that has not yet put it in the place of the desktop it replaces. */
  incoming?: boolean
}

/** The id a client knows a claimed desktop by: its own, or the one a reset carried over. */
const publicId = (desktop: { facts: DesktopFacts, claim?: ClaimFacts }) => desktop.claim?.id ?? desktop.facts.id
const specOf = (facts: DesktopFacts): DesktopSpec => ({ screen: facts.screen, desktop: facts.desktop, autostart: facts.autostart, browser: facts.browser })

interface Ended { facts: DesktopFacts, claim: ClaimFacts, reason: string }

const RESUME_TIMEOUT_MS = 30_000

/** Ended desktops remembered for GET; the oldest are forgotten first. */
const REMEMBERED = 1000
export const RETRY_AFTER_FULL_SECONDS = 5

const iso = (ms: number) => new Date(ms).toISOString()

export class Fleet {
  private readonly live = new Map<string, Desktop>()
  private readonly ended = new Map<string, Ended>()
  private readonly now: () => number
  private readonly log: NonNullable<FleetOptions['log']>
  private unwatch?: () => void
  private sweeper?: NodeJS.Timeout
  private refilling?: Promise<void>
  private closed = false
  /** Resets in progress by client id: a second reset of the same desktop meanwhile is the same reset. */
  private readonly resets = new Map<string, Promise<DesktopView>>()
  /** What the warm pool's desktops are. */
  readonly poolSpec: DesktopSpec

  constructor (private readonly options: FleetOptions) {
    this.now = options.now ?? Date.now
    this.log = options.log ?? (() => {})
    this.poolSpec = { screen: options.screen, desktop: options.desktop ?? 'full', autostart: [], browser: options.browser ?? 'firefox' }
    if (!Number.isInteger(options.warm) || options.warm < 0) throw new RangeError('warm must be an integer, 0 or more')
    if (!Number.isInteger(options.max) || options.max < 1 || options.max < options.warm) throw new RangeError('max must be an integer, at least 1 and at least warm')
  }

  /** Adopts what the engine runs for this fleet, then watches it and fills the pool. */
  async start (): Promise<void> {
    // Oldest claim first: when a crash left two desktops claimed under one id (a reset cut short), the newer one stays.
    const instances = (await this.options.backend.list()).sort((a, b) => (a.claim?.claimedAt ?? 0) - (b.claim?.claimedAt ?? 0))
    for (const instance of instances) await this.adopt(instance)
    this.unwatch = this.options.backend.watch((id) => { void this.died(id, 'its container exited') })
    this.sweeper = setInterval(() => { void this.sweep() }, this.options.sweepMs)
    this.sweeper.unref()
    this.refill()
  }

  private async adopt (instance: Instance): Promise<void> {
    const { facts, claim } = instance
    const poolMismatch = !claim && specKey(specOf(facts)) !== specKey(this.poolSpec)
    const reason = instance.state === 'exited'
      ? 'its container exited'
      : claim && claim.expiresAt <= this.now()
        ? 'its TTL passed'
        : poolMismatch ? "the pool's screen or profile changed" : !claim && instance.state === 'paused' ? 'it was paused in the pool' : undefined
    if (reason) {
      if (claim) this.remember(facts, claim, reason)
      this.log('ending a desktop found at start', { id: facts.id, reason })
      await this.options.backend.remove(facts.id)
      return
    }
    const paused = instance.state === 'paused'
    const desktop: Desktop = { facts, ...(claim && { claim }), ...(instance.url && { url: instance.url }), ...(instance.osworldUrl && { osworldUrl: instance.osworldUrl }), status: 'starting', creating: false, paused }
    const replaced = claim && this.find(publicId(desktop))
    if (replaced) {
      this.live.delete(replaced.facts.id)
      this.log('ending a desktop a reset replaced', { id: publicId(desktop) })
      await this.options.backend.remove(replaced.facts.id)
    }
    this.live.set(facts.id, desktop)
    this.log('adopted a desktop', { id: facts.id, claimed: Boolean(claim), paused })
    // A paused one answers nothing: its readiness is probed when it is resumed.
    if (!paused) void this.awaitReady(desktop)
  }

  /** A warm desktop of that spec, ready ones first, or undefined. */
  private warmOf (spec: DesktopSpec): Desktop | undefined {
    const key = specKey(spec)
    const pool = [...this.live.values()].filter((d) => !d.claim && !d.creating && specKey(specOf(d.facts)) === key)
    return pool.find((d) => d.status === 'ready') ?? pool[0]
  }

  /** Hands out a desktop: a warm one when its spec is the pool's, else a new one; 429 at --max. */
  async create (request: { screen?: { width: number, height: number }, desktop?: DesktopKind, autostart?: Autostart[], browser?: BrowserKind, ttlSeconds?: number, labels?: Record<string, string> }): Promise<DesktopView> {
    const spec: DesktopSpec = { screen: request.screen ?? this.poolSpec.screen, desktop: request.desktop ?? this.poolSpec.desktop, autostart: request.autostart ?? [], browser: request.browser ?? this.poolSpec.browser }
    const claimedAt = this.now()
    const claim: ClaimFacts = { claimedAt, expiresAt: claimedAt + (request.ttlSeconds ?? LIMITS.defaultTtlSeconds) * 1000, labels: request.labels ?? {} }
    const warm = this.warmOf(spec)
    if (warm) {
      // Claimed here, before any await, so two creates never take the same one.
      warm.claim = claim
      try {
        await this.options.backend.claim(warm.facts.id, claim)
      } catch (error) {
        // A claim the engine may not hold would be lost on a restart: that desktop is not handed out.
        this.live.delete(warm.facts.id)
        void this.options.backend.remove(warm.facts.id).catch(() => {})
        this.refill()
        throw new DesktopUnavailable(`the engine could not record the claim of a desktop: ${(error as Error).message}; retry`)
      }
      this.log('claimed a warm desktop', { id: warm.facts.id })
      this.refill()
      return this.view(warm)
    }
    if (this.live.size >= this.options.max) {
      throw new FleetFull(`the fleet holds its maximum of ${this.options.max} desktops (--max); end one (DELETE /desktops/{id}) or retry in ${RETRY_AFTER_FULL_SECONDS} s`)
    }
    const desktop = await this.launch(spec, claim)
    return this.view(desktop)
  }

  /**
   * Reset: the client's desktop is replaced by a fresh one of the same spec (from the warm pool
   * when it has one) under the same id, TTL and labels, and the old one ends with its home,
   * processes and everything they held. The fresh desktop has its own token and URL.
   */
  reset (id: string): Promise<DesktopView> {
    const pending = this.resets.get(id)
    if (pending) return pending
    const done = this.replace(id).finally(() => this.resets.delete(id))
    this.resets.set(id, done)
    return done
  }

  private async replace (id: string): Promise<DesktopView> {
    const old = this.served(id)
    const claim: ClaimFacts = { claimedAt: this.now(), expiresAt: old.claim!.expiresAt, labels: old.claim!.labels, id }
    const spec = specOf(old.facts)
    const warm = this.warmOf(spec)
    let fresh: Desktop
    if (warm) {
      // Taken before any await, as a create takes one; the old one serves until the claim is recorded.
      warm.claim = claim
      warm.incoming = true
      try {
        await this.options.backend.claim(warm.facts.id, claim)
      } catch (error) {
        this.live.delete(warm.facts.id)
        void this.options.backend.remove(warm.facts.id).catch(() => {})
        this.refill()
        throw new DesktopUnavailable(`the engine could not record the claim of a fresh desktop: ${(error as Error).message}; desktop ${id} is unchanged, retry`)
      }
      if (this.live.get(warm.facts.id) !== warm) throw new DesktopUnavailable(`the fresh desktop ended while it was claimed; desktop ${id} is unchanged, retry`)
      if (this.live.get(old.facts.id) !== old && !this.ended.has(id)) {
        // The client deleted the desktop meanwhile: nothing may come back under its id.
        await this.retire(warm)
        throw new DesktopNotFound(`desktop ${id} was deleted while it was reset`)
      }
      warm.incoming = false
      fresh = warm
      await this.retire(old)
    } else {
      // No warm desktop of its kind: a cold start in its place, the old one ended first so that --max holds.
      await this.retire(old)
      try {
        fresh = await this.launch(spec, claim)
      } catch (error) {
        this.remember(old.facts, old.claim!, `its reset could not start a fresh desktop: ${(error as Error).message}`)
        throw error
      }
    }
    this.ended.delete(id)
    this.log('reset a desktop', { id, from: old.facts.id, to: fresh.facts.id, warm: Boolean(warm) })
    this.refill()
    return this.view(fresh)
  }

  /** Ends a desktop a reset replaced: it is no longer served, and nothing of it stays in the engine. */
  private async retire (desktop: Desktop): Promise<void> {
    if (this.live.get(desktop.facts.id) === desktop) this.live.delete(desktop.facts.id)
    await this.options.backend.remove(desktop.facts.id).catch((error: Error) => this.log('could not remove a desktop a reset replaced', { id: desktop.facts.id, error: error.message }, 'warn'))
  }

  /** The claimed desktop a client knows by this id (not one a reset is still bringing in). */
  private find (id: string): Desktop | undefined {
    for (const desktop of this.live.values()) if (desktop.claim && !desktop.incoming && publicId(desktop) === id) return desktop
    return undefined
  }

  /** find, or the 410/404 a client gets for an id it cannot use. */
  private served (id: string): Desktop {
    const desktop = this.find(id)
    if (desktop) return desktop
    const ended = this.ended.get(id)
    if (ended) throw new DesktopEnded(`desktop ${id} ended (${ended.reason}); create another with POST /desktops`)
    throw new DesktopNotFound(`no desktop ${id} in this fleet (GET /desktops lists them)`)
  }

  /** Creates a desktop (reserving its place first), then waits for it in the background. */
  private async launch (spec: DesktopSpec, claim?: ClaimFacts): Promise<Desktop> {
    const facts: DesktopFacts = { id: randomBytes(8).toString('hex'), token: randomBytes(24).toString('base64url'), ...structuredClone(spec), createdAt: this.now() }
    const desktop: Desktop = { facts, ...(claim && { claim }), status: 'starting', creating: true, paused: false }
    this.live.set(facts.id, desktop)
    try {
      const instance = await this.options.backend.create(facts, claim)
      if (instance.url) desktop.url = instance.url
      if (instance.osworldUrl) desktop.osworldUrl = instance.osworldUrl
    } catch (error) {
      this.live.delete(facts.id)
      throw new DesktopUnavailable(`the engine could not start a desktop: ${(error as Error).message}`)
    } finally {
      desktop.creating = false
    }
    if (this.live.get(facts.id) !== desktop) {
      // Ended while the engine created it (close with --on-exit end): nothing may outlive that.
      await this.options.backend.remove(facts.id)
      throw new DesktopUnavailable('the fleet is shutting down')
    }
    this.log('started a desktop', { id: facts.id, warm: !claim })
    void this.awaitReady(desktop)
    return desktop
  }

  private async awaitReady (desktop: Desktop): Promise<void> {
    const deadline = this.now() + this.options.startTimeoutMs
    while (this.live.get(desktop.facts.id) === desktop && !this.closed) {
      if (desktop.url && await this.options.probe(desktop.url).catch(() => false)) {
        // Only while nobody holds it: a client that already claimed it acts on it itself.
        if (!desktop.claim && this.options.warmUp) await this.options.warmUp(desktop.url, desktop.facts.token).catch(() => {})
        if (this.live.get(desktop.facts.id) === desktop) desktop.status = 'ready'
        return
      }
      if (this.now() >= deadline) {
        await this.died(desktop.facts.id, `its server was not ready within ${this.options.startTimeoutMs / 1000} s`)
        return
      }
      await delay(250)
    }
  }

  /** Starts warm desktops until the pool is full or --max is reached; one pass at a time, in the background. */
  private refill (): void {
    if (this.refilling || this.closed) return
    this.refilling = (async () => {
      while (!this.closed && this.poolSize() < this.options.warm && this.live.size < this.options.max) {
        try {
          await this.launch(this.poolSpec)
        } catch (error) {
          this.log('could not start a warm desktop; retrying at the next sweep', { error: (error as Error).message })
          break
        }
      }
    })().finally(() => { this.refilling = undefined })
  }

  private poolSize () {
    return [...this.live.values()].filter((d) => !d.claim).length
  }

  /** A desktop that stopped, or failed to start: never served again, its remains removed, the pool refilled. */
  private async died (id: string, reason: string): Promise<void> {
    const desktop = this.live.get(id)
    if (!desktop || desktop.creating) return
    this.live.delete(id)
    // One a reset was bringing in was never the client's: the desktop it would replace still serves.
    if (desktop.claim && !desktop.incoming) this.remember(desktop.facts, desktop.claim, reason)
    // One that never became ready says the image or the engine cannot run a desktop (a bad flag,
    // a missing volume): an operator must see it, the pool would only start another like it.
    if (desktop.status === 'ready') this.log('a desktop ended', { id, reason })
    else this.log('a desktop ended before it was ready: the image or the engine cannot run one as asked', { id, reason }, 'error')
    await this.options.backend.remove(id).catch((error: Error) => this.log('could not remove an ended desktop', { id, error: error.message }))
    this.refill()
  }

  private remember (facts: DesktopFacts, claim: ClaimFacts, reason: string) {
    this.ended.set(publicId({ facts, claim }), { facts, claim, reason })
    for (const oldest of this.ended.keys()) {
      if (this.ended.size <= REMEMBERED) break
      this.ended.delete(oldest)
    }
  }

  /** Ends what passed its TTL, and what the engine no longer runs (a missed event); refills. */
  async sweep (): Promise<void> {
    if (this.closed) return
    for (const desktop of [...this.live.values()]) {
      if (desktop.claim && desktop.claim.expiresAt <= this.now()) await this.died(desktop.facts.id, 'its TTL passed')
    }
    let instances: Instance[]
    try {
      instances = await this.options.backend.list()
    } catch (error) {
      // Nothing is ended on a failed read: an engine that does not answer has not lost its desktops.
      this.log('could not list the desktops; the sweep waits for the next pass', { error: (error as Error).message })
      return
    }
    const states = new Map(instances.map((i) => [i.facts.id, i.state]))
    for (const desktop of [...this.live.values()]) {
      const state = states.get(desktop.facts.id)
      if (desktop.creating) continue
      if (state === undefined || state === 'exited') await this.died(desktop.facts.id, 'its container exited')
      else if (desktop.claim && !desktop.transition) this.follow(desktop, state)
    }
    this.refill()
  }

  /**
   * The engine's word over ours when no pause or resume of ours is under way: a desktop paused or
   * thawed by other means (`docker pause`) is shown, and served, as the engine holds it.
   */
  private follow (desktop: Desktop, state: 'running' | 'paused'): void {
    if (desktop.paused === (state === 'paused')) return
    desktop.paused = state === 'paused'
    this.log('the engine holds a desktop in another state than the fleet did', { id: desktop.facts.id, state })
    if (!desktop.paused) {
      desktop.status = 'starting'
      void this.awaitReady(desktop)
    }
  }

  /** Freezes a desktop a client holds. Pausing a paused one answers the same; a starting one is a 503 to retry. */
  async pause (id: string): Promise<DesktopView> {
    const desktop = this.served(id)
    await this.serialize(desktop, async () => {
      // It may have ended while an earlier pause or resume ran.
      this.served(id)
      if (desktop.paused) return
      if (desktop.status !== 'ready') throw new DesktopUnavailable(`desktop ${id} is starting; pause it once it runs (GET /desktops/${id} says when)`)
      desktop.paused = true
      try {
        await this.options.backend.pause(desktop.facts.id)
      } catch (error) {
        desktop.paused = false
        if (error instanceof CannotPause) throw new NotImplemented(error.message)
        throw new DesktopUnavailable(`the engine could not pause desktop ${id}: ${(error as Error).message}`)
      }
      this.log('paused a desktop', { id })
    })
    return this.view(desktop)
  }

  /**
   * Thaws a paused desktop and answers once its server answers ready again (probed, within
   * resumeTimeoutMs; one that does not is ended as failed). Resuming a running one answers the same.
   */
  async resume (id: string): Promise<DesktopView> {
    const desktop = this.served(id)
    await this.serialize(desktop, async () => {
      this.served(id)
      if (!desktop.paused) return
      try {
        await this.options.backend.unpause(desktop.facts.id)
      } catch (error) {
        if (error instanceof CannotPause) throw new NotImplemented(error.message)
        throw new DesktopUnavailable(`the engine could not resume desktop ${id}: ${(error as Error).message}`)
      }
      desktop.paused = false
      desktop.status = 'starting'
      const timeoutMs = this.options.resumeTimeoutMs ?? RESUME_TIMEOUT_MS
      const deadline = this.now() + timeoutMs
      while (this.live.get(desktop.facts.id) === desktop && !this.closed) {
        if (desktop.url && await this.options.probe(desktop.url).catch(() => false)) {
          desktop.status = 'ready'
          this.log('resumed a desktop', { id })
          return
        }
        if (this.now() >= deadline) {
          const reason = `its server did not answer within ${timeoutMs / 1000} s of being resumed`
          await this.died(desktop.facts.id, reason)
          throw new DesktopUnavailable(`desktop ${id} was resumed but ${reason}; it was ended (GET /desktops/${id} says so)`)
        }
        await delay(100)
      }
      throw new DesktopUnavailable(`desktop ${id} ended while it was resumed (GET /desktops/${id} says why)`)
    })
    return this.view(desktop)
  }

  /** Runs one pause or resume of a desktop after the one before it, whatever that one's outcome. */
  private serialize (desktop: Desktop, change: () => Promise<void>): Promise<void> {
    const run = (desktop.transition ?? Promise.resolve()).then(change)
    const settled = run.then(() => {}, () => {})
    desktop.transition = settled
    void settled.then(() => { if (desktop.transition === settled) delete desktop.transition })
    return run
  }

  get (id: string): DesktopView {
    const desktop = this.find(id)
    if (desktop) return this.view(desktop)
    const ended = this.ended.get(id)
    if (ended) return this.endedView(ended)
    throw new DesktopNotFound(`no desktop ${id} in this fleet (GET /desktops lists them)`)
  }

  list (): DesktopView[] {
    return [...this.live.values()].filter((d) => d.claim && !d.incoming).map((d) => this.view(d))
  }

  /**
   * Ends a desktop a client holds; afterwards the id is unknown, or, when `reason` is given,
   * remembered as terminated for that reason (as the Scrapybara API's stop shows it).
   */
  async remove (id: string, reason?: string): Promise<void> {
    const desktop = this.find(id)
    if (desktop?.claim) {
      this.live.delete(desktop.facts.id)
      if (reason) this.remember(desktop.facts, desktop.claim, reason)
      await this.options.backend.remove(desktop.facts.id)
      this.refill()
      return
    }
    if (this.ended.delete(id)) return
    throw new DesktopNotFound(`no desktop ${id} in this fleet (GET /desktops lists them)`)
  }

  /** Where the fleet sends a desktop's routes, and the token it adds; `resumeRoute` is what a paused desktop's 409 tells the client to call. */
  target (id: string, resumeRoute = `POST /desktops/${id}/resume`): { url: string, token: string } {
    const desktop = this.served(id)
    if (desktop.paused) throw new DesktopPaused(`desktop ${id} is paused: nothing reaches it until it is resumed (${resumeRoute})`)
    if (desktop.status !== 'ready' || !desktop.url) throw new DesktopUnavailable(`desktop ${id} is starting; retry shortly (GET /desktops/${id} says when it is running)`)
    return { url: desktop.url, token: desktop.facts.token }
  }

  health () {
    const pool = [...this.live.values()].filter((d) => !d.claim)
    const ready = pool.filter((d) => d.status === 'ready').length
    return {
      ready: ready >= this.options.warm,
      warm: { ready, starting: pool.length - ready, wanted: this.options.warm },
      desktops: this.live.size - pool.length,
      max: this.options.max,
    }
  }

  /**
   * Stops watching. With `end`, every desktop (pool included) is removed first and the promise
   * rejects if any could not be: the caller exits non-zero rather than claim a clean end.
   */
  async close (end: boolean): Promise<void> {
    this.closed = true
    clearInterval(this.sweeper)
    this.unwatch?.()
    await this.refilling
    if (!end) return
    const ids = [...this.live.keys()]
    this.live.clear()
    const results = await Promise.allSettled(ids.map((id) => this.options.backend.remove(id)))
    const failed = results.filter((r) => r.status === 'rejected')
    if (failed.length) throw new Error(`${failed.length} of ${ids.length} desktops could not be removed: ${failed.map((r) => String((r as PromiseRejectedResult).reason)).join('; ')}`)
  }

  private view (desktop: Desktop): DesktopView {
    const claim = desktop.claim!
    return {
      ...this.common(desktop.facts, claim),
      status: desktop.paused ? 'paused' : desktop.status === 'ready' ? 'running' : 'starting',
      ...(desktop.url && { url: desktop.url }),
      ...(desktop.osworldUrl && { osworld_url: desktop.osworldUrl }),
      token: desktop.facts.token,
    }
  }

  private endedView ({ facts, claim, reason }: Ended): DesktopView {
    return { ...this.common(facts, claim), status: 'terminated', reason }
  }

  private common (facts: DesktopFacts, claim: ClaimFacts) {
    return { id: publicId({ facts, claim }), screen: screenText(facts.screen), created_at: iso(facts.createdAt), expires_at: iso(claim.expiresAt), labels: claim.labels, desktop: facts.desktop, autostart: facts.autostart, browser: facts.browser }
  }
}
