/**
 * The executor owns the desktop's input: it plans actions, runs them one request at a time
 * (SerialQueue), answers in the seed's response shape, and guarantees that nothing stays
 * held — on failure, on abort, after the idle timeout and on close.
 */
import type { Logger } from 'pino'
import type { Limits, UnifiedAction } from '../actions/index.ts'
import type { ActionResponse } from '../actions/response.ts'
import type { Accessibility } from '../accessibility/service.ts'
import type { Driver } from '../driver.ts'
import type { Rect, Size } from '../geometry.ts'
import { DesktopUnavailable, DriverFailure } from '../errors.ts'
import { Scaler } from '../scaling.ts'
import { encodePng } from '../screenshot.ts'
import { HeldInputs, trackedDriver, type HeldSnapshot } from './held-inputs.ts'
import { planBatch, WINDOW_ACTIONS, type Plan, type PlanContext } from './plan.ts'
import { runPlan } from './run.ts'
import { SerialQueue } from './serial-queue.ts'
import { throwIfAborted } from './sleep.ts'
import { toWindowInfo } from './windows.ts'

export interface ExecutorOptions {
  driver: Driver
  log: Logger
  /** Inputs held on purpose are released after this long without any action. */
  holdTimeoutMs: number
  /** launch_app's allow-list: name → argv. Default: empty. */
  apps?: Readonly<Record<string, readonly string[]>>
  /** How long launch_app waits for the application's window (default 10 s). */
  launchTimeoutMs?: number
  /** The desktop's accessibility tree (get_accessibility_tree, element_action; the environment of launched applications). */
  accessibility?: Accessibility
}

export const DEFAULT_LAUNCH_TIMEOUT_MS = 10_000

export interface RunOptions {
  /** The client's coordinate space; default the real screen. */
  client?: Size
  /** Words for that space in error messages, when it is not the declared display (a model's grid). */
  clientName?: string
  /** The size screenshots are returned at, when it differs from the coordinate space. */
  screenshotSize?: Size
  /** Attach a screenshot after the last action. */
  screenshot?: boolean
  signal?: AbortSignal
  /** The bounds every action is checked against while planning (default DEFAULT_LIMITS). */
  limits?: Limits
  /** A refusal names the action at fault (`actions[i]: …`, failed_index): the request was a batch. */
  indexed?: boolean
}

export interface BatchOutcome {
  results: ActionResponse[]
  /** Index of the failed action, or null when all ran. */
  failedIndex: number | null
  error?: Error
}

export class Executor {
  readonly #driver: Driver
  readonly #log: Logger
  readonly #held = new HeldInputs()
  readonly #queue = new SerialQueue()
  readonly #holdTimeoutMs: number
  readonly #apps: Readonly<Record<string, readonly string[]>>
  readonly #launchTimeoutMs: number
  readonly #accessibility: Accessibility | undefined
  #tracked: Driver
  #screen?: Size
  #idleTimer?: NodeJS.Timeout

  constructor (options: ExecutorOptions) {
    this.#driver = options.driver
    this.#log = options.log
    this.#holdTimeoutMs = options.holdTimeoutMs
    this.#apps = options.apps ?? {}
    this.#launchTimeoutMs = options.launchTimeoutMs ?? DEFAULT_LAUNCH_TIMEOUT_MS
    this.#accessibility = options.accessibility
    this.#tracked = trackedDriver(this.#driver, this.#held)
  }

  get driverName (): string { return this.#driver.name }

  ready (): boolean { return this.#driver.ready() }

  held (): HeldSnapshot { return this.#held.snapshot() }

  /** Requests waiting for or holding the desktop. */
  get pending (): number { return this.#queue.pending }

  async screenSize (): Promise<Size> {
    this.#assertReady()
    this.#screen ??= await this.#driver.screenSize()
    return this.#screen
  }

  /** Plans every action first (any 4xx is thrown before input is sent), then runs them as one unit. */
  async run (actions: UnifiedAction[], options: RunOptions = {}): Promise<BatchOutcome> {
    const { plans, scaler } = await this.#plan(actions, options)
    return this.#queue.run(() => this.#runPlans(plans, scaler, options))
  }

  /** Plans without running: throws the 4xx that `run` would, and sends no input. */
  async plan (actions: UnifiedAction[], options: RunOptions = {}): Promise<void> {
    await this.#plan(actions, options)
  }

  async #plan (actions: UnifiedAction[], options: RunOptions): Promise<{ plans: Plan[], scaler: Scaler }> {
    const scaler = new Scaler(await this.screenSize(), options.client, options.clientName)
    const context = await this.#planContext(actions)
    const plans = planBatch(actions, scaler, context, {
      ...(options.limits && { limits: options.limits }),
      indexed: options.indexed === true,
    })
    return { plans, scaler }
  }

  /** Whether window actions can run is asked of the desktop only when a batch has one. */
  async #planContext (actions: UnifiedAction[]): Promise<PlanContext> {
    const accessibility = this.#accessibility
    if (!actions.some((action) => WINDOW_ACTIONS.has(action.action))) return { apps: this.#apps, accessibility }
    const windows = this.#driver.windows
    const windowsUnavailable = windows ? await windows.unavailable() : `the ${this.#driver.name} driver has no window control`
    return { apps: this.#apps, windowsUnavailable, accessibility }
  }

  /** The accessibility bus's addresses for a launched application; it starts without them when the bus cannot start. */
  async #launchEnv (): Promise<Record<string, string> | undefined> {
    const accessibility = this.#accessibility
    if (!accessibility || accessibility.unavailable() !== undefined) return undefined
    try {
      return await accessibility.environment()
    } catch (error) {
      this.#log.warn({ err: error }, 'launching without the accessibility bus: it could not start')
      return undefined
    }
  }

  /** Releases every held key and button (serialised with the actions). */
  releaseAll (): Promise<void> {
    return this.#queue.run(() => this.#releaseHeld('requested'))
  }

  /** Forgets held inputs and the screen size: the desktop behind the driver was replaced. */
  desktopReplaced (): void {
    this.#held.clear()
    this.#screen = undefined
    clearTimeout(this.#idleTimer)
    // Element ids name objects of applications that died with the old desktop.
    this.#accessibility?.forget()
  }

  async close (): Promise<void> {
    clearTimeout(this.#idleTimer)
    if (this.#driver.ready()) await this.releaseAll().catch((error) => this.#log.warn({ err: error }, 'release on close failed'))
  }

  async #runPlans (plans: Plan[], scaler: Scaler, options: RunOptions): Promise<BatchOutcome> {
    clearTimeout(this.#idleTimer)
    const results: ActionResponse[] = []
    const describe = (point: { x: number, y: number }) => `(${scaler.toClient(point).join(', ')})`
    for (const [index, plan] of plans.entries()) {
      const started = performance.now()
      try {
        throwIfAborted(options.signal)
        this.#assertReady()
        if (plan.kind === 'type_text') this.#log.debug({ action: plan.kind, text: plan.text }, 'typing')
        const outcome = await runPlan(plan, {
          driver: this.#tracked,
          describe,
          windowInfo: (window) => toWindowInfo(window, scaler),
          launchTimeoutMs: this.#launchTimeoutMs,
          real: scaler.real,
          client: scaler.client,
          accessibility: this.#accessibility,
          launchEnv: () => this.#launchEnv(),
          ...(options.signal && { signal: options.signal }),
        })
        const last = index === plans.length - 1
        const attach = outcome.wantsScreenshot || plan.screenshot || (last && options.screenshot === true)
        const region = plan.kind === 'take_screenshot' ? plan.region : undefined
        const base64Image = attach ? await this.#screenshot(region ? region.size : options.screenshotSize ?? scaler.client, region?.rect) : null
        const cursor = scaler.toClient(await this.#driver.cursorPosition())
        const output = plan.kind === 'get_cursor_position' ? `cursor at (${cursor.join(', ')})` : outcome.output
        results.push({
          output,
          error: null,
          base64_image: base64Image,
          cursor_position: cursor,
          ...(outcome.windows && { windows: outcome.windows }),
          ...(outcome.window && { window: outcome.window }),
          ...(outcome.accessibility && { accessibility: outcome.accessibility }),
          ...(outcome.text !== undefined && { text: outcome.text }),
          ...(outcome.truncated !== undefined && { truncated: outcome.truncated }),
          ...(outcome.element && { element: outcome.element }),
        })
        this.#log.info({ action: plan.kind, ms: round(performance.now() - started), outcome: 'ok' }, 'action')
      } catch (caught) {
        const error = asHttpError(caught)
        this.#log.info({ action: plan.kind, ms: round(performance.now() - started), outcome: 'failed', code: (error as { code?: string }).code }, 'action')
        await this.#releaseHeld(`${plan.kind} failed`)
        return { results, failedIndex: index, error }
      }
    }
    this.#armIdleTimer()
    return { results, failedIndex: null }
  }

  async #screenshot (size: Size, rect?: Rect): Promise<string> {
    const raw = await this.#driver.screenshot(rect)
    const png = await encodePng(raw, size)
    return png.toString('base64')
  }

  async #releaseHeld (reason: string): Promise<void> {
    if (this.#held.empty) return
    const held = this.#held.snapshot()
    if (!this.#driver.ready()) {
      // The X server is gone, and with it every pressed key: nothing left to release.
      this.#held.clear()
      return
    }
    try {
      await this.#held.releaseAll(this.#driver)
      this.#log.info({ released: held, reason }, 'released held input')
    } catch (error) {
      this.#log.error({ err: error, held, reason }, 'could not release held input')
    }
  }

  #armIdleTimer (): void {
    if (this.#held.empty) return
    this.#idleTimer = setTimeout(() => {
      void this.#queue.run(() => this.#releaseHeld(`idle for ${this.#holdTimeoutMs} ms`))
    }, this.#holdTimeoutMs)
    this.#idleTimer.unref()
  }

  #assertReady (): void {
    if (!this.#driver.ready()) throw new DesktopUnavailable('the desktop is not ready (starting or restarting); retry shortly')
  }
}

/** Errors with a status pass through; anything else from below is a driver failure with its cause. */
function asHttpError (error: unknown): Error {
  if (error instanceof Error && typeof (error as { statusCode?: unknown }).statusCode === 'number') return error
  const message = error instanceof Error ? error.message : String(error)
  return new DriverFailure(`the driver failed: ${message}`, { cause: error })
}

const round = (ms: number) => Math.round(ms * 100) / 100
