/**
 * The `xdotool` driver: one xdotool process per pointer primitive, all delays at 0 — the way
 * most computer-use servers drive X, kept as the portable fallback and the benchmark's
 * baseline. Where xdotool is not exact it is not used:
 * - text: `xdotool type` loses characters (feasibility §4); TextTyper (drivers/x11) types
 *   exactly, by XTest on the live keymap;
 * - keys: XTest on the keycode that carries the keysym on its first level (faster, and
 *   xdotool reads the key name 'Help' as a request for its usage text); other keysyms go
 *   through `xdotool keydown/keyup`, which adds Shift or binds a spare keycode;
 * - screenshots: GetImage (through MIT-SHM where X offers it) and XDamage for settling, on
 *   the display reader's pure-JS connection, as the nut driver has them; screenshot-desktop
 *   (ImageMagick's `import`, as the reference servers take them) only when the root window's
 *   pixels are not the 32-bit layout the reader reads; the screen size: GetGeometry on a
 *   pure-JS X connection.
 * Nothing native runs in this process: when X dies, the xdotool processes fail and the X
 * connection ends; calls then reject with DesktopUnavailable (503), ready() turns false and
 * onExit listeners hear why, so a supervisor can bring the desktop back.
 */
import { setTimeout as delay } from 'node:timers/promises'
import screenshotDesktop from 'screenshot-desktop'
import sharp from 'sharp'
import type { MouseButton, Point, RawImage, Rect, SettleOptions, Settled, Size, XDriver, XDriverOptions } from '../../src/driver/driver.ts'
import { DesktopUnavailable, DriverFailure, InvalidConfig, UnsupportedAction } from '../../src/errors/errors.ts'
import type { KeyInfo } from '../../src/keys/index.ts'
import { settleByPixels } from '../../src/screen/settle.ts'
import { WHEEL_NOTCH_GAP_MS, X_BUTTONS, wheelNotches } from '../x11/buttons.ts'
import { DisplayReader } from '../x11/display-reader.ts'
import { probeDisplay } from '../x11/probe.ts'
import { NoSpareKeycode, TextTyper } from '../x11/text-typer.ts'
import { keysymCode } from '../x11/keysym-codes.ts'
import { XConnection } from './x-connection.ts'
import { xdotoolRunner, type XdotoolRunner } from './run-xdotool.ts'
import { StartOnce } from '../start-once.ts'

export interface XdotoolDriverOptions extends XDriverOptions {
  /**
   * How long one call may take before the X server counts as hung (default 10 s; typeText
   * adds 10 ms a character). The desktop is then reported lost, as if X had died.
   */
  callTimeoutMs?: number
}

/** Errors of the catalogue pass through as they are; anything else is explained. */
const isCatalogued = (error: unknown): error is Error =>
  error instanceof Error && ['ERR_UNSUPPORTED_ACTION', 'ERR_DESKTOP_UNAVAILABLE', 'ERR_DRIVER_FAILURE', 'ERR_INVALID_CONFIG', 'ERR_ACTION_ABORTED'].includes((error as { code?: string }).code ?? '')

class Hung extends Error {}

/** What a notch (an xdotool process) may add to a scroll's deadline on a busy machine. */
const NOTCH_MS = 50

export class XdotoolDriver implements XDriver {
  static readonly driverName = 'xdotool'
  readonly name = XdotoolDriver.driverName
  readonly display: string
  #options: XdotoolDriverOptions
  #xdotool: XdotoolRunner
  #x?: XConnection
  #reader?: DisplayReader
  #typer?: TextTyper
  #ready = false
  #closed = false
  #lost = false
  readonly #starting: StartOnce
  #prepared?: Promise<void>
  #exitListeners: Array<(reason: string) => void> = []
  /** Rejecters of the calls in progress: a lost desktop answers them at once. */
  #inFlight = new Set<(error: Error) => void>()

  constructor (options: XdotoolDriverOptions) {
    this.display = options.display
    this.#starting = new StartOnce({
      display: this.display,
      refused: () => this.#closed ? this.#closedError() : this.#lost ? new DesktopUnavailable(`the xdotool driver on ${this.display} lost its X server; start a new one`) : undefined,
      ready: () => this.#ready,
      prepare: () => this.prepare(),
      connect: () => this.#connect(),
    })
    this.#options = options
    this.#xdotool = xdotoolRunner(options.display)
  }

  ready (): boolean { return this.#ready }

  /** Calls `listener` with a reason when the desktop is lost after start() without close(). */
  onExit (listener: (reason: string) => void): void {
    this.#exitListeners.push(listener)
  }

  /**
   * Checks that xdotool runs here, without touching the display (a supervisor prepares its
   * next driver in advance). start() calls it when nobody did.
   */
  prepare (): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closedError())
    this.#prepared ??= this.#xdotool(['version'], 5000).then(() => {}, (error: Error) => {
      this.#prepared = undefined
      throw new InvalidConfig(`the xdotool driver needs xdotool (scripts/setup.sh installs it): ${error.message}`)
    })
    return this.#prepared
  }

  /**
   * Probes the display (a dead one is a clear InvalidConfig), opens the X connections and has
   * xdotool touch the display once. Calling it while started does nothing.
   */
  start (): Promise<void> {
    return this.#starting.start()
  }

  async #connect (): Promise<void> {
    const unavailable = (error: Error) => new DesktopUnavailable(`the xdotool driver could not start on ${this.display}: ${error.message}`)
    try {
      this.#x = await XConnection.open(this.display)
      this.#typer = await TextTyper.open(this.display)
      this.#reader = await DisplayReader.open(this.display).catch((error: Error) => {
        this.#options.log?.warn({ display: this.display, error: error.message }, 'screenshots go through screenshot-desktop')
        return undefined
      })
      await this.#xdotool(['getmouselocation'], this.#options.callTimeoutMs ?? 10_000)
    } catch (error) {
      void this.#typer?.close().catch(() => {})
      this.#disconnect()
      throw isCatalogued(error) ? error : unavailable(error as Error)
    }
    if (this.#closed) {
      void this.#typer.close().catch(() => {})
      this.#disconnect()
      throw this.#closedError()
    }
    this.#x.onLost((error) => this.#lose(`the X server on ${this.display} went away (${error.message})`))
    this.#typer.onLost((error) => this.#lose(`the X server on ${this.display} went away (the typing connection: ${error.message})`))
    this.#reader?.onLost((error) => this.#lose(`the X server on ${this.display} went away (the display reader: ${error.message})`))
    this.#ready = true
  }

  /** Closes the X connections and ends any xdotool still running, by PID. Safe to call twice. */
  async close (): Promise<void> {
    this.#closed = true
    this.#ready = false
    await this.#starting.running?.catch(() => {})
    const typer = this.#typer
    this.#disconnect()
    // Unbinding spare keycodes waits for X; a hung X must not hold close() up.
    if (typer) await Promise.race([typer.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2000).unref())])
    await this.#xdotool.killAll()
  }

  screenSize (): Promise<Size> {
    return this.#do('read the screen size', () => this.#x!.screenSize())
  }

  moveMouse (point: Point): Promise<void> {
    return this.#do('move the pointer', () => this.#run('mousemove', String(Math.round(point.x)), String(Math.round(point.y))))
  }

  cursorPosition (): Promise<Point> {
    return this.#do('read the pointer position', async () => {
      const { stdout } = await this.#xdotool(['getmouselocation', '--shell'], this.#timeoutMs())
      const x = /^X=(-?\d+)$/m.exec(stdout)
      const y = /^Y=(-?\d+)$/m.exec(stdout)
      if (!x || !y) throw new Error(`xdotool getmouselocation answered '${stdout.trim()}'`)
      return { x: Number(x[1]), y: Number(y[1]) }
    })
  }

  buttonDown (button: MouseButton): Promise<void> {
    return this.#do(`press the ${button} button`, () => this.#run('mousedown', String(X_BUTTONS[button])))
  }

  buttonUp (button: MouseButton): Promise<void> {
    return this.#do(`release the ${button} button`, () => this.#run('mouseup', String(X_BUTTONS[button])))
  }

  wheel (dx: number, dy: number): Promise<void> {
    const notches = wheelNotches(dx, dy)
    return this.#do('turn the wheel', async () => {
      // One xdotool process a notch: `--repeat` with a client-side --delay still gave two
      // notches one timestamp now and then on a busy machine, where X read both requests in one
      // go. A process that exits has synced with X (XCloseDisplay).
      for (const [i, button] of notches.entries()) {
        if (i > 0) await delay(WHEEL_NOTCH_GAP_MS)
        await this.#run('click', String(button))
      }
    }, NOTCH_MS * notches.length)
  }

  keyDown (key: KeyInfo): Promise<void> {
    return this.#do(`press ${key.keysym}`, () => this.#key(key.keysym, 'down'))
  }

  keyUp (key: KeyInfo): Promise<void> {
    return this.#do(`release ${key.keysym}`, () => this.#key(key.keysym, 'up'))
  }

  typeText (text: string): Promise<void> {
    return this.#do('type text', () => this.#typer!.type(text), 10 * text.length)
  }

  screenshot (region?: Rect): Promise<RawImage> {
    return this.#do('take a screenshot', async () => {
      const size = await this.#x!.screenSize()
      if (region) {
        const { x, y, width, height } = region
        const inside = [x, y, width, height].every(Number.isInteger) && x >= 0 && y >= 0 && width > 0 && height > 0 &&
          x + width <= size.width && y + height <= size.height
        if (!inside) throw new UnsupportedAction(`region x=${x} y=${y} ${width}x${height} is not a whole-pixel rectangle inside the ${size.width}x${size.height} screen`)
      }
      if (this.#reader) return this.#reader.grab(region)
      // screenshot-desktop runs xrandr and import on the DISPLAY of this process' environment.
      process.env.DISPLAY = this.display
      // Its capture leaves a failing xrandr unhandled: the promise never settles and Node ends
      // the process on the stray rejection. Listing the displays first (the same xrandr, with
      // its error handled) makes an X server that is gone an error here; what remains is X
      // dying in the few milliseconds between the two xrandr runs.
      await screenshotDesktop.listDisplays()
      let image = sharp(await screenshotDesktop({ format: 'png' }))
      if (region) image = image.extract({ left: region.x, top: region.y, width: region.width, height: region.height })
      const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true })
      return { width: info.width, height: info.height, order: 'rgba', data }
    })
  }

  /** From X's damage reports through the display reader; else by comparing grabs. */
  settle (options: SettleOptions): Promise<Settled> {
    return this.#do('wait for the screen to settle', () => this.#reader?.settle(options) ?? settleByPixels(this, options), options.maxMs)
  }

  async #key (keysym: string, state: 'down' | 'up'): Promise<void> {
    // By keycode over XTest, as the nut driver does: the keycode that carries the keysym on its
    // first level, or a spare keycode the typer binds to it (xdotool would unbind it right after
    // the press, before a busy application has read it, which then reads NoSymbol).
    const code = keysymCode(keysym)
    try {
      if (code !== undefined && await this.#typer!.toggleKey(code, state)) return
    } catch (error) {
      if (error instanceof NoSpareKeycode) throw new UnsupportedAction(`no keycode carries ${keysym} and the keymap has no empty keycode left to bind it to, so the xdotool driver cannot press it`)
      throw error
    }
    if (/^help$/i.test(keysym)) {
      throw new UnsupportedAction(`X has no key named '${keysym}' here, and xdotool reads the key name '${keysym}' as a request for its usage text, so the xdotool driver cannot press it`)
    }
    // A keysym on a second level ('exclam'): xdotool adds Shift around the press, as a keyboard
    // would. Names keysym-codes.ts does not know also go to xdotool, which knows Xlib's; for a
    // name X does not know either it only warns and exits 0.
    const { stderr } = await this.#xdotool([state === 'down' ? 'keydown' : 'keyup', '--delay', '0', '--', keysym], this.#timeoutMs())
    if (/No such key name/i.test(stderr)) throw new UnsupportedAction(`X has no key named '${keysym}'`)
  }

  async #run (...args: string[]): Promise<void> {
    await this.#xdotool(args, this.#timeoutMs())
  }

  #timeoutMs (extraMs = 0): number {
    return (this.#options.callTimeoutMs ?? 10_000) + extraMs
  }

  /**
   * Runs one primitive: 503 when not ready; a call that overruns its time means X hangs (the
   * desktop is lost); a failure while X is gone is a 503, any other a 500 naming the cause.
   */
  async #do<T> (what: string, action: () => Promise<T>, extraMs = 0): Promise<T> {
    if (!this.#ready) {
      throw this.#closed ? this.#closedError() : new DesktopUnavailable(`the desktop on ${this.display} is not ready; retry shortly`)
    }
    const timeoutMs = this.#timeoutMs(extraMs)
    let timer: NodeJS.Timeout | undefined
    const hung = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Hung(`the X server on ${this.display} did not answer within ${timeoutMs} ms (${what})`)), timeoutMs)
    })
    let abandon: ((error: Error) => void) | undefined
    const lost = new Promise<never>((_resolve, reject) => { abandon = reject })
    this.#inFlight.add(abandon!)
    try {
      return await Promise.race([action(), hung, lost])
    } catch (error) {
      throw await this.#explain(what, error)
    } finally {
      clearTimeout(timer)
      this.#inFlight.delete(abandon!)
    }
  }

  async #explain (what: string, error: unknown): Promise<Error> {
    if (isCatalogued(error)) return error
    const message = error instanceof Error ? error.message : String(error)
    if (error instanceof Hung || (error as { timedOut?: boolean }).timedOut) {
      this.#options.log?.warn({ display: this.display, what }, 'X server hung; dropping the desktop')
      this.#lose(error instanceof Hung ? message : `the X server on ${this.display} did not answer (${message})`)
      return new DesktopUnavailable(message)
    }
    // The xdotool process may fail before our own connection has heard of the death.
    const alive = !this.#lost && !this.#x?.lost && await probeDisplay(this.display, 1000).then(() => true, () => false)
    if (!alive) {
      this.#lose(`the X server on ${this.display} went away (${message})`)
      return new DesktopUnavailable(`the X server on ${this.display} went away while the xdotool driver tried to ${what}; retry shortly`)
    }
    return new DriverFailure(`the xdotool driver could not ${what}: ${message}`)
  }

  /** The desktop is gone (or hangs): no more input; the supervisor hears why, once. */
  #lose (reason: string): void {
    if (this.#lost) return
    this.#lost = true
    const wasReady = this.#ready
    this.#ready = false
    const typer = this.#typer
    this.#disconnect()
    void typer?.close().catch(() => {})
    void this.#xdotool.killAll()
    for (const abandon of [...this.#inFlight]) abandon(new DesktopUnavailable(reason))
    if (!wasReady || this.#closed) return
    this.#options.log?.warn({ display: this.display, reason }, 'xdotool driver lost its desktop')
    for (const listener of this.#exitListeners) listener(reason)
  }

  #disconnect (): void {
    this.#x?.close()
    this.#x = undefined
    this.#reader?.close()
    this.#reader = undefined
    this.#typer = undefined
  }

  #closedError (): Error {
    return new DesktopUnavailable(`the xdotool driver on ${this.display} was closed`)
  }
}
