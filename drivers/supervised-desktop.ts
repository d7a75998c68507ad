/**
 * Keeps a desktop alive. When the X server dies (and with it the driver), requests answer
 * 503 while this restarts what we own — our Xvfb on the same display number, its window
 * manager, then a fresh driver — and input works again. With a DISPLAY we do not own, it
 * waits for that display to answer again and reconnects (and starts no window manager: the
 * user's desktop has its own).
 */
import { setTimeout as delay } from 'node:timers/promises'
import type { Driver, InputStep, MouseButton, Point, Rect, SettleOptions, WindowControl, XDriver, XDriverClass } from '../src/driver/driver.ts'
import { DesktopUnavailable } from '../src/errors/errors.ts'
import type { KeyInfo } from '../src/keys/index.ts'
import type { Log } from '../src/runtime/logger.ts'
import { settleByPixels } from '../src/screen/settle.ts'
import { NutDriver } from './nut/nut-driver.ts'
import { Ewmh } from './x11/ewmh.ts'
import { Launcher } from './x11/launcher.ts'
import { startWindowManager, WINDOW_MANAGER, type WindowManager } from './x11/window-manager.ts'
import { probeDisplay } from './x11/probe.ts'
import { startXvfb, type Xvfb } from './x11/xvfb.ts'
import { SESSION, SESSION_MARKER, sessionPids, startXfceSession, type XfceSession } from './x11/xfce-session.ts'
import { launchAndWait } from '../src/executor/windows.ts'
import { launchTarget } from '../src/executor/launch-target.ts'
import type { Autostart, BrowserKind, TargetKind } from '../src/runtime/desktop-apps.ts'

/** How long close() lets a restart in progress reach its next step. */
const CLOSE_RESTART_WAIT_MS = 1000

/** How long an autostarted application may take to open its window (Firefox's first start makes its profile). */
const AUTOSTART_TIMEOUT_MS = 60_000

/** A window manager that dies sooner than this after starting is not started again. */
const WM_MIN_LIFETIME_MS = 2000

export interface SupervisedDesktopOptions {
  /** The display to use; none starts our own Xvfb. */
  display?: string
  screen: string
  log: Log
  /** Which driver runs on it (default the nut driver). */
  driver?: XDriverClass
  /** The window manager started on our own Xvfb (default jwm). */
  windowManager?: string
  /** --desktop full: an XFCE session instead of the window manager, and what it opens at each start. */
  session?: FullSessionOptions
  /** The accessibility bus's environment, for the session and the applications started into it. */
  accessibilityEnv?: () => Promise<Record<string, string>>
  /** Awaited before each application starts, and the argv it starts with (--browser chromium: its DevTools browser runs first, and a launched one hands over to it). */
  beforeLaunch?: (argv: readonly string[]) => Promise<readonly string[]>
}

/** What the full desktop needs: its home, and the applications it opens whenever it (re)starts. */
export interface FullSessionOptions {
  home: string
  autostart: readonly Autostart[]
  apps: Readonly<Record<string, readonly string[]>>
  appTargets: Readonly<Record<string, TargetKind>>
  /** How long an autostarted application has to open its window before it is left as it is (default 60 s). */
  launchTimeoutMs?: number
  /** The session's default web browser (default firefox). */
  browser?: BrowserKind
}

export class SupervisedDesktop implements Driver {
  readonly name: string
  readonly #Driver: XDriverClass
  #options: SupervisedDesktopOptions
  #xvfb?: Xvfb
  #driver?: XDriver
  #display?: string
  #closing = false
  #restarting?: Promise<void>
  /**
   * The next driver, loading (a worker process starting) while the X server restarts: prepared
   * when the desktop is lost, not kept in advance — a resident spare worker was ~55 MB of every
   * container for a restart that is rare and waits for a new Xvfb anyway.
   */
  #spare?: XDriver
  /** How many times the desktop was brought back after dying. */
  restarts = 0
  /** Window management through EWMH, over a connection of its own. */
  #ewmh?: Ewmh
  #windowManager?: WindowManager
  /** The full desktop's session while it runs (it is also #windowManager). */
  #session?: XfceSession
  /** Why our window manager is not running, when it is not. */
  #windowManagerFailure?: string
  readonly #launcher: Launcher
  readonly #replaced: Array<() => void> = []
  readonly windows: WindowControl
  /** Whole input plans in one call, when the driver class takes them (nut: one worker message). */
  readonly input?: (steps: readonly InputStep[]) => Promise<Point>
  /** Whether the driver class keeps input in order: each call goes to the current driver as it is made. */
  readonly inputInOrder?: boolean

  constructor (options: SupervisedDesktopOptions) {
    this.#options = options
    this.#display = options.display
    this.#Driver = options.driver ?? NutDriver
    this.name = this.#Driver.driverName
    if (typeof this.#Driver.prototype.input === 'function') {
      // Not async: the call reaches the driver before this returns, which is what keeps order.
      this.input = (steps) => {
        try {
          return this.#current().input!(steps)
        } catch (error) {
          return Promise.reject(error)
        }
      }
      if (this.#Driver.inputInOrder === true) this.inputInOrder = true
    }
    this.#launcher = new Launcher(options.log)
    this.windows = {
      unavailable: () => this.#windowsUnavailable(),
      list: () => this.#windowCall((ewmh) => ewmh.list()),
      activate: (id) => this.#windowCall((ewmh) => ewmh.activate(id)),
      setGeometry: (id, geometry) => this.#windowCall((ewmh) => ewmh.moveResize(id, geometry)),
      maximize: (id) => this.#windowCall((ewmh) => ewmh.maximize(id)),
      closeWindow: (id) => this.#windowCall((ewmh) => ewmh.closeWindow(id)),
      launch: async (argv, env, cwd) => {
        this.#current()
        const command = await this.#options.beforeLaunch?.(argv) ?? argv
        return this.#launcher.launch(command, this.#display!, { ...env, ...this.#session?.env }, cwd)
      },
    }
  }

  get display (): string | undefined { return this.#display }

  /** What an application started into the full desktop's session needs in its environment; {} on the minimal desktop. */
  get sessionEnv (): Record<string, string> { return { ...this.#session?.env } }

  /** Our Xvfb's PID, while it runs. */
  get xvfbPid (): number | undefined { return this.#xvfb?.pid }

  /** The PIDs of the driver's own process and of its spare, for drivers that have one (nut). */
  get driverPid (): number | undefined { return (this.#driver as { pid?: number } | undefined)?.pid }
  get sparePid (): number | undefined { return (this.#spare as { pid?: number } | undefined)?.pid }

  /** The window manager's PID, while ours runs. */
  get windowManagerPid (): number | undefined { return this.#windowManager?.pid }

  /** PIDs of the applications launch_app started that still run. */
  get launchedPids (): number[] { return this.#launcher.pids }

  onReplaced (listener: () => void): void {
    this.#replaced.push(listener)
  }

  ready (): boolean { return !this.#restarting && this.#driver?.ready() === true }

  /**
   * Starts the desktop once; a second call waits for the same start. The server starts it
   * before it builds the app, so Xvfb, the window manager and the worker come up while this
   * process compiles the routes' schemas, and the app's onReady waits for that start.
   */
  start (): Promise<void> {
    this.#starting ??= this.#start()
    return this.#starting
  }

  #starting?: Promise<void>

  async #start (): Promise<void> {
    if (!this.#options.display) await this.#startXvfb()
    await this.#connect({ windowControl: true })
    this.#autostart()
  }

  /** The PIDs of every process of the full desktop's session (its marker in their environment). */
  get sessionPids (): number[] {
    const marker = this.#session?.env[SESSION_MARKER]
    return marker ? sessionPids(marker) : []
  }

  /**
   * Opens --autostart's applications on the session just started, each maximised once its
   * window is up; not awaited (the desktop is usable meanwhile), failures only logged.
   */
  #autostart (): void {
    const session = this.#options.session
    if (!session || !this.#session || this.#closing) return
    const log = this.#options.log
    const timeoutMs = session.launchTimeoutMs ?? AUTOSTART_TIMEOUT_MS
    for (const { app, target } of session.autostart) {
      void (async () => {
        const argv = session.apps[app]
        if (!argv) throw new Error(`no application '${app}'`)
        const launch = target === undefined ? { args: [] } : launchTarget(app, session.appTargets[app] ?? 'path', target, session.home)
        const env = await this.#options.accessibilityEnv?.().catch(() => undefined)
        const window = await launchAndWait(this.windows, app, [...argv, ...launch.args], timeoutMs, undefined, env, launch.cwd)
        await this.windows.maximize(window.id)
        log.info({ app, window: window.id }, 'autostarted')
      })().catch((error: unknown) => log.warn({ err: error, app }, 'an autostart application did not open'))
    }
  }

  async #startXvfb (from?: number): Promise<void> {
    const xvfb = await startXvfb({ screen: this.#options.screen, ...(from !== undefined && { from }), log: this.#options.log })
    if (this.#closing) {
      // close() ran meanwhile and did not see this one.
      await xvfb.stop()
      throw new DesktopUnavailable('the desktop is closing')
    }
    this.#xvfb = xvfb
    this.#display = xvfb.display
    this.#options.log.info({ display: xvfb.display, pid: xvfb.pid }, 'started Xvfb')
    // Notice the death at once, not at the next request.
    void xvfb.exited.then(() => { if (this.#xvfb === xvfb) this.#lost(`Xvfb ${xvfb.display} (pid ${xvfb.pid}) exited`) })
  }

  /**
   * Ends everything this desktop started — launched applications, the window manager, the
   * driver and its spare, our Xvfb — at once and by PID, each with its own deadline (SIGTERM,
   * then SIGKILL). A restart in progress is given a moment to notice, not waited for: it stops
   * what it starts once it sees the desktop closing. Safe to call twice.
   */
  close (): Promise<void> {
    this.#closed ??= this.#close()
    return this.#closed
  }

  #closed?: Promise<void>

  async #close (): Promise<void> {
    this.#closing = true
    const restarting = this.#restarting
    if (restarting) await Promise.race([restarting.catch(() => {}), delay(CLOSE_RESTART_WAIT_MS)])
    this.#ewmh?.close()
    await Promise.allSettled([
      this.#launcher.stop(),
      this.#windowManager?.stop(),
      this.#spare?.close(),
      this.#driver?.close(),
      this.#xvfb?.stop(),
    ])
  }

  /**
   * Window control of the display of the moment: an EWMH connection, and on our own Xvfb
   * our window manager. Neither failing stops the desktop: input works without them, and
   * the window actions say why they cannot.
   */
  async #openWindowControl (): Promise<void> {
    this.#ewmh?.close()
    this.#ewmh = undefined
    let ewmh: Ewmh
    try {
      ewmh = await Ewmh.open(this.#display!)
    } catch (error) {
      this.#windowManagerFailure = `could not connect to ${this.#display} for window control: ${(error as Error).message}`
      if (this.#xvfb) this.#options.log.error({ display: this.#display }, `${this.#managerRole} cannot start: ${this.#windowManagerFailure}; GET /health answers 503 and window actions are refused`)
      else this.#options.log.warn({ err: error, display: this.#display }, 'no window control')
      return
    }
    this.#ewmh = ewmh
    if (this.#xvfb) await this.#startWindowManager(ewmh, this.#xvfb)
  }

  /** The full desktop's session, or the window manager alone. */
  async #startManager (ewmh: Ewmh, xvfb: Xvfb): Promise<WindowManager> {
    const session = this.#options.session
    if (!session) {
      return startWindowManager({
        display: xvfb.display,
        log: this.#options.log,
        managed: () => ewmh.managed(),
        ...(this.#options.windowManager && { command: this.#options.windowManager }),
      })
    }
    const accessibility = await this.#options.accessibilityEnv?.().catch((error: unknown) => {
      this.#options.log.warn({ err: error }, 'the desktop session starts without the accessibility bus: it could not start')
      return undefined
    })
    const started = await startXfceSession({ display: xvfb.display, home: session.home, accessibility, log: this.#options.log, managed: () => ewmh.managed(), docked: () => ewmh.reserved(), ...(session.browser && { browser: session.browser }) })
    this.#session = started
    return started
  }

  get #managerName (): string { return this.#options.session ? SESSION : this.#options.windowManager ?? WINDOW_MANAGER }

  /**
   * Why the desktop asked for is not up (Driver.desktopDown): on our own Xvfb, the window
   * manager or the full desktop's session is what was asked for besides input, so while its
   * process is not alive GET /health is not ready and says this. Starting or restarting (not
   * ready()) is said by the readiness itself; on a DISPLAY of the user's we start no manager.
   */
  desktopDown (): string | undefined {
    if (!this.ready() || !this.#xvfb || this.#windowManager) return undefined
    return `${this.#managerRole} is not running on ${this.#display}: ${this.#windowManagerFailure ?? `${this.#managerName} is starting`}`
  }

  get #managerRole (): string { return this.#options.session ? 'the full desktop\'s session' : 'the window manager' }

  async #startWindowManager (ewmh: Ewmh, xvfb: Xvfb): Promise<void> {
    try {
      const started = performance.now()
      const manager = await this.#startManager(ewmh, xvfb)
      if (this.#closing) { await manager.stop(); return }
      this.#windowManager = manager
      this.#windowManagerFailure = undefined
      void manager.exited.then(async (exit) => {
        if (this.#closing || this.#windowManager !== manager) return
        this.#windowManager = undefined
        const exited = `${this.#managerName} exited (${exit.signal ?? `code ${exit.code}`})`
        this.#windowManagerFailure = exited
        // With X gone it went too; the restart brings both back.
        await delay(200)
        if (this.#closing || this.#restarting || this.#xvfb !== xvfb || !xvfb.alive() || this.#windowManager) return
        const lived = performance.now() - started
        if (lived >= WM_MIN_LIFETIME_MS && this.#ewmh === ewmh) {
          this.#windowManagerFailure = `${exited}; starting it again`
          this.#options.log.warn({ display: xvfb.display, ...exit }, `${exited}; starting it again`)
          await this.#startWindowManager(ewmh, xvfb)
          return
        }
        // One that dies as it starts would only die again: it stays down, and says why.
        this.#windowManagerFailure = `${exited} ${Math.round(lived)} ms after it started; not started again`
        this.#options.log.error({ display: xvfb.display, ...exit }, `${this.#managerRole} is not running on ${xvfb.display}: ${this.#windowManagerFailure}; GET /health answers 503 and window actions are refused`)
      })
    } catch (error) {
      this.#windowManagerFailure = (error as Error).message
      // One line that says what is down (GET /health answers 503 with the same reason).
      this.#options.log.error({ display: xvfb.display }, `${this.#managerRole} did not start on ${xvfb.display}: ${this.#windowManagerFailure}; GET /health answers 503 and window actions are refused`)
    }
  }

  async #windowsUnavailable (): Promise<string | undefined> {
    // Starting or restarting: the action's own readiness check answers 503.
    if (!this.ready()) return undefined
    if (!this.#ewmh || (this.#xvfb && this.#windowManagerFailure)) return `no window manager runs on ${this.#display}: ${this.#windowManagerFailure ?? 'not connected'}`
    const managed = await this.#ewmh.managed().catch(() => true)
    if (managed) return undefined
    return this.#xvfb
      ? `the window manager on ${this.#display} is not running`
      : `no EWMH window manager runs on ${this.#display} (the server starts one only on an Xvfb of its own)`
  }

  async #windowCall<T> (call: (ewmh: Ewmh) => Promise<T>): Promise<T> {
    this.#current()
    const ewmh = this.#ewmh
    if (!ewmh) throw new DesktopUnavailable(`window control of ${this.#display} is not connected; retry shortly`)
    try {
      return await call(ewmh)
    } catch (error) {
      if (ewmh.failed || !this.ready()) throw new DesktopUnavailable(`the desktop on ${this.#display} went away during a window action; retry shortly`)
      throw error
    }
  }

  /**
   * The driver of the moment: the spare when it is for this display, else a new one, started;
   * with `windowControl` the window manager starts meanwhile (a restart takes the longer of
   * the two, not both). A driver that does not become the driver of the moment is closed on
   * every path — a start that fails (X not back yet) must not leave its worker behind.
   */
  async #connect ({ windowControl }: { windowControl: boolean }): Promise<void> {
    const spare = this.#spare
    this.#spare = undefined
    const driver = spare?.display === this.#display ? spare! : this.#newDriver()
    if (spare && spare !== driver) await spare.close()
    driver.onExit((reason) => this.#lost(reason))
    try {
      const [started] = await Promise.allSettled([driver.start(), windowControl && this.#openWindowControl()])
      if (started.status === 'rejected') throw started.reason
      if (this.#closing) throw new DesktopUnavailable('the desktop is closing')
    } catch (error) {
      await driver.close()
      throw error
    }
    this.#driver = driver
  }

  /** Loads the next driver ahead of need. One whose worker dies before it is used loads another when started (NutDriver.prepare). */
  #prepareSpare (): void {
    if (this.#closing) return
    this.#spare = this.#newDriver()
    this.#spare.prepare().catch(() => {})
  }

  #newDriver (): XDriver {
    return new this.#Driver({ display: this.#display!, log: this.#options.log })
  }

  #lost (reason: string): void {
    if (this.#closing || this.#restarting) return
    this.#options.log.warn({ reason, display: this.#display }, 'desktop lost; restarting')
    // The next worker loads while the old one is closed and X comes back.
    if (!this.#spare) this.#prepareSpare()
    this.#restarting = this.#restart().finally(() => { this.#restarting = undefined })
  }

  async #restart (): Promise<void> {
    const started = performance.now()
    for (let attempt = 1; !this.#closing; attempt++) {
      try {
        await this.#driver?.close()
        this.#driver = undefined
        // Only the driver died (killed, or it crashed) and X still answers: a new driver,
        // and the user's windows stay where they are.
        if (this.#xvfb?.alive() && await probeDisplay(this.#display!, 1000).then(() => true, () => false)) {
          await this.#connect({ windowControl: false })
          this.restarts++
          for (const listener of this.#replaced) listener()
          this.#options.log.info({ display: this.#display, ms: Math.round(performance.now() - started), attempt }, 'driver restarted; the X server kept running')
          return
        }
        await this.#windowManager?.stop()
        this.#windowManager = undefined
        if (this.#xvfb) {
          const old = this.#xvfb
          this.#xvfb = undefined
          await old.stop()
          await this.#startXvfb(Number(this.#display!.slice(1)))
        }
        await this.#connect({ windowControl: true })
        this.restarts++
        for (const listener of this.#replaced) listener()
        this.#options.log.info({ display: this.#display, ms: Math.round(performance.now() - started), attempt }, 'desktop restarted')
        this.#autostart()
        return
      } catch (error) {
        this.#options.log.error({ err: error, attempt }, 'desktop restart failed; retrying')
        await delay(Math.min(2000, 100 * attempt))
      }
    }
  }

  #current (): XDriver {
    if (!this.ready()) throw new DesktopUnavailable(`the desktop${this.#display ? ` on ${this.#display}` : ''} is restarting; retry shortly`)
    return this.#driver!
  }

  // Every primitive goes to the driver of the moment; while restarting they answer 503.
  async screenSize () { return this.#current().screenSize() }
  async moveMouse (point: Point) { return this.#current().moveMouse(point) }
  async cursorPosition () { return this.#current().cursorPosition() }
  async buttonDown (button: MouseButton) { return this.#current().buttonDown(button) }
  async buttonUp (button: MouseButton) { return this.#current().buttonUp(button) }
  async wheel (dx: number, dy: number) { return this.#current().wheel(dx, dy) }
  async keyDown (key: KeyInfo) { return this.#current().keyDown(key) }
  async keyUp (key: KeyInfo) { return this.#current().keyUp(key) }
  async typeText (text: string) { return this.#current().typeText(text) }
  async screenshot (region?: Rect) { return this.#current().screenshot(region) }
  async settle (options: SettleOptions) {
    const driver = this.#current()
    return driver.settle ? driver.settle(options) : settleByPixels(driver, options)
  }
}
