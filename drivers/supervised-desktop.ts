/**
 * Keeps a desktop alive. When the X server dies (and with it the driver), requests answer
 * 503 while this restarts what we own — our Xvfb on the same display number, then a fresh
 * driver — and input works again. With a DISPLAY we do not own, it waits for that display to
 * answer again and reconnects.
 */
import { setTimeout as delay } from 'node:timers/promises'
import type { Driver, MouseButton, Point, Rect } from '../src/driver.ts'
import { DesktopUnavailable } from '../src/errors.ts'
import type { KeyInfo } from '../src/keys/index.ts'
import { NutDriver } from './nut/nut-driver.ts'
import { XdotoolDriver } from './xdotool/xdotool-driver.ts'
import { startXvfb, type Xvfb } from './x11/xvfb.ts'

interface Log {
  info: (object: object, message: string) => void
  warn: (object: object, message: string) => void
  error: (object: object, message: string) => void
}

/** The X drivers a supervised desktop can run. */
export type XDriverName = 'nut' | 'xdotool'

/** What supervision needs of a driver beyond the contract. */
interface XDriver extends Driver {
  readonly display: string
  /** Loads what it can before touching the display, so a spare is quick to start. */
  prepare: () => Promise<void>
  /** Heard when the desktop is lost after start() (X died or hangs). */
  onExit: (listener: (reason: string) => void) => void
}

const X_DRIVERS: Record<XDriverName, new (options: { display: string, log: Log }) => XDriver> = {
  nut: NutDriver,
  xdotool: XdotoolDriver,
}

export interface SupervisedDesktopOptions {
  /** The display to use; none starts our own Xvfb. */
  display?: string
  screen: string
  log: Log
  /** Which driver runs on it (default 'nut'). */
  driver?: XDriverName
}

export class SupervisedDesktop implements Driver {
  readonly name: XDriverName
  #options: SupervisedDesktopOptions
  #xvfb?: Xvfb
  #driver?: XDriver
  #display?: string
  #closing = false
  #restarting?: Promise<void>
  /** A worker with nut-js already loaded, for the next restart (loading is most of its time). */
  #spare?: XDriver
  /** How many times the desktop was brought back after dying. */
  restarts = 0

  constructor (options: SupervisedDesktopOptions) {
    this.#options = options
    this.#display = options.display
    this.name = options.driver ?? 'nut'
  }

  get display (): string | undefined { return this.#display }

  ready (): boolean { return !this.#restarting && this.#driver?.ready() === true }

  async start (): Promise<void> {
    if (!this.#options.display) await this.#startXvfb()
    await this.#connect()
  }

  async #startXvfb (from?: number): Promise<void> {
    const xvfb = await startXvfb({ screen: this.#options.screen, ...(from !== undefined && { from }), log: this.#options.log })
    this.#xvfb = xvfb
    this.#display = xvfb.display
    this.#options.log.info({ display: xvfb.display, pid: xvfb.pid }, 'started Xvfb')
    // Notice the death at once, not at the next request.
    void xvfb.exited.then(() => { if (this.#xvfb === xvfb) this.#lost(`Xvfb ${xvfb.display} (pid ${xvfb.pid}) exited`) })
  }

  async close (): Promise<void> {
    this.#closing = true
    await this.#restarting?.catch(() => {})
    await this.#spare?.close()
    await this.#driver?.close()
    await this.#xvfb?.stop()
  }

  async #connect (): Promise<void> {
    const spare = this.#spare
    this.#spare = undefined
    const driver = spare?.display === this.#display ? spare! : this.#newDriver()
    if (spare && spare !== driver) await spare.close()
    driver.onExit((reason) => this.#lost(reason))
    await driver.start()
    this.#driver = driver
    if (!this.#closing) {
      this.#spare = this.#newDriver()
      this.#spare.prepare().catch((error) => {
        this.#options.log.warn({ err: error }, 'could not load a spare driver worker')
        this.#spare = undefined
      })
    }
  }

  #newDriver (): XDriver {
    return new X_DRIVERS[this.name]({ display: this.#display!, log: this.#options.log })
  }

  #lost (reason: string): void {
    if (this.#closing || this.#restarting) return
    this.#options.log.warn({ reason, display: this.#display }, 'desktop lost; restarting')
    this.#restarting = this.#restart().finally(() => { this.#restarting = undefined })
  }

  async #restart (): Promise<void> {
    const started = performance.now()
    for (let attempt = 1; !this.#closing; attempt++) {
      try {
        await this.#driver?.close()
        this.#driver = undefined
        if (this.#xvfb) {
          const old = this.#xvfb
          this.#xvfb = undefined
          await old.stop()
          await this.#startXvfb(Number(this.#display!.slice(1)))
        }
        await this.#connect()
        this.restarts++
        this.#options.log.info({ display: this.#display, ms: Math.round(performance.now() - started), attempt }, 'desktop restarted')
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
}
