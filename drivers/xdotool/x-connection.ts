/**
 * The xdotool driver's own X connection, in plain JavaScript (node-x11): the screen size, and
 * word at once when the X server goes away — the socket closes, and every request still
 * waiting is rejected then. (Keys go by keycode through the text typer's connection.)
 */
import { type XClient } from 'x11'
import { createClient } from '../x11/connect.ts'
import type { Size } from '../../src/driver/driver.ts'

/** The part of node-x11's client used here beyond x11.d.ts. */
interface Requests {
  GetGeometry (drawable: number, callback: (error: Error | null, geometry: { width: number, height: number }) => boolean): void
}

export class XConnection {
  readonly #client: XClient & Requests
  readonly #root: number
  #lost: Error | undefined
  readonly #lostListeners: Array<(error: Error) => void> = []
  /** Rejecters of requests still waiting for their reply. */
  readonly #waiting = new Set<(error: Error) => void>()

  private constructor (client: XClient, root: number) {
    this.#client = client as XClient & Requests
    this.#root = root
    // X protocol errors carry a numeric `error`; those of requests with a callback come back
    // through it. Anything else here is the socket: the server is gone.
    client.on('error', (error: Error & { error?: number }) => { if (typeof error.error !== 'number') this.#fail(error) })
    client.on('end', () => this.#fail(new Error('the X server closed the connection')))
  }

  static open (display: string): Promise<XConnection> {
    return new Promise((resolve, reject) => {
      const client = createClient(display, (error, info) => {
        if (error) { reject(error); return }
        resolve(new XConnection(client, info.screen[0]!.root))
      })
      client.once('error', reject)
    })
  }

  /** Why the connection is gone, or undefined while it lives. */
  get lost (): Error | undefined { return this.#lost }

  /** Calls `listener` once, when the connection breaks (not after close()). */
  onLost (listener: (error: Error) => void): void {
    this.#lostListeners.push(listener)
  }

  /** The root window's size now (one round trip). */
  async screenSize (): Promise<Size> {
    const { width, height } = await this.#request<{ width: number, height: number }>((done) => this.#client.GetGeometry(this.#root, done))
    return { width, height }
  }

  /** Closes the connection; its end is not reported as a loss. Safe to call twice. */
  close (): void {
    if (!this.#lost) this.#lost = new Error('the X connection was closed')
    this.#lostListeners.length = 0
    this.#rejectWaiting(this.#lost)
    this.#client.terminate()
  }

  /** Sends a request and waits for its reply, or for the connection to break. */
  #request<T> (send: (done: (error: Error | null, value?: T) => boolean) => void): Promise<T> {
    this.#check()
    return new Promise<T>((resolve, reject) => {
      const fail = (error: Error) => { this.#waiting.delete(fail); reject(error) }
      this.#waiting.add(fail)
      send((error, value) => {
        this.#waiting.delete(fail)
        if (error) reject(error)
        else resolve(value as T)
        // Handled: node-x11 would otherwise also emit the error on the client.
        return true
      })
    })
  }

  #check (): void {
    if (this.#lost) throw this.#lost
  }

  #fail (error: Error): void {
    if (this.#lost) return
    this.#lost = error
    this.#rejectWaiting(error)
    for (const listener of this.#lostListeners.splice(0)) listener(error)
  }

  #rejectWaiting (error: Error): void {
    for (const reject of [...this.#waiting]) reject(error)
    this.#waiting.clear()
  }
}
