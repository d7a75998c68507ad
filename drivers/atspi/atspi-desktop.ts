/**
 * The accessibility tree of the server's own display, and its elements acted on. The
 * accessibility bus is started the first time it is needed (and again if it died, e.g. with
 * the X server), and read over one D-Bus connection.
 */
import type { AccessibilitySource, AtspiRef, ElementControl, WalkLimits } from '../../src/accessibility/source.ts'
import { DriverFailure, UnsupportedAction } from '../../src/errors.ts'
import { AtspiClient } from './atspi-client.ts'
import { startA11yBus, type A11yBus } from './bus.ts'
import { atspiElements } from './elements.ts'
import { listWindows, walk } from './walker.ts'

const NO_DISPLAY = 'this desktop has no X display, so it has no accessibility tree (the fake driver)'

interface Log {
  info: (object: object, message: string) => void
  warn: (object: object, message: string) => void
}

export interface AtspiDesktopOptions {
  /** The X display, read when first needed (the desktop may start after the app is built). */
  display: () => string | undefined
  log?: Log
}

export class AtspiDesktop implements AccessibilitySource {
  readonly #options: AtspiDesktopOptions
  #bus?: A11yBus
  #client?: AtspiClient
  #starting?: Promise<AtspiClient>
  #closed = false

  readonly elements: ElementControl

  constructor (options: AtspiDesktopOptions) {
    this.#options = options
    this.elements = atspiElements(() => this.#connect())
  }

  unavailable (): string | undefined {
    return this.#options.display() ? undefined : NO_DISPLAY
  }

  async environment (): Promise<Record<string, string>> {
    return { ...(await this.bus()).env }
  }

  /** The accessibility bus, started if need be: what applications launched on the display need in their environment. */
  async bus (): Promise<A11yBus> {
    await this.#connect()
    return this.#bus!
  }

  async windows () { return listWindows(await this.#connect()) }
  async walk (roots: AtspiRef[], limits: WalkLimits) { return walk(await this.#connect(), roots, limits) }

  async #connect (): Promise<AtspiClient> {
    const display = this.#options.display()
    if (!display) throw new UnsupportedAction(NO_DISPLAY)
    if (this.#client?.alive() && this.#bus?.alive() && this.#bus.display === display) return this.#client
    this.#starting ??= this.#start(display).finally(() => { this.#starting = undefined })
    return this.#starting
  }

  async #start (display: string): Promise<AtspiClient> {
    this.#client?.close()
    await this.#bus?.close()
    if (this.#closed) throw new DriverFailure('the accessibility bus is closing with the server')
    try {
      this.#bus = await startA11yBus({ display, ...(this.#options.log && { log: this.#options.log }) })
    } catch (error) {
      throw new DriverFailure(`could not start the accessibility bus on ${display}: ${(error as Error).message}`, { cause: error })
    }
    this.#client = new AtspiClient(this.#bus.address)
    return this.#client
  }

  async close (): Promise<void> {
    this.#closed = true
    await this.#starting?.catch(() => {})
    this.#client?.close()
    await this.#bus?.close()
  }
}
