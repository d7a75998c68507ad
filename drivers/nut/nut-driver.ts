/**
 * The `nut` driver as the server sees it: pointer and wheel input, pixels and the pointer's
 * position go over pure-JS X connections of this process (XTest, a display reader); keys and
 * typing go to nut-worker, a child process that binds what the keymap lacks and holds nut-js
 * when it needs it. A move is then one X request and one round trip, with no process in
 * between: on a host of desktops the CPU an action costs decides how many fit. When the X server
 * dies, the worker exits (its connections end; libnut, if loaded, takes it down with Xlib's
 * exit() or SIGSEGV); here that ends only the child: every pending and later call rejects with
 * DesktopUnavailable (503), ready() turns false, and onExit listeners hear why, so a
 * supervisor can bring the desktop back. nut-js is never loaded in the calling process.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { InputStep, MouseButton, Point, RawImage, Rect, SettleOptions, Settled, Size, XDriver, XDriverOptions } from '../../src/driver/driver.ts'
import { DesktopUnavailable, DriverFailure, UnsupportedAction } from '../../src/errors/errors.ts'
import type { KeyInfo } from '../../src/keys/index.ts'
import { settleByPixels } from '../../src/screen/settle.ts'
import { START_TIMEOUT_MS } from '../start-timeout.ts'
import { DisplayReader } from '../x11/display-reader.ts'
import { diesWithUs } from '../x11/orphan.ts'
import { toXSteps, XTestInput, type KeyFallback, type XInputStep } from '../x11/xtest-input.ts'
import { stopChild } from '../stop-child.ts'
import type { Calls, Command, Op, Reply } from './protocol.ts'
import { StartOnce } from '../start-once.ts'

export interface NutDriverOptions extends XDriverOptions {
  /** How long the worker may take to load, and then to reach the display (default START_TIMEOUT_MS each). */
  startTimeoutMs?: number
  /**
   * How long one call may take before the worker counts as hung — an X server that stopped
   * answering without dying — and is killed (default 10 s; typeText adds 10 ms a character).
   */
  callTimeoutMs?: number
}

interface Pending {
  resolve: (value: unknown) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
}

interface Waiter {
  resolve: () => void
  reject: (error: Error) => void
}

// Same extension as this module: .ts when run through tsx, .js in a compiled build.
const EXTENSION = import.meta.url.slice(import.meta.url.lastIndexOf('.'))
const WORKER = fileURLToPath(new URL(`./nut-worker${EXTENSION}`, import.meta.url))
const STOP_GRACE_MS = 2000
/**
 * How long a worker gets to exit by itself once X went away under the display reader (calls
 * are refused at once meanwhile). 500 ms was now and then too short on a loaded CI machine.
 */
const READER_LOST_GRACE_MS = 1500

/** This process' XTest connection is sent no key: keys go to the worker. */
const NO_KEYS: KeyFallback = {
  press: () => Promise.reject(new DriverFailure('keys are pressed by the nut worker')),
  reserved: () => new Set(),
}

/**
 * A worker allocates little per message: a small young generation and V8's memory-saving mode
 * keep it near Node's own ~45 MB instead of growing to ~75 MB under load; collecting on its
 * own thread spares the host's cores V8's helper threads, as for the server.
 */
const WORKER_V8_FLAGS = ['--max-semi-space-size=1', '--optimize-for-size', '--single-threaded-gc']

/**
 * The worker runs with this process' Node flags (tsx's loader among them), minus the
 * inspector's: a second process on the same inspector port fails, and --inspect-brk would
 * wait for a debugger forever. A server started through tsx's register() API (bin/) has no
 * loader flag to pass on, and Node 20 cannot load a .ts worker by itself: then tsx is added.
 * The worker's own memory flags are added unless this process sets them.
 */
function workerExecArgv (): string[] {
  const args = process.execArgv.filter((arg) => !/^--(inspect|debug)(-brk|-wait|-port)?(=|$)/.test(arg))
  if (EXTENSION === '.ts' && !args.some((arg) => /\btsx\b/.test(arg))) args.push(`--import=${import.meta.resolve('tsx')}`)
  for (const flag of WORKER_V8_FLAGS) if (!args.some((arg) => arg.startsWith(flag.split('=')[0]!))) args.push(flag)
  return args
}

export class NutDriver implements XDriver {
  static readonly driverName = 'nut'
  /** One IPC channel, and the worker runs each message whole before reading the next. */
  static readonly inputInOrder = true
  readonly name = NutDriver.driverName
  readonly inputInOrder = NutDriver.inputInOrder
  readonly display: string
  #options: NutDriverOptions
  #child?: ChildProcess
  #ready = false
  /** Between 'loaded' (or 'ready') and the worker's exit: an exit then is news for onExit listeners. */
  #watched = false
  /** Set when the worker had served and X went away: its exit is then X's going. */
  #served = false
  #closed = false
  #loading?: Promise<void>
  readonly #starting: StartOnce
  /** Whoever waits for the worker's next 'loaded' or 'ready'. */
  #waiter?: Waiter
  #nextId = 1
  #pending = new Map<number, Pending>()
  #exitListeners: Array<(reason: string) => void> = []
  /** Set when we kill the worker ourselves, so its exit is reported with our reason. */
  #killReason?: string
  #stderr = ''
  /** Pixels and the pointer read in this process; the worker reads them when this could not open. */
  #reader?: DisplayReader
  /** Pointer and wheel input sent from this process; the worker sends them when this could not open. */
  #pointerInput?: XTestInput
  /**
   * The last input call, settled or not: each starts once the one before has settled, so plans
   * reach X whole and in order although they go over two connections (this process' and the
   * worker's), and a plan's trailing pause is over before the next plan's first event.
   */
  #inputTail: Promise<unknown> = Promise.resolve()

  constructor (options: NutDriverOptions) {
    this.display = options.display
    this.#starting = new StartOnce({
      display: this.display,
      refused: () => this.#closed ? this.#closedError() : undefined,
      ready: () => this.#ready,
      prepare: () => this.prepare(),
      connect: () => this.#connect(),
    })
    this.#options = options
  }

  /** The worker's PID while it runs. */
  get pid (): number | undefined { return this.#child?.pid }

  ready (): boolean { return this.#ready }

  /**
   * Calls `listener` with a reason when the worker ends without close() once prepare() or
   * start() resolved — the X server died, the worker hung and was killed, or someone killed
   * it. A failed start() rejects instead.
   */
  onExit (listener: (reason: string) => void): void {
    this.#exitListeners.push(listener)
  }

  /**
   * Forks the worker and waits until it has loaded its modules, without touching the display:
   * that is most of start()'s time, so a supervisor can load the next driver while X restarts.
   * start() calls it when nobody did.
   */
  prepare (): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closedError())
    this.#loading ??= this.#load()
    return this.#loading
  }

  /**
   * Probes the display (a dead one is a clear InvalidConfig, never a segfault), then has the
   * worker connect and waits for it to report ready. Rejects with DesktopUnavailable if the
   * worker dies or does not get ready in time. Calling it while started does nothing.
   */
  start (): Promise<void> {
    return this.#starting.start()
  }

  async #connect (): Promise<void> {
    if (this.#closed) throw this.#closedError()
    const child = this.#child
    if (!child) throw new DesktopUnavailable(`the nut driver could not start on ${this.display}: its process is gone`)
    await this.#await('ready', () => child.send({ connect: true } satisfies Command))
    this.#closeConnections()
    const worker = this.#child
    const [reader, pointerInput] = await Promise.all([
      DisplayReader.open(this.display).catch((error: Error) => {
        this.#options.log?.warn({ display: this.display, error: error.message }, 'screenshots and cursor reads go through the nut worker')
        return undefined
      }),
      XTestInput.open(this.display).catch((error: Error) => {
        this.#options.log?.warn({ display: this.display, error: error.message }, 'pointer input goes through the nut worker')
        return undefined
      }),
    ])
    if (this.#child !== worker || this.#closed) {
      // The worker ended (or close() came) while these opened: they belong to no driver.
      reader?.close()
      pointerInput?.close()
      throw this.#closed ? this.#closedError() : new DesktopUnavailable(`the nut driver on ${this.display} ended while it connected`)
    }
    this.#reader = reader
    this.#pointerInput = pointerInput
    // One of this process' connections ending by itself means X went away or hangs: the
    // worker is of no use either, and ending it tells the supervisor now, not at the next
    // call's deadline. Calls are refused at once; the worker gets a moment to exit by itself
    // (libnut does as soon as it notices), which says how, and is killed if it does not.
    const lost = (error: Error) => {
      if (this.#child !== worker || !this.#ready) return
      this.#ready = false
      this.#served = true
      setTimeout(() => {
        if (this.#child === worker) this.#kill(`the X server on ${this.display} went away (${error.message})`, 'SIGKILL')
      }, READER_LOST_GRACE_MS).unref()
    }
    reader?.onLost(lost)
    pointerInput?.onLost(lost)
  }

  #closeConnections (): void {
    this.#reader?.close()
    this.#reader = undefined
    this.#pointerInput?.close()
    this.#pointerInput = undefined
  }

  async #load (): Promise<void> {
    this.#killReason = undefined
    this.#stderr = ''
    // Through setpriv when there is one: a worker blocked in libnut never hears the IPC
    // channel close, and must not outlive a server that was killed outright.
    const [command, args] = diesWithUs(process.execPath, workerExecArgv())
    const child = fork(WORKER, [], {
      execPath: command,
      execArgv: args,
      env: { ...process.env, DISPLAY: this.display },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    this.#child = child
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { this.#stderr = (this.#stderr + chunk).slice(-4000) })
    child.on('message', (reply: Reply) => this.#receive(reply))
    child.once('error', (error) => {
      // fork() itself failed, and 'exit' may never come.
      if (this.#child === child) this.#child = undefined
      this.#loading = undefined
      this.#waiter?.reject(new DesktopUnavailable(`the nut driver could not start on ${this.display}: ${error.message}`))
      this.#waiter = undefined
    })
    child.once('exit', (code, signal) => this.#exited(child, signal ? `signal ${signal}` : `code ${code}`))
    try {
      await this.#await('loaded')
      this.#watched = true
    } catch (error) {
      this.#loading = undefined
      throw error
    }
  }

  /** Waits for the worker's next 'loaded' or 'ready', killing it after the start timeout. */
  #await (what: 'loaded' | 'ready', send?: () => void): Promise<void> {
    const timeoutMs = this.#options.startTimeoutMs ?? START_TIMEOUT_MS
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.#kill(`the nut driver did not get ${what} within ${timeoutMs} ms on ${this.display}`, 'SIGKILL'), timeoutMs)
      this.#waiter = {
        resolve: () => { clearTimeout(timer); resolve() },
        reject: (error) => { clearTimeout(timer); reject(error) },
      }
      send?.()
    })
  }

  #receive (reply: Reply): void {
    if ('loaded' in reply || 'ready' in reply) {
      if ('ready' in reply) {
        this.#ready = true
        this.#watched = true
        for (const note of reply.notes) this.#options.log?.warn({ display: this.display }, note)
      }
      this.#waiter?.resolve()
      this.#waiter = undefined
      return
    }
    if (reply.ok) this.#settle(reply.id, reply.value)
    else if (reply.kind === 'unsupported') this.#settle(reply.id, undefined, new UnsupportedAction(reply.message))
    else if (reply.kind === 'unavailable') this.#settle(reply.id, undefined, new DesktopUnavailable(`the desktop on ${this.display} went away: ${reply.message}; retry shortly`))
    else this.#settle(reply.id, undefined, new DriverFailure(reply.message))
  }

  /** Ends a pending call (the worker's or this process'), unless its deadline or the worker's exit ended it first. */
  #settle (id: number, value: unknown, error?: Error): void {
    const pending = this.#pending.get(id)
    if (!pending) return
    clearTimeout(pending.timer)
    this.#pending.delete(id)
    if (error) pending.reject(error)
    else pending.resolve(value)
  }

  #exited (child: ChildProcess, how: string): void {
    if (this.#child === child) this.#child = undefined
    this.#closeConnections()
    const wasReady = this.#ready || this.#served
    this.#served = false
    // #kill() turns #ready off before the exit: whether it served is #watched's to say.
    const watched = this.#watched
    this.#ready = false
    this.#watched = false
    this.#loading = undefined
    const reason = this.#killReason ?? (wasReady
      ? `the X server on ${this.display} went away (driver process exited with ${how})${this.#stderrTail()}`
      : this.#starting.running
        ? `the nut driver could not start on ${this.display} (process exited with ${how})${this.#stderrTail()}`
        : `the nut driver's process for ${this.display} exited with ${how}${this.#stderrTail()}`)
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer)
      pending.reject(new DesktopUnavailable(reason))
    }
    this.#pending.clear()
    this.#waiter?.reject(new DesktopUnavailable(reason))
    this.#waiter = undefined
    // A start() in progress rejects with the reason instead.
    if (!watched || this.#closed || this.#starting.running) return
    this.#options.log?.warn({ display: this.display, exit: how, stderr: this.#stderr.trim() || undefined }, 'nut driver process exited')
    for (const listener of this.#exitListeners) listener(reason)
  }

  /** Ends the worker by PID (SIGTERM, then SIGKILL) and waits for it; a start() in progress rejects. Safe to call twice. */
  async close (): Promise<void> {
    this.#closed = true
    this.#closeConnections()
    const child = this.#child
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      const reason = this.#closedError().message
      // SIGTERM through #kill, so that the exit reads as closed rather than as a crash.
      await stopChild({ signal: (name) => name === 'SIGTERM' ? this.#kill(reason, name) : child.kill(name), exited }, STOP_GRACE_MS)
    }
    await this.#starting.running?.catch(() => {})
    await this.#loading?.catch(() => {})
  }

  screenSize (): Promise<Size> {
    return this.#reader && this.#ready ? Promise.resolve({ ...this.#reader.size }) : this.#call('screenSize')
  }
  async moveMouse (point: Point): Promise<void> { await this.input([{ kind: 'move', to: point }]) }
  cursorPosition (): Promise<Point> {
    const reader = this.#reader
    if (!reader || !this.#ready) return this.#call('cursorPosition')
    return reader.pointer().catch((error: Error) => {
      throw this.#ready && !reader.lost ? new DriverFailure(`could not read the pointer: ${error.message}`) : new DesktopUnavailable(`the desktop on ${this.display} is not ready; retry shortly`)
    })
  }
  async buttonDown (button: MouseButton): Promise<void> { await this.input([{ kind: 'button', button, down: true }]) }
  async buttonUp (button: MouseButton): Promise<void> { await this.input([{ kind: 'button', button, down: false }]) }
  async wheel (dx: number, dy: number): Promise<void> { await this.input([{ kind: 'wheel', dx: Math.round(dx), dy: Math.round(dy) }]) }
  keyDown (key: KeyInfo): Promise<void> { return this.#inOrder(() => this.#call('keyDown', key.keysym)) }
  keyUp (key: KeyInfo): Promise<void> { return this.#inOrder(() => this.#call('keyUp', key.keysym)) }
  typeText (text: string): Promise<void> { return this.#inOrder(() => this.#call('typeText', text)) }

  /**
   * A plan without keys goes out on this process' XTest connection; one with keys crosses to
   * the worker in one message. Either way X is waited for once, at the end.
   */
  input (steps: readonly InputStep[]): Promise<Point> {
    const xSteps = toXSteps(steps)
    return this.#inOrder(() => this.#pointerInput && this.#ready && xSteps.every((step) => step.kind !== 'key')
      ? this.#sendHere(this.#pointerInput, xSteps)
      : this.#call('input', xSteps))
  }

  #inOrder<T> (send: () => Promise<T>): Promise<T> {
    const sent = this.#inputTail.then(send)
    this.#inputTail = sent.catch(() => undefined)
    return sent
  }

  /** Input over this process' connection, under the same deadline as the worker's calls: X that stops answering ends the driver. */
  #sendHere (connection: XTestInput, steps: XInputStep[]): Promise<Point> {
    const id = this.#nextId++
    const timeoutMs = this.#timeoutFor('input', [steps])
    return new Promise<Point>((resolve, reject) => {
      const timer = setTimeout(() => this.#hung('input', timeoutMs), timeoutMs)
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer })
      connection.run(steps, NO_KEYS).then((point) => this.#settle(id, point), (error: Error) => {
        this.#settle(id, undefined, this.#ready && !connection.lost
          ? new DriverFailure(`could not send input: ${error.message}`)
          : new DesktopUnavailable(`the desktop on ${this.display} is not ready; retry shortly`))
      })
    })
  }

  async screenshot (region?: Rect): Promise<RawImage> {
    const reader = this.#reader
    if (reader && this.#ready) {
      if (region && !inside(region, reader.size)) {
        throw new UnsupportedAction(`region x=${region.x} y=${region.y} ${region.width}x${region.height} is not a whole-pixel rectangle inside the ${reader.size.width}x${reader.size.height} screen`)
      }
      try {
        return await reader.grab(region)
      } catch (error) {
        // X going away ends the worker too, which then says so; until then this is a failure.
        throw this.#ready && !reader.lost ? new DriverFailure(`could not read the screen: ${(error as Error).message}`) : new DesktopUnavailable(`the desktop on ${this.display} is not ready; retry shortly`)
      }
    }
    const image = await this.#call('screenshot', region)
    // The V8 serializer may hand a Uint8Array back; the contract says Buffer (no copy).
    const data = image.data as Uint8Array
    return Buffer.isBuffer(data) ? image : { ...image, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) }
  }

  /** From X's damage reports through the display reader; else by comparing grabs. */
  settle (options: SettleOptions): Promise<Settled> {
    const reader = this.#reader
    const waiting = reader && this.#ready ? reader.settle(options) : undefined
    if (!waiting) return settleByPixels(this, options)
    return waiting.catch((error: Error) => {
      // The client went away (ActionAborted): passed on as it is.
      if (typeof (error as { statusCode?: unknown }).statusCode === 'number') throw error
      throw this.#ready && !reader!.lost ? new DriverFailure(`could not watch the screen: ${error.message}`) : new DesktopUnavailable(`the desktop on ${this.display} is not ready; retry shortly`)
    })
  }

  #call<K extends Op> (op: K, ...args: Calls[K]['args']): Promise<Calls[K]['result']> {
    const child = this.#child
    if (!child || !this.#ready) {
      return Promise.reject(this.#closed ? this.#closedError() : new DesktopUnavailable(`the desktop on ${this.display} is not ready; retry shortly`))
    }
    const id = this.#nextId++
    const timeoutMs = this.#timeoutFor(op, args)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.#hung(op, timeoutMs), timeoutMs)
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer })
      child.send({ id, op, args } satisfies Command, (error) => {
        if (!error) return
        // The channel closed under us; the exit handler says why, unless it already ran.
        const pending = this.#pending.get(id)
        if (!pending) return
        clearTimeout(pending.timer)
        this.#pending.delete(id)
        reject(new DesktopUnavailable(`the nut driver on ${this.display} is gone (${error.message})`))
      })
    })
  }

  #timeoutFor<K extends Op> (op: K, args: Calls[K]['args']): number {
    return (this.#options.callTimeoutMs ?? 10_000) + (op === 'typeText' ? 10 * (args[0] as string).length : 0) +
      (op === 'input' ? (args[0] as XInputStep[]).reduce((ms, step) => ms + (step.kind === 'pause' ? step.ms : 0), 0) : 0)
  }

  /** A call outlived its deadline: X stopped answering without dying. Ending the worker rejects every pending call and tells the supervisor. */
  #hung (op: Op, timeoutMs: number): void {
    this.#options.log?.warn({ display: this.display, op, timeoutMs }, 'nut driver hung; killing it')
    this.#kill(`the nut driver on ${this.display} did not answer ${op} within ${timeoutMs} ms and was stopped`, 'SIGKILL')
  }

  /**
   * Kills the worker by PID, remembering why, so its exit is reported with that reason. New
   * calls are refused from now on; the exit itself still reaches onExit listeners, so a worker
   * killed for a hung call is replaced like one that died.
   */
  #kill (reason: string, signal: NodeJS.Signals): void {
    this.#ready = false
    this.#killReason ??= reason
    this.#child?.kill(signal)
  }

  #closedError (): Error {
    return new DesktopUnavailable(`the nut driver on ${this.display} was closed`)
  }

  #stderrTail (): string {
    const lines = this.#stderr.trim().split('\n').filter(Boolean)
    return lines.length ? `: ${lines.slice(-2).join(' / ')}` : ''
  }
}

const inside = ({ x, y, width, height }: Rect, size: Size) =>
  [x, y, width, height].every(Number.isInteger) && x >= 0 && y >= 0 && width > 0 && height > 0 &&
  x + width <= size.width && y + height <= size.height
