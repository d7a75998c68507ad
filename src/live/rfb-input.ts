/**
 * Reads what a browser's VNC client sends (RFB 3.8, client to server) message by message, so
 * the bridge decides what reaches the desktop: in view-only mode no input at all (x11vnc is
 * view-only too; this is the second lock), with control the keys and buttons pass and are
 * remembered, so that a tab closed mid-drag can be answered with their release. Resizing the
 * desktop and power actions never pass. Anything it cannot frame ends the connection.
 */

export class RfbProtocolError extends Error {
  override name = 'RfbProtocolError'
}

type Phase = 'version' | 'security' | 'init' | 'messages'

/** Client message types, by their names in RFC 6143 §7.5 and the extensions noVNC sends. */
const ClientMessage = {
  SetPixelFormat: 0,
  SetEncodings: 2,
  FramebufferUpdateRequest: 3,
  KeyEvent: 4,
  PointerEvent: 5,
  ClientCutText: 6,
  EnableContinuousUpdates: 150,
  ClientFence: 248,
  Xvp: 250,
  SetDesktopSize: 251,
  Qemu: 255,
} as const
const SECURITY_NONE = 1
const MAX_CUT_TEXT = 1 << 20

export class RfbInputFilter {
  /** Whether input may pass now: --live-control, and this viewer holding the control lease. */
  readonly #control: () => boolean
  #phase: Phase = 'version'
  #pending: Buffer = Buffer.alloc(0)
  #buttons = 0
  #x = 0
  #y = 0
  readonly #keys = new Set<number>()

  constructor (control: boolean | (() => boolean)) {
    this.#control = typeof control === 'function' ? control : () => control
  }

  /** True while the browser holds a key or button down. */
  get holding (): boolean { return this.#buttons !== 0 || this.#keys.size > 0 }

  /** Takes the next bytes from the browser; returns those that may go on to the VNC server. */
  push (chunk: Buffer): Buffer {
    this.#pending = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk
    const out: Buffer[] = []
    for (;;) {
      const length = this.#nextLength()
      if (length === undefined || this.#pending.length < length) break
      const message = this.#pending.subarray(0, length)
      this.#pending = this.#pending.subarray(length)
      if (this.#accept(message)) out.push(message)
    }
    return Buffer.concat(out)
  }

  /** Messages that let go of whatever the browser still holds (nothing when it holds nothing). */
  releases (): Buffer {
    const out: Buffer[] = []
    for (const keysym of this.#keys) {
      const message = Buffer.alloc(8)
      message.writeUInt8(ClientMessage.KeyEvent, 0)
      message.writeUInt32BE(keysym, 4)
      out.push(message)
    }
    this.#keys.clear()
    if (this.#buttons !== 0) {
      const message = Buffer.alloc(6)
      message.writeUInt8(ClientMessage.PointerEvent, 0)
      message.writeUInt16BE(this.#x, 2)
      message.writeUInt16BE(this.#y, 4)
      out.push(message)
      this.#buttons = 0
    }
    return Buffer.concat(out)
  }

  /** The length of the message at the head of the buffer, or undefined until enough has arrived to know it. */
  #nextLength (): number | undefined {
    const data = this.#pending
    switch (this.#phase) {
      case 'version': return 12
      case 'security': return 1
      case 'init': return 1
      case 'messages': break
    }
    if (data.length < 1) return undefined
    const type = data[0]!
    const need = (header: number, rest: (header: Buffer) => number) => data.length < header ? undefined : header + rest(data)
    switch (type) {
      case ClientMessage.SetPixelFormat: return 20
      case ClientMessage.SetEncodings: return need(4, (d) => 4 * d.readUInt16BE(2))
      case ClientMessage.FramebufferUpdateRequest: return 10
      case ClientMessage.KeyEvent: return 8
      case ClientMessage.PointerEvent: return 6
      case ClientMessage.ClientCutText: return need(8, (d) => {
        // Negative lengths are the extended clipboard's; the size is the magnitude.
        const size = Math.abs(d.readInt32BE(4))
        if (size > MAX_CUT_TEXT) throw new RfbProtocolError(`clipboard text of ${size} bytes is over the ${MAX_CUT_TEXT}-byte limit`)
        return size
      })
      case ClientMessage.EnableContinuousUpdates: return 10
      case ClientMessage.ClientFence: return need(9, (d) => d.readUInt8(8))
      case ClientMessage.Xvp: return 4
      case ClientMessage.SetDesktopSize: return need(8, (d) => 16 * d.readUInt8(6))
      case ClientMessage.Qemu: return need(2, (d) => {
        if (d.readUInt8(1) !== 0) throw new RfbProtocolError(`unknown QEMU client message ${d.readUInt8(1)}`)
        return 10
      })
      default: throw new RfbProtocolError(`unknown RFB client message type ${type}`)
    }
  }

  #accept (message: Buffer): boolean {
    switch (this.#phase) {
      case 'version':
        if (!/^RFB 003\.00[378]\n$/.test(message.toString('latin1'))) throw new RfbProtocolError('not an RFB 3.x client')
        this.#phase = message.toString('latin1') === 'RFB 003.003\n' ? 'init' : 'security'
        return true
      case 'security':
        if (message[0] !== SECURITY_NONE) throw new RfbProtocolError(`security type ${message[0]} is not offered`)
        this.#phase = 'init'
        return true
      case 'init':
        this.#phase = 'messages'
        return true
      case 'messages':
        break
    }
    switch (message[0]) {
      case ClientMessage.KeyEvent: {
        if (!this.#control()) return false
        const keysym = message.readUInt32BE(4)
        if (message[1]) this.#keys.add(keysym)
        else this.#keys.delete(keysym)
        return true
      }
      case ClientMessage.PointerEvent:
        if (!this.#control()) return false
        this.#buttons = message[1]!
        this.#x = message.readUInt16BE(2)
        this.#y = message.readUInt16BE(4)
        return true
      case ClientMessage.Qemu: {
        if (!this.#control()) return false
        const keysym = message.readUInt32BE(4)
        if (message.readUInt16BE(2)) this.#keys.add(keysym)
        else this.#keys.delete(keysym)
        return true
      }
      case ClientMessage.ClientCutText: return this.#control()
      case ClientMessage.SetDesktopSize:
      case ClientMessage.Xvp:
        return false
      default:
        return true
    }
  }
}
