/**
 * A recording driver with an in-memory screen: the unit tests of everything above the driver
 * run against it, and `--driver fake` lets anyone try the API without a display. It is never
 * evidence that a desktop works; the end-to-end tests drive a real X server for that.
 */
import { basename } from 'node:path'
import type { Driver, LaunchedApp, MouseButton, Point, RawImage, Rect, SettleOptions, Settled, Size, WindowControl, WindowState } from '../../src/driver/driver.ts'
import type { KeyInfo } from '../../src/keys/index.ts'

export type FakeCall =
  | { call: 'moveMouse', x: number, y: number }
  | { call: 'buttonDown' | 'buttonUp', button: MouseButton }
  | { call: 'wheel', dx: number, dy: number }
  | { call: 'keyDown' | 'keyUp', key: string }
  | { call: 'typeText', text: string }
  | { call: 'screenshot', region?: Rect }
  | { call: 'activateWindow', id: number }
  | { call: 'setWindowGeometry', id: number, geometry: Partial<Rect> }
  | { call: 'launch', argv: string[], env?: Record<string, string>, cwd?: string }
  | { call: 'maximizeWindow', id: number }
  | { call: 'closeWindow', id: number }

/** A window of the in-memory desktop (`focused` is derived from the active one). */
export type FakeWindow = Omit<WindowState, 'focused'>

/** What a launched fake application does: open a window (after a delay), or exit. */
export interface FakeLaunch {
  /** The window it opens; default: titled by its argv, class from the command, pid its own. */
  window?: Partial<FakeWindow>
  /** Opens no window at all (launch_app then times out), or exits with this code first. */
  noWindow?: boolean
  exitCode?: number
  delayMs?: number
}

export interface FakeDriverOptions {
  screen?: Size
  /** Called before every recorded primitive; throw from it to inject a failure. */
  beforeCall?: (call: FakeCall) => void | Promise<void>
  /** The open windows, bottom of the stacking order first; false: no window control at all. */
  windows?: FakeWindow[] | false
  /** The active window's id (default: the top one). */
  activeWindow?: number
  /** What a launched program does; default: opens a window at once. */
  onLaunch?: (argv: readonly string[]) => FakeLaunch
}

export class FakeDriver implements Driver {
  readonly name = 'fake'
  readonly calls: FakeCall[] = []
  /** The quiet window and cap of every settled screenshot, in order. */
  readonly settles: Array<{ quietMs: number, maxMs: number }> = []
  readonly screen: Size
  /** The in-memory screen, RGBA; tests may paint on it. */
  readonly pixels: Buffer
  #cursor: Point = { x: 0, y: 0 }
  #ready = false
  #beforeCall?: FakeDriverOptions['beforeCall']
  /** The in-memory window manager; undefined when built with `windows: false`. */
  readonly windows: FakeWindows | undefined

  constructor (options: FakeDriverOptions = {}) {
    this.screen = options.screen ?? { width: 1280, height: 800 }
    this.#beforeCall = options.beforeCall
    this.pixels = Buffer.alloc(this.screen.width * this.screen.height * 4, 0xff)
    this.windows = options.windows === false ? undefined : new FakeWindows(options, (call) => this.#record(call))
  }

  async start (): Promise<void> { this.#ready = true }
  async close (): Promise<void> {
    this.#ready = false
    this.windows?.stop()
  }
  ready (): boolean { return this.#ready }
  /** Simulates the desktop going away (or coming back). */
  setReady (ready: boolean): void { this.#ready = ready }
  setBeforeCall (hook: FakeDriverOptions['beforeCall']): void { this.#beforeCall = hook }

  async screenSize (): Promise<Size> { return { ...this.screen } }
  async cursorPosition (): Promise<Point> { return { ...this.#cursor } }

  async moveMouse (point: Point): Promise<void> {
    await this.#record({ call: 'moveMouse', x: point.x, y: point.y })
    this.#cursor = { ...point }
  }

  async buttonDown (button: MouseButton): Promise<void> { await this.#record({ call: 'buttonDown', button }) }
  async buttonUp (button: MouseButton): Promise<void> { await this.#record({ call: 'buttonUp', button }) }
  async wheel (dx: number, dy: number): Promise<void> { await this.#record({ call: 'wheel', dx, dy }) }
  async keyDown (key: KeyInfo): Promise<void> { await this.#record({ call: 'keyDown', key: key.name }) }
  async keyUp (key: KeyInfo): Promise<void> { await this.#record({ call: 'keyUp', key: key.name }) }
  async typeText (text: string): Promise<void> { await this.#record({ call: 'typeText', text }) }

  async screenshot (region?: Rect): Promise<RawImage> {
    await this.#record(region ? { call: 'screenshot', region } : { call: 'screenshot' })
    const { x, y, width, height } = region ?? { x: 0, y: 0, ...this.screen }
    const data = Buffer.allocUnsafe(width * height * 4)
    for (let row = 0; row < height; row++) {
      const from = ((y + row) * this.screen.width + x) * 4
      this.pixels.copy(data, row * width * 4, from, from + width * 4)
    }
    return { width, height, order: 'rgba', data }
  }

  /**
   * The in-memory screen changes only when a test paints it, never by itself: it is settled
   * at once. Each wait is kept in `settles` (not `calls`: it sends no input).
   */
  async settle ({ quietMs, maxMs }: SettleOptions): Promise<Settled> {
    this.settles.push({ quietMs, maxMs })
    return { waitedMs: 0, changes: 0, quiet: true, via: 'memory' }
  }

  /** Paints a filled rectangle (RGB) on the in-memory screen. */
  fill (rect: Rect, [r, g, b]: [number, number, number]): void {
    for (let row = rect.y; row < rect.y + rect.height; row++) {
      for (let col = rect.x; col < rect.x + rect.width; col++) {
        const i = (row * this.screen.width + col) * 4
        this.pixels[i] = r
        this.pixels[i + 1] = g
        this.pixels[i + 2] = b
      }
    }
  }

  async #record (call: FakeCall): Promise<void> {
    await this.#beforeCall?.(call)
    this.calls.push(call)
  }
}

/**
 * An in-memory window manager: a stacking order, an active window, programs that open a
 * window when launched. Enough to test selection, scaling and errors above the driver.
 */
export class FakeWindows implements WindowControl {
  /** Bottom of the stacking order first. */
  readonly stack: FakeWindow[]
  active: number | undefined
  /** Set to make `unavailable()` answer it (a desktop without a window manager). */
  unavailableReason: string | undefined
  /** The launched programs by pid; `exit` is set once they "exit". */
  readonly launched = new Map<number, { argv: string[], exit?: { code: number | null, signal: string | null } }>()
  #nextPid = 4000
  #nextId = 0x800001
  readonly #record: (call: FakeCall) => Promise<void>
  readonly #screen: Size
  readonly #onLaunch: NonNullable<FakeDriverOptions['onLaunch']>
  readonly #timers = new Set<NodeJS.Timeout>()

  constructor (options: FakeDriverOptions, record: (call: FakeCall) => Promise<void>) {
    this.stack = (options.windows || []).map((window) => ({ ...window, rect: { ...window.rect } }))
    this.active = options.activeWindow ?? this.stack.at(-1)?.id
    this.#record = record
    this.#screen = options.screen ?? { width: 1280, height: 800 }
    this.#onLaunch = options.onLaunch ?? (() => ({}))
  }

  async unavailable (): Promise<string | undefined> { return this.unavailableReason }

  async list (): Promise<WindowState[]> {
    return [...this.stack].reverse().map((window) => ({ ...window, rect: { ...window.rect }, focused: window.id === this.active }))
  }

  async activate (id: number): Promise<void> {
    await this.#record({ call: 'activateWindow', id })
    const index = this.#index(id)
    this.stack.push(...this.stack.splice(index, 1))
    this.active = id
  }

  async setGeometry (id: number, geometry: Partial<Rect>): Promise<void> {
    await this.#record({ call: 'setWindowGeometry', id, geometry: { ...geometry } })
    const window = this.stack[this.#index(id)]!
    window.rect = { ...window.rect, ...geometry }
  }

  async maximize (id: number): Promise<void> {
    await this.#record({ call: 'maximizeWindow', id })
    const window = this.stack[this.#index(id)]!
    window.rect = { x: 0, y: 0, width: this.#screen.width, height: this.#screen.height }
  }

  async closeWindow (id: number): Promise<void> {
    await this.#record({ call: 'closeWindow', id })
    this.close(id)
  }

  async launch (argv: readonly string[], env?: Readonly<Record<string, string>>, cwd?: string): Promise<LaunchedApp> {
    await this.#record({ call: 'launch', argv: [...argv], ...(env && { env: { ...env } }), ...(cwd !== undefined && { cwd }) })
    const pid = this.#nextPid++
    const program: { argv: string[], exit?: { code: number | null, signal: string | null } } = { argv: [...argv] }
    this.launched.set(pid, program)
    const behaviour = this.#onLaunch(argv)
    const open = () => {
      if (behaviour.exitCode !== undefined) program.exit = { code: behaviour.exitCode, signal: null }
      if (behaviour.noWindow || (behaviour.exitCode !== undefined && behaviour.exitCode !== 0)) return
      const command = basename(argv[0]!)
      this.stack.push({
        id: this.#nextId++,
        title: argv.join(' '),
        instance: command,
        class: command.charAt(0).toUpperCase() + command.slice(1),
        pid,
        rect: { x: 100, y: 100, width: 640, height: 480 },
        ...behaviour.window,
      })
    }
    if (behaviour.delayMs) {
      const timer = setTimeout(() => { this.#timers.delete(timer); open() }, behaviour.delayMs)
      this.#timers.add(timer)
    } else {
      open()
    }
    return { pid, exit: () => program.exit }
  }

  /** Closes a window, as its application would. */
  close (id: number): void {
    this.stack.splice(this.#index(id), 1)
    if (this.active === id) this.active = this.stack.at(-1)?.id
  }

  /** Forgets pending launches (the driver closed). */
  stop (): void {
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers.clear()
  }

  #index (id: number): number {
    const index = this.stack.findIndex((window) => window.id === id)
    if (index < 0) throw new Error(`BadWindow: no window 0x${id.toString(16)}`)
    return index
  }
}
