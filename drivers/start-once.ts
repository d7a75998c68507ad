/**
 * How an X driver starts: refused when it cannot (closed, its X server lost), nothing to do when
 * it is ready, else one start at a time — the display probed (a dead one is a clear
 * InvalidConfig, never a segfault), the driver prepared, then connected. Whoever asks while a
 * start runs shares it: a supervisor and a request that both find the desktop down must not
 * open two connections. The next ask after it settles, whichever way, starts again.
 */
import { probeDisplay } from './x11/probe.ts'

export interface StartSteps {
  display: string
  /** Why the driver cannot start at all, if it cannot. */
  refused: () => Error | undefined
  ready: () => boolean
  prepare: () => Promise<void>
  connect: () => Promise<void>
}

export class StartOnce {
  readonly #steps: StartSteps
  #running?: Promise<void>

  constructor (steps: StartSteps) { this.#steps = steps }

  /** The start in progress, if any. */
  get running (): Promise<void> | undefined { return this.#running }

  start (): Promise<void> {
    const refused = this.#steps.refused()
    if (refused) return Promise.reject(refused)
    if (this.#steps.ready()) return Promise.resolve()
    this.#running ??= this.#start().finally(() => { this.#running = undefined })
    return this.#running
  }

  async #start (): Promise<void> {
    await probeDisplay(this.#steps.display)
    await this.#steps.prepare()
    await this.#steps.connect()
  }
}
