/**
 * The executor owns the desktop's input: it plans actions, runs them one request at a time
 * (SerialQueue), answers in the seed's response shape, and guarantees that nothing stays
 * held — on failure, on abort, after the idle timeout and on close.
 */
import type { DeferredImages } from '../screen/deferred-images.ts'
import type { Logger } from 'pino'
import type { Limits, UnifiedAction } from '../actions/index.ts'
import type { ActionResponse } from '../actions/response.ts'
import type { Accessibility } from '../accessibility/service.ts'
import type { Driver } from '../driver/driver.ts'
import type { Size } from '../screen/geometry.ts'
import { DesktopUnavailable, DriverFailure, UnsupportedAction } from '../errors/errors.ts'
import { Scaler } from '../screen/scaling.ts'
import type { ImageEncoding } from '../screen/screenshot.ts'
import { DEFAULT_SETTLE } from '../screen/settle.ts'
import { CALL_MS, SLOT_MS, slotMs, withDeadlines } from './deadlines.ts'
import { HeldInputs, trackedDriver, type HeldSnapshot } from './held-inputs.ts'
import { keysAfterClicks } from './keys-after-clicks.ts'
import { Handover, pipelines } from './pipelining.ts'
import { planBatch, type LaunchRules, type Plan } from './plan.ts'
import { planContext } from './plan-context.ts'
import { runPlan, type RunContext } from './run.ts'
import { LOOKS_ONLY, screenshot, settle } from './screenshots.ts'
import { SerialQueue } from './serial-queue.ts'
import { throwIfAborted } from './sleep.ts'
import { toWindowInfo } from './windows.ts'
import type { ClipboardSource } from '../clipboard/source.ts'
import type { Tools } from './tool-plan.ts'
import type { ControlLease } from '../control/lease.ts'
import type { HumanAnswer } from '../control/schema.ts'

export interface ExecutorOptions {
  driver: Driver
  log: Logger
  /** Inputs held on purpose are released after this long without any action. */
  holdTimeoutMs: number
  /** launch_app's allow-list: name → argv. Default: empty. */
  apps?: Readonly<Record<string, readonly string[]>>
  /** How long launch_app waits for the application's window (default 10 s). */
  launchTimeoutMs?: number
  /** launch_app's targets and maximising (the full desktop); default: path targets refused without a home, windows as they open. */
  launchRules?: LaunchRules
  /** The desktop's accessibility tree (get_accessibility_tree, element_action; the environment of launched applications). */
  accessibility?: Accessibility
  /** The deadline of a driver call and the fixed part of a request's slot (defaults CALL_MS, SLOT_MS). */
  deadlines?: { callMs?: number, slotMs?: number }
  /** A settled screenshot's quiet window and cap when a request names none (default DEFAULT_SETTLE). */
  settle?: { quietMs: number, maxMs: number }
  /** The desktop's clipboard (get_clipboard, set_clipboard); without it they are refused. */
  clipboard?: ClipboardSource
  /** The shell (--shell) and the text editor (--files); without them their actions are refused. */
  tools?: Tools
  /** The control lease: while a person holds the desktop, acting requests answer 423; request_human waits on it. */
  control?: ControlLease
}

/** A wish to see the screen settled; what it leaves out comes from the executor's defaults. */
export interface SettleRequest {
  quietMs?: number
  maxMs?: number
}



export const DEFAULT_LAUNCH_TIMEOUT_MS = 10_000

/** Shutdown releases what is held, but does not wait on a stuck desktop for longer than this. */
const CLOSE_MS = 3000

export interface RunOptions {
  /** The client's coordinate space; default the real screen. */
  client?: Size
  /** Words for that space in error messages, when it is not the declared display (a model's grid). */
  clientName?: string
  /** The size screenshots are returned at, when it differs from the coordinate space. */
  screenshotSize?: Size
  /** Attach a screenshot after the last action. */
  screenshot?: boolean
  /** How screenshots are encoded (default PNG). */
  image?: ImageEncoding
  /** Screenshots taken after an action that may change the screen wait until it settles. */
  settle?: SettleRequest
  signal?: AbortSignal
  /** The bounds every action is checked against while planning (default DEFAULT_LIMITS). */
  limits?: Limits
  /** A refusal names the action at fault (`actions[i]: …`, failed_index): the request was a batch. */
  indexed?: boolean
  /**
   * Where screenshots go as bytes, the answer carrying a token for each (an HTTP answer, whose
   * body is written from the bytes: src/http/image-bodies.ts). Without it they are base64 text.
   */
  images?: DeferredImages
  /** The client's scope for bash sessions (an MCP session's id): its session names are its own. */
  shellScope?: string
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
  readonly #launchRules: LaunchRules | undefined
  readonly #launchTimeoutMs: number
  readonly #accessibility: Accessibility | undefined
  readonly #clipboard: ClipboardSource | undefined
  readonly #tools: Tools | undefined
  readonly #control: ControlLease | undefined
  #tracked: Driver
  /** The driver with a deadline on every call. */
  #timed: Driver
  readonly #callMs: number
  readonly #slotBaseMs: number
  #screen?: Size
  #idleTimer?: NodeJS.Timeout
  readonly #settleDefaults: { quietMs: number, maxMs: number }
  readonly #handover = new Handover()

  constructor (options: ExecutorOptions) {
    this.#driver = options.driver
    this.#log = options.log
    this.#holdTimeoutMs = options.holdTimeoutMs
    this.#apps = options.apps ?? {}
    this.#launchRules = options.launchRules
    this.#launchTimeoutMs = options.launchTimeoutMs ?? DEFAULT_LAUNCH_TIMEOUT_MS
    this.#accessibility = options.accessibility
    this.#clipboard = options.clipboard
    this.#tools = options.tools
    this.#control = options.control
    this.#callMs = options.deadlines?.callMs ?? CALL_MS
    this.#slotBaseMs = options.deadlines?.slotMs ?? SLOT_MS
    this.#settleDefaults = options.settle ?? DEFAULT_SETTLE
    this.#timed = withDeadlines(this.#handover.driver(this.#driver), this.#callMs)
    this.#tracked = trackedDriver(keysAfterClicks(this.#timed), this.#held)
  }

  get driverName (): string { return this.#driver.name }

  ready (): boolean { return this.#driver.ready() }

  /** Why the desktop asked for is not up though the driver is ready (Driver.desktopDown), else undefined. */
  desktopDown (): string | undefined { return this.#driver.desktopDown?.() }

  held (): HeldSnapshot { return this.#held.snapshot() }

  /** Requests waiting for or holding the desktop. */
  get pending (): number { return this.#queue.pending }

  /** How long the oldest request waiting for or holding the desktop has waited (ms). */
  oldestWaitMs (): number { return this.#queue.oldestWaitMs() }

  async screenSize (): Promise<Size> {
    this.#assertReady()
    this.#screen ??= await this.#timed.screenSize()
    return this.#screen
  }

  /** Plans every action first (any 4xx is thrown before input is sent), then runs them as one unit. */
  async run (actions: UnifiedAction[], options: RunOptions = {}): Promise<BatchOutcome> {
    const { plans, scaler } = await this.#plan(actions, options)
    const last = plans[plans.length - 1]
    if (last?.kind !== 'request_human') return this.#queued(plans, scaler, options)
    // request_human (planned last) waits for a person outside the queue: reads, and the person's
    // own input, go on meanwhile. What comes before it runs first, as a request of its own.
    const control = this.#control
    if (!control) throw new UnsupportedAction('this server has no control lease to wait on: request_human needs the HTTP or MCP server')
    const before = plans.length > 1 ? await this.#queued(plans.slice(0, -1), scaler, { ...options, screenshot: false }) : { results: [], failedIndex: null }
    if (before.error) return before
    const human = await control.waitForHuman(last.message, last.timeoutS, options.signal)
    const after = await this.#queued([last], scaler, options, human)
    return {
      results: [...before.results, ...after.results],
      failedIndex: after.failedIndex === null ? null : plans.length - 1,
      ...(after.error && { error: after.error }),
    }
  }

  /** Plans run in the desktop's queue; refused with the 423 when they act and a person holds the desktop. */
  #queued (plans: Plan[], scaler: Scaler, options: RunOptions, human?: HumanAnswer): Promise<BatchOutcome> {
    const acting = this.#control !== undefined && plans.some((plan) => !READS.has(plan.kind))
    if (acting) this.#control!.assertAgentMayAct()
    const deadlineMs = slotMs(plans, { baseMs: this.#slotBaseMs, settleMs: options.settle ? this.#settleFor(options.settle).maxMs : 0, launchTimeoutMs: this.#launchTimeoutMs })
    const pipelined = pipelines(this.#driver, plans, options)
    // The client's going away, or the slot's deadline, stops the batch at its next step.
    return this.#queue.run((signal, release) => {
      // Checked again when the slot starts: a takeover may have come while it queued.
      if (acting) this.#control!.assertAgentMayAct()
      return this.#runPlans(plans, scaler, { ...options, signal }, pipelined ? release : undefined, human)
    }, {
      ...(options.signal && { signal: options.signal }),
      deadlineMs,
      overrun: () => new DesktopUnavailable(`the desktop did not finish the request within ${deadlineMs} ms; it is being reset, retry shortly`),
      pipelined,
    })
  }

  /**
   * Closes a window as its close button would, in the desktop's queue like any action. Not a
   * unified action: OSWorld's /setup/close_window is its one caller.
   */
  closeWindow (id: number): Promise<void> {
    this.#assertReady()
    // It acts on the desktop: not while a person holds it (checked again when its slot starts).
    this.#control?.assertAgentMayAct()
    const windows = this.#driver.windows
    if (!windows) return Promise.reject(new UnsupportedAction(`the ${this.#driver.name} driver has no window control`))
    return this.#queue.run(() => { this.#control?.assertAgentMayAct(); return windows.closeWindow(id) }, {
      deadlineMs: this.#slotBaseMs,
      overrun: () => new DesktopUnavailable(`closing the window did not finish within ${this.#slotBaseMs} ms`),
    })
  }

  /** Plans without running: throws the 4xx that `run` would, and sends no input. */
  async plan (actions: UnifiedAction[], options: RunOptions = {}): Promise<void> {
    await this.#plan(actions, options)
  }

  async #plan (actions: UnifiedAction[], options: RunOptions): Promise<{ plans: Plan[], scaler: Scaler }> {
    // Known and ready: no await, which every action would pay for.
    const screen = this.#screen !== undefined && this.#driver.ready() ? this.#screen : await this.screenSize()
    const scaler = new Scaler(screen, options.client, options.clientName)
    const tools = options.shellScope !== undefined && this.#tools ? { ...this.#tools, scope: options.shellScope } : this.#tools
    const context = await planContext(actions, this.#driver, this.#apps, this.#accessibility, this.#launchRules, this.#clipboard, tools)
    const plans = planBatch(actions, scaler, context, {
      ...(options.limits && { limits: options.limits }),
      indexed: options.indexed === true,
    })
    return { plans, scaler }
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
    return this.#queue.run(() => this.#releaseHeld('requested'), {
      deadlineMs: this.#slotBaseMs,
      overrun: () => new DesktopUnavailable(`releasing held input did not finish within ${this.#slotBaseMs} ms`),
    })
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
    if (!this.#driver.ready()) return
    // Behind a stuck queue the release would wait for every request before it: shutdown
    // does not. What stays held goes with the desktop, which shutdown stops next.
    let timer: NodeJS.Timeout | undefined
    const gaveUp = new Promise<void>((resolve) => { timer = setTimeout(resolve, CLOSE_MS) })
    await Promise.race([this.releaseAll().catch((error) => this.#log.warn({ err: error }, 'release on close failed')), gaveUp.then(() => {
      this.#log.warn({ pending: this.#queue.pending }, `the desktop did not release held input within ${CLOSE_MS} ms of closing`)
    })])
    clearTimeout(timer)
  }

  async #runPlans (plans: Plan[], scaler: Scaler, options: RunOptions, release?: () => void, human?: HumanAnswer): Promise<BatchOutcome> {
    try {
      clearTimeout(this.#idleTimer)
      const results: ActionResponse[] = []
      const describe = (point: { x: number, y: number }) => {
        const [x, y] = scaler.toClient(point)
        return `(${x}, ${y})`
      }
      const context: RunContext = {
        driver: this.#tracked,
        describe,
        windowInfo: (window) => toWindowInfo(window, scaler),
        launchTimeoutMs: this.#launchTimeoutMs,
        real: scaler.real,
        client: scaler.client,
        accessibility: this.#accessibility,
        launchEnv: () => this.#launchEnv(),
        clipboard: this.#clipboard,
        tools: this.#tools,
        human,
        ...(options.signal && { signal: options.signal }),
      }
      // A pipelined request hands all its plans over at once: the driver runs them in order, and
      // their answers are read in order below. They are moves, clicks, drags and scrolls, which
      // fail only with the desktop (and then all of them), so none runs that would not have.
      // (Not ready, or the client gone: the loop's own checks answer it, plan by plan.)
      const handedOver = release && this.#driver.ready() && !options.signal?.aborted ? this.#handover.handAllOver(plans, context, release) : undefined
      // Whether an action of this batch may have changed the screen since the last screenshot.
      let changed = false
      for (const [index, plan] of plans.entries()) {
        const started = performance.now()
        try {
          throwIfAborted(options.signal)
          this.#assertReady()
          if (plan.kind === 'type_text') this.#log.debug({ action: plan.kind, text: plan.text }, 'typing')
          const outcome = await (handedOver?.[index] ?? runPlan(plan, context))
          // How a command ended, never what it printed nor the command (it may carry a secret).
          if (outcome.command_result) {
            const { exit_code: exitCode, signal, stdout_bytes: stdoutBytes, stderr_bytes: stderrBytes, timed_out: timedOut, truncated } = outcome.command_result
            this.#log.info({ action: plan.kind, exitCode, signal, stdoutBytes, stderrBytes, timedOut, truncated, ms: Math.round(performance.now() - started) }, 'command ended')
          }
          const last = index === plans.length - 1
          const attach = outcome.wantsScreenshot || plan.screenshot || (last && options.screenshot === true)
          const region = plan.kind === 'take_screenshot' ? plan.region : undefined
          if (!LOOKS_ONLY.has(plan.kind)) changed = true
          if (attach && changed && options.settle) {
            await settle(this.#timed, { ...this.#settleFor(options.settle), ...(options.signal && { signal: options.signal }) }, this.#log)
          }
          if (attach) changed = false
          const base64Image = attach ? await screenshot(this.#timed, region ? region.size : options.screenshotSize ?? scaler.client, region?.rect, options.image, options.images) : null
          // An input plan's answer carries the pointer: no second round trip to read it.
          const cursor = scaler.toClient(outcome.pointer ?? await this.#timed.cursorPosition())
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
            ...(outcome.clipboard && { clipboard: outcome.clipboard }),
            ...(outcome.command_result && { command_result: outcome.command_result }),
            ...(outcome.human && { human: outcome.human }),
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
    } finally {
      // Never handed over (it failed first): the queue starts the next request when this one ends.
      if (release) this.#handover.forget(release)
    }
  }

  #settleFor (request: SettleRequest): { quietMs: number, maxMs: number } {
    return { quietMs: request.quietMs ?? this.#settleDefaults.quietMs, maxMs: request.maxMs ?? this.#settleDefaults.maxMs }
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
      await this.#held.releaseAll(this.#timed)
      this.#log.info({ released: held, reason }, 'released held input')
    } catch (error) {
      this.#log.error({ err: error, held, reason }, 'could not release held input')
    }
  }

  #armIdleTimer (): void {
    if (this.#held.empty) return
    this.#idleTimer = setTimeout(() => {
      void this.#queue.run(() => this.#releaseHeld(`idle for ${this.#holdTimeoutMs} ms`), { deadlineMs: this.#slotBaseMs }).catch(() => {})
    }, this.#holdTimeoutMs)
    this.#idleTimer.unref()
  }

  #assertReady (): void {
    if (!this.#driver.ready()) throw new DesktopUnavailable('the desktop is not ready (starting or restarting); retry shortly')
  }
}


/**
 * What an agent may still do while a person holds the desktop: look, wait, and ask for them.
 * Everything else (input, windows, launching, the clipboard's write, the shell, the editor) is
 * refused with the 423 before it runs.
 */
export const READS = new Set<Plan['kind']>(['take_screenshot', 'get_cursor_position', 'list_windows', 'get_accessibility_tree', 'get_clipboard', 'wait', 'request_human'])

/** Errors with a status pass through; anything else from below is a driver failure with its cause. */
function asHttpError (error: unknown): Error {
  if (error instanceof Error && typeof (error as { statusCode?: unknown }).statusCode === 'number') return error
  const message = error instanceof Error ? error.message : String(error)
  return new DriverFailure(`the driver failed: ${message}`, { cause: error })
}

const round = (ms: number) => Math.round(ms * 100) / 100
