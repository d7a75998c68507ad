/**
 * Knows when the focused application has read every event sent so far, for applications that
 * answer the window manager's ping (_NET_WM_PING, EWMH): the ping is queued behind the keys on
 * the application's connection, and it answers only once its event loop reaches it. Chromium
 * looks a key's keysym up when it reads the key, under the binding of that moment, so the
 * typer may rebind a spare keycode as soon as the answer comes — instead of guessing how long
 * a loaded machine takes. An application without the protocol (xterm) gets no answer: false.
 */
import type { XClient } from 'x11'
import { reply } from './reply.ts'

const SUBSTRUCTURE_NOTIFY = 0x00080000
const PROPERTY_ANY = 0

interface ClientMessage {
  name: string
  wid: number
  message_type: number
  data: number[]
}

export class FocusPing {
  readonly #client: XClient
  readonly #root: number
  readonly #atoms: { protocols: number, ping: number }
  #token = 1
  readonly #waiting = new Map<number, () => void>()

  private constructor (client: XClient, root: number, atoms: { protocols: number, ping: number }) {
    this.#client = client
    this.#root = root
    this.#atoms = atoms
    // The application answers by sending the ping back to the root window.
    client.on('event', (event: ClientMessage) => {
      if (event.name !== 'ClientMessage' || event.message_type !== atoms.protocols || event.data[0] !== atoms.ping) return
      this.#waiting.get(event.data[1]!)?.()
    })
  }

  /** Listens on the root window for answers (any number of clients may select SubstructureNotify). */
  static async open (client: XClient, root: number): Promise<FocusPing> {
    const [protocols, ping] = await Promise.all([atom(client, 'WM_PROTOCOLS'), atom(client, '_NET_WM_PING')])
    client.ChangeWindowAttributes(root, { eventMask: SUBSTRUCTURE_NOTIFY })
    return new FocusPing(client, root, { protocols, ping })
  }

  /**
   * Pings the top-level window that holds the input focus and waits for its answer. Resolves
   * false at once when that window does not speak _NET_WM_PING, or after `timeoutMs` without one.
   */
  async ping (timeoutMs: number): Promise<boolean> {
    const window = await this.#focusedPingable()
    if (window === undefined) return false
    const token = this.#token = (this.#token % 0x7fffffff) + 1
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#waiting.delete(token); resolve(false) }, timeoutMs)
      this.#waiting.set(token, () => { clearTimeout(timer); this.#waiting.delete(token); resolve(true) })
      this.#client.SendClientMessage(window, window, this.#atoms.protocols, 32, [this.#atoms.ping, token, window, 0, 0], 0)
    })
  }

  /** The focus window or its nearest ancestor that lists _NET_WM_PING in WM_PROTOCOLS. */
  async #focusedPingable (): Promise<number | undefined> {
    let window = (await reply<{ focus: number }>((cb) => this.#client.GetInputFocus(cb))).focus
    // None (0) and PointerRoot (1): no window to ask.
    for (let depth = 0; window > 1 && window !== this.#root && depth < 8; depth++) {
      const property = await reply<{ data: Buffer, format: number }>((cb) => this.#client.GetProperty(0, window, this.#atoms.protocols, PROPERTY_ANY, 0, 32, cb))
      if (property.format === 32) {
        for (let i = 0; i + 4 <= property.data.length; i += 4) if (property.data.readUInt32LE(i) === this.#atoms.ping) return window
      }
      window = (await reply<{ parent: number }>((cb) => this.#client.QueryTree(window, cb))).parent
    }
    return undefined
  }
}

const atom = (client: XClient, name: string) => reply<number>((cb) => client.InternAtom(false, name, cb))
