/**
 * Pointer, wheel and key input as XTest requests on a pure-JavaScript X connection (node-x11),
 * a whole list of steps at a time: the requests go out back to back and one QueryPointer at
 * the end is the round trip that says the X server processed them all (its reply comes after
 * every request before it), and tells where the pointer ended up. A click is then one round
 * trip to X, where nut-js makes one blocking native call per press, release and warp.
 *
 * Keys are pressed here only when their keysym sits on the first level of some keycode of the
 * live keymap; any other key is handed back to the caller (`fallback`), which binds or shifts
 * it its own way. The keymap is read once and again after every MappingNotify (X sends one to
 * every client when the keymap changes: setxkbmap, xmodmap, a spare keycode bound) and after
 * the fallback ran; keycodes the fallback's connection bound are never pressed here.
 */
import { type XClient, type XTest } from 'x11'
import type { InputStep, Point, Size } from '../../src/driver/driver.ts'
import { WHEEL_NOTCH_GAP_MS, X_BUTTONS, wheelNotches } from './buttons.ts'
import { createClient } from './connect.ts'
import { keysymCode } from './keysym-codes.ts'

/** An input step as it crosses a process boundary: a key by its X keysym name. */
export type XInputStep = Exclude<InputStep, { kind: 'key' }> | { kind: 'key', keysym: string, down: boolean }

/** The steps of a driver's plan with each key by its keysym name. */
export const toXSteps = (steps: readonly InputStep[]): XInputStep[] =>
  steps.map((step) => step.kind === 'key' ? { kind: 'key', keysym: step.key.keysym, down: step.down } : step)

/**
 * Presses a key this connection does not press by itself (after a sync): one off the first
 * level, or one on a keycode another connection bound (`reserved`), which that one tracks.
 */
export interface KeyFallback {
  press: (keysym: string, state: 'down' | 'up') => Promise<void>
  /** Keycodes not to press here. */
  reserved: () => ReadonlySet<number>
}

export class XTestInput {
  readonly #client: XClient
  readonly #xtest: XTest
  readonly #root: number
  readonly #minKeycode: number
  readonly #count: number
  #failure: Error | undefined
  #closed = false
  /** Keys the fallback pressed: their release goes there too, whatever the keymap says by then. */
  readonly #pressedElsewhere = new Set<string>()
  /** keysym → keycode on the first level; dropped when the keymap changes. */
  #keycodes: Promise<Map<number, number>> | undefined
  readonly #lostListeners: Array<(error: Error) => void> = []
  /** The screen's size in pixels, from the connection's handshake. */
  readonly size: Size

  private constructor (client: XClient, xtest: XTest, root: number, size: Size, minKeycode: number, maxKeycode: number) {
    this.#client = client
    this.size = size
    this.#xtest = xtest
    this.#root = root
    this.#minKeycode = minKeycode
    this.#count = maxKeycode - minKeycode + 1
    client.on('error', (error: Error) => { this.#lose(error) })
    client.on('end', () => { this.#lose(new Error('the X connection closed')) })
    client.on('event', (event: { name?: string }) => { if (event.name === 'MappingNotify') this.#keycodes = undefined })
  }

  static open (display: string): Promise<XTestInput> {
    return new Promise((resolve, reject) => {
      // A plan's fake input and the QueryPointer after it go out in one write.
      const client = createClient(display, (error, info) => {
        if (error) { reject(error); return }
        client.require('xtest', (xtestError, xtest) => {
          if (xtestError) reject(xtestError)
          else {
            const screen = info.screen[0]!
            resolve(new XTestInput(client, xtest, screen.root, { width: screen.pixel_width, height: screen.pixel_height }, info.min_keycode, info.max_keycode))
          }
        })
      }, { bufferRequests: true })
      client.once('error', reject)
    })
  }

  /** Why the connection is gone, or undefined while it lives. */
  get lost (): Error | undefined { return this.#failure }

  /** Socket writes so far (node-x11's own count): a plan without pauses or fallback keys is one. */
  get writes (): number { return (this.#client as XClient & { pack_stream: { stats: { writes: number } } }).pack_stream.stats.writes }

  /** Calls `listener` once when the connection ends by itself (X went away or hangs), not after close(). */
  onLost (listener: (error: Error) => void): void { this.#lostListeners.push(listener) }

  close (): void {
    this.#closed = true
    this.#client.terminate()
  }

  /**
   * Sends `steps` in order and resolves with the pointer position once X has processed them.
   * Steps between pauses go out back to back. A pause is waited out here, once X has processed
   * what came before it (a round trip), so the events after it are apart from those before, with
   * timestamps of their own. XTest's own delay on the next fake input was used for this, which
   * costs no round trip; but with it Chromium, on a loaded machine, now and then missed the
   * second press of a double click or the second wheel notch of two (e2e-oracle-nut,
   * e2e-accessibility), likely because the X server counts that delay from the time it last
   * noted, which may be behind, and then hardly waits. The xdotool driver, which sleeps
   * between them, never missed one.
   */
  run (steps: readonly XInputStep[], fallback: KeyFallback): Promise<Point> {
    // Moves and clicks alone, most plans, go out at once: nothing in them waits.
    if (steps.every((step) => step.kind === 'move' || step.kind === 'button')) {
      try {
        this.#check()
        for (const step of steps) this.#pointerStep(step as Extract<XInputStep, { kind: 'move' | 'button' }>)
        return this.pointer()
      } catch (error) {
        return Promise.reject(error)
      }
    }
    return this.#runAll(steps, fallback)
  }

  #pointerStep (step: Extract<XInputStep, { kind: 'move' | 'button' }>): void {
    const xtest = this.#xtest
    // detail 0: absolute coordinates on the given root window.
    if (step.kind === 'move') xtest.FakeInput(xtest.MotionNotify, 0, 0, this.#root, Math.round(step.to.x), Math.round(step.to.y))
    else xtest.FakeInput(step.down ? xtest.ButtonPress : xtest.ButtonRelease, X_BUTTONS[step.button], 0, 0, 0, 0)
  }

  async #runAll (steps: readonly XInputStep[], fallback: KeyFallback): Promise<Point> {
    this.#check()
    const { KeyPress, KeyRelease, ButtonPress, ButtonRelease, MotionNotify } = this.#xtest
    const fake = (type: number, detail: number, x = 0, y = 0) => {
      this.#xtest.FakeInput(type, detail, 0, type === MotionNotify ? this.#root : 0, x, y)
    }
    /** Once X has processed everything sent so far, `ms` more. */
    const waitOut = async (ms = 0) => {
      await this.#sync()
      if (ms) await new Promise((resolve) => setTimeout(resolve, ms))
    }
    for (const step of steps) {
      switch (step.kind) {
        case 'move':
        case 'button':
          this.#pointerStep(step)
          break
        case 'wheel':
          for (const [i, button] of wheelNotches(step.dx, step.dy).entries()) {
            // Each notch after the first comes a moment later, so it gets a timestamp of its own.
            if (i > 0) await waitOut(WHEEL_NOTCH_GAP_MS)
            fake(ButtonPress, button)
            fake(ButtonRelease, button)
          }
          break
        case 'key': {
          this.#keycodes ??= this.#firstLevelKeycodes()
          const keycodes = await this.#keycodes
          const reserved = fallback.reserved()
          const keysym = keysymCode(step.keysym)
          let keycode = keysym === undefined || this.#pressedElsewhere.has(step.keysym) ? undefined : keycodes.get(keysym)
          if (keycode !== undefined && reserved.has(keycode)) keycode = undefined
          if (keycode !== undefined) {
            fake(step.down ? KeyPress : KeyRelease, keycode)
          } else {
            // The fallback uses connections of its own: what went before must be processed first.
            await waitOut()
            if (step.down) this.#pressedElsewhere.add(step.keysym)
            await fallback.press(step.keysym, step.down ? 'down' : 'up')
            if (!step.down) this.#pressedElsewhere.delete(step.keysym)
            // It may have changed the keymap, and its MappingNotify may not have been read yet.
            this.#keycodes = undefined
          }
          break
        }
        case 'pause':
          await waitOut(step.ms)
          break
      }
    }
    return this.pointer()
  }

  /** Where the pointer is; the reply also means every request before it was processed. */
  pointer (): Promise<Point> {
    this.#check()
    return new Promise((resolve, reject) => {
      this.#client.QueryPointer(this.#root, (error, reply) => {
        if (error) reject(this.#failure ? this.#lostError() : error)
        else resolve({ x: reply.rootX, y: reply.rootY })
      })
    })
  }

  /** keysym → the lowest keycode that carries it on its first level, as XKeysymToKeycode finds it. */
  #firstLevelKeycodes (): Promise<Map<number, number>> {
    const reading = new Promise<Map<number, number>>((resolve, reject) => {
      this.#client.GetKeyboardMapping(this.#minKeycode, this.#count, (error, rows) => {
        if (error) { reject(this.#failure ? this.#lostError() : error); return }
        const map = new Map<number, number>()
        rows.forEach((row, i) => {
          const first = row[0]
          if (first && !map.has(first)) map.set(first, this.#minKeycode + i)
        })
        resolve(map)
      })
    })
    // A failed read is not kept: the next plan reads again.
    reading.catch(() => { if (this.#keycodes === reading) this.#keycodes = undefined })
    return reading
  }

  async #sync (): Promise<void> {
    await this.#client.sync().catch((error: Error) => { throw this.#failure ? this.#lostError() : error })
    this.#check()
  }

  #lose (error: Error): void {
    if (this.#failure) return
    this.#failure = error
    if (!this.#closed) for (const listener of this.#lostListeners) listener(error)
  }

  #check (): void {
    if (this.#failure) throw this.#lostError()
  }

  #lostError (): Error {
    return new Error(`lost the X connection: ${this.#failure!.message}`)
  }
}
