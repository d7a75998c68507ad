/**
 * The accessibility tree of the server's own display, and its elements acted on. The
 * accessibility bus is started the first time it is needed (and again if it died), and read
 * over one D-Bus connection. The bus outlives an X server that dies; when another X server
 * holds the display (the supervised desktop restarted Xvfb), the bus's address is written
 * again on the new root window, where applications started without our environment find it.
 * The bus keeps its unique names counting up, so ids of applications that died with X stay
 * gone (409) rather than naming someone else's objects; a bus started anew (the launcher may
 * die with X) counts from the start again, so objects read from an earlier bus are gone to
 * the element calls whatever their names.
 */
import type { AccessibilitySource, AtspiRef, ElementControl, RawNode, WalkLimits } from '../../src/accessibility/source.ts'
import { DriverFailure, UnsupportedAction } from '../../src/errors/errors.ts'
import { AtspiClient } from './atspi-client.ts'
import { startA11yBus, type A11yBus } from './bus.ts'
import { atspiElements } from './elements.ts'
import { publishBusAddress, xServerPid } from './root-address.ts'
import { listWindows, walk } from './walker.ts'
import type { Log } from '../../src/runtime/logger.ts'

const NO_DISPLAY = 'the desktop has no X display yet, so it has no accessibility tree; retry once it has started'

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
  /** The PID of the X server the bus's address was published on. */
  #xServer?: number | undefined
  #republishing?: Promise<void>
  /** The objects walked on the bus of the moment (a new bus starts a new set). */
  #issued = new WeakSet<AtspiRef>()
  #closed = false

  readonly elements: ElementControl

  constructor (options: AtspiDesktopOptions) {
    this.#options = options
    this.elements = atspiElements(() => this.#connect(), (ref) => this.#issued.has(ref))
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

  /** Only a bus already running follows X: none started yet is started with the next call, on the X of then. */
  async desktopReplaced (): Promise<void> {
    const display = this.#options.display()
    if (display && this.#client?.alive() && this.#bus?.alive() && this.#bus.display === display) await this.#followXServer(display, this.#bus)
  }
  async walk (roots: AtspiRef[], limits: WalkLimits) {
    const issued = this.#issued
    const result = await walk(await this.#connect(), roots, limits)
    const remember = (nodes: RawNode[]) => { for (const node of nodes) { issued.add(node.ref); remember(node.children) } }
    remember(result.roots)
    return result
  }

  async #connect (): Promise<AtspiClient> {
    const display = this.#options.display()
    if (!display) throw new UnsupportedAction(NO_DISPLAY)
    if (this.#client?.alive() && this.#bus?.alive() && this.#bus.display === display) {
      await this.#followXServer(display, this.#bus)
      return this.#client
    }
    this.#starting ??= this.#start(display).finally(() => { this.#starting = undefined })
    return this.#starting
  }

  /** Publishes the bus's address on the X server that holds the display now, if that is a new one; failures only log (next call retries). */
  async #followXServer (display: string, bus: A11yBus): Promise<void> {
    const pid = xServerPid(display)
    if (pid === undefined || pid === this.#xServer) return
    this.#republishing ??= publishBusAddress(display, bus.address).then(() => {
      this.#options.log?.info({ display, xServer: pid, previous: this.#xServer }, 'published the accessibility bus on the new X server')
      this.#xServer = pid
    }, (error: unknown) => {
      this.#options.log?.warn({ err: error, display, xServer: pid }, 'could not publish the accessibility bus on the new X server')
    }).finally(() => { this.#republishing = undefined })
    await this.#republishing
  }

  async #start (display: string): Promise<AtspiClient> {
    this.#client?.close()
    await this.#bus?.close()
    this.#issued = new WeakSet()
    if (this.#closed) throw new DriverFailure('the accessibility bus is closing with the server')
    try {
      this.#xServer = xServerPid(display)
      this.#bus = await startA11yBus({ display, ...(this.#options.log && { log: this.#options.log }) })
    } catch (error) {
      throw new DriverFailure(`could not start the accessibility bus on ${display}: ${(error as Error).message}`, { cause: error })
    }
    this.#client = await AtspiClient.open(this.#bus.address)
    return this.#client
  }

  async close (): Promise<void> {
    this.#closed = true
    await this.#starting?.catch(() => {})
    this.#client?.close()
    await this.#bus?.close()
  }
}
