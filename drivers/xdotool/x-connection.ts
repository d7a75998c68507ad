/**
 * The xdotool driver's own X connection, in plain JavaScript (node-x11): what xdotool cannot do
 * exactly or fast — keys pressed by keycode on the live keymap (xdotool reads the key name
 * 'Help' as a request for its usage text, whatever precedes it) and the screen size. It also tells the driver at once when the X server
 * goes away: the socket closes, and every request still waiting is rejected then.
 */
import x11, { type XClient, type XTest } from 'x11'
import type { Size } from '../../src/driver.ts'

/** The part of node-x11's client used here beyond x11.d.ts. */
interface Requests {
  GetGeometry (drawable: number, callback: (error: Error | null, geometry: { width: number, height: number }) => boolean): void
}

export class XConnection {
  readonly #client: XClient & Requests
  readonly #xtest: XTest
  readonly #root: number
  readonly #minKeycode: number
  readonly #count: number
  #lost: Error | undefined
  readonly #lostListeners: Array<(error: Error) => void> = []
  /** Rejecters of requests still waiting for their reply. */
  readonly #waiting = new Set<(error: Error) => void>()

  private constructor (client: XClient, xtest: XTest, root: number, minKeycode: number, maxKeycode: number) {
    this.#client = client as XClient & Requests
    this.#xtest = xtest
    this.#root = root
    this.#minKeycode = minKeycode
    this.#count = maxKeycode - minKeycode + 1
    // X protocol errors carry a numeric `error`; those of requests with a callback come back
    // through it. Anything else here is the socket: the server is gone.
    client.on('error', (error: Error & { error?: number }) => { if (typeof error.error !== 'number') this.#fail(error) })
    client.on('end', () => this.#fail(new Error('the X server closed the connection')))
  }

  static open (display: string): Promise<XConnection> {
    return new Promise((resolve, reject) => {
      const client = x11.createClient({ display }, (error, info) => {
        if (error) { reject(error); return }
        client.require('xtest', (xtestError, xtest) => {
          if (xtestError) { client.terminate(); reject(xtestError); return }
          resolve(new XConnection(client, xtest, info.screen[0]!.root, info.min_keycode, info.max_keycode))
        })
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

  /**
   * Where `keysym` (a number) sits in the live keymap, read now (one round trip: the layout
   * may have changed since the last call): the first keycode carrying it on level 1, else any
   * carrying it on another level, else undefined.
   */
  async locate (keysym: number): Promise<{ keycode: number, firstLevel: boolean } | undefined> {
    const rows = await this.#request<number[][]>((done) => this.#client.GetKeyboardMapping(this.#minKeycode, this.#count, done))
    const first = rows.findIndex((row) => row[0] === keysym)
    if (first !== -1) return { keycode: this.#minKeycode + first, firstLevel: true }
    const other = rows.findIndex((row) => row.includes(keysym))
    return other === -1 ? undefined : { keycode: this.#minKeycode + other, firstLevel: false }
  }

  /** The highest keycode with no keysym at all (the text typer takes the lowest first), or undefined. */
  async emptyKeycode (): Promise<number | undefined> {
    const rows = await this.#request<number[][]>((done) => this.#client.GetKeyboardMapping(this.#minKeycode, this.#count, done))
    let index = rows.length - 1
    while (index >= 0 && !rows[index]!.every((sym) => sym === 0)) index--
    return index < 0 ? undefined : this.#minKeycode + index
  }

  /** Binds `keysym` to both levels of `keycode`, and waits until X has done it. */
  async bind (keycode: number, keysym: number): Promise<void> {
    this.#check()
    this.#client.ChangeKeyboardMapping(keycode, 2, [keysym, keysym])
    await this.#request<void>((done) => { this.#client.sync().then(() => done(null), (error: Error) => done(error)) })
  }

  /** Empties keycodes bound by bind() (best effort, on a live connection). */
  async unbind (keycodes: number[]): Promise<void> {
    if (this.#lost || !keycodes.length) return
    for (const keycode of keycodes) this.#client.ChangeKeyboardMapping(keycode, 2, [0, 0])
    await this.#client.sync().catch(() => {})
  }

  /** Presses or releases a keycode through XTest, and waits until X has processed it. */
  async toggleKey (keycode: number, state: 'down' | 'up'): Promise<void> {
    this.#check()
    this.#xtest.FakeInput(state === 'down' ? this.#xtest.KeyPress : this.#xtest.KeyRelease, keycode, 0, 0, 0, 0)
    await this.#request<void>((done) => { this.#client.sync().then(() => done(null), (error: Error) => done(error)) })
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
