/**
 * The end of a pure-JS X connection by itself (X went away, or hangs): kept as the reason
 * every later call is refused with, and told once to whoever listens — not after a close() of
 * our own, which is no loss.
 */
export class LostConnection {
  #failure: Error | undefined
  #closed = false
  readonly #listeners: Array<(error: Error) => void> = []

  /** Why the connection is gone, or undefined while it lives. */
  get lost (): Error | undefined { return this.#failure }

  /** Calls `listener` once when the connection ends by itself, not after close(). */
  onLost (listener: (error: Error) => void): void {
    this.#listeners.push(listener)
  }

  lose (error: Error): void {
    if (this.#failure) return
    this.#failure = error
    if (!this.#closed) for (const listener of this.#listeners) listener(error)
  }

  /** Our own close: what ends the connection from now on is no loss to report. */
  close (): void {
    this.#closed = true
  }

  /** The error a call gets once the connection is gone. */
  refusal (): Error | undefined {
    return this.#failure && new Error(`lost the X connection: ${this.#failure.message}`)
  }
}
