/**
 * Types text exactly through XTest on a pure-JavaScript X connection (node-x11): keys from
 * the live keymap, everything else on spare keycodes bound per phase (typing-plan.ts).
 * A lost X connection is an error here, never a process exit as in Xlib.
 */
import { LostConnection } from './lost-connection.ts'
import { type XClient, type XTest } from 'x11'
import { createClient } from './connect.ts'
import { exposeEvent, FocusExpose, type ExposeProbe } from './focus-expose.ts'
import { FocusPing } from './focus-ping.ts'
import { FocusQuiet, type FocusWatch } from './focus-quiet.ts'
import { liveKeys, planTyping, type Bound, type LiveKeys, type Phase } from './typing-plan.ts'
import { untypable } from './untypable.ts'
import { decodeRecord, encodeRecord, INTEGER, leftBound, RECORD_PROPERTY, type RecordedBinding } from './typer-record.ts'
import { reply } from './reply.ts'
import { UnsupportedAction } from '../../src/errors/errors.ts'

export interface TextTyperOptions {
  /**
   * How long applications get to read keys pressed under one binding before the spare
   * keycodes are rebound (they look keysyms up when they read the event, under the binding
   * of that moment). Measured: 20 ms garbled characters in Chromium; 150 ms plus `perKeyMs`
   * per key was exact (test/e2e-typing.test.ts).
   */
  rebindPauseMs?: number
  /**
   * Added to that pause per key event sent since the last binding: an application reads a
   * burst of keys at its own pace (Chromium on a loaded 2-core machine: about 2 ms a key).
   */
  perKeyMs?: number
  /**
   * How long to wait for the focused application's answer to a ping (_NET_WM_PING), which
   * replaces the rebind pause: once it answers, it has read every key sent before.
   */
  pingTimeoutMs?: number
  /**
   * For an application that does not answer the ping: how long it must have drawn nothing
   * (its echo of the keys) before the spare keycodes are rebound, on top of the timed pause.
   */
  quietMs?: number
  /** The longest that wait for quiet may take (an application that never stops drawing). */
  quietMaxMs?: number
  /**
   * For an application that does not answer the ping: how long it may take to redraw a
   * synthetic Expose sent behind the keys (focus-expose.ts) before the typer falls back to
   * the quiet watch (and races the two for that window from then on).
   */
  exposeTimeoutMs?: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A key no keycode carries, and no spare keycode left to bind it to (all bound keys held). */
export class NoSpareKeycode extends Error {}

export class TextTyper {
  readonly #client: XClient
  readonly #xtest: XTest
  readonly #minKeycode: number
  readonly #count: number
  readonly #pauseMs: number
  readonly #perKeyMs: number
  #strokesSinceBind = 0
  /**
   * Whether a key on a spare keycode was sent since the last binding: only those keys can be
   * read under the wrong binding, so a rebind after keys of the layout alone waits for nothing.
   */
  #boundSinceBind = false
  readonly #bound: Bound = new Map()
  /** Vendor keycodes this typer bound, with the keysyms they carried: given back on close. */
  readonly #borrowed = new Map<number, number[]>()
  /** Keycodes toggleKey() holds down: never rebound, by typing or another key, until released. */
  readonly #held = new Set<number>()
  #lastStrokeAt = 0
  readonly #connection = new LostConnection()
  #closing: Promise<void> | undefined
  readonly #ping: FocusPing | undefined
  readonly #pingTimeoutMs: number
  readonly #quiet: FocusQuiet | undefined
  /** What the focused window drew since the last keys on bound keycodes were sent. */
  #watch: FocusWatch | undefined
  readonly #quietMs: number
  readonly #quietMaxMs: number
  readonly #expose: FocusExpose | undefined
  readonly #exposeTimeoutMs: number
  readonly #root: number
  /** The root window property recording what this typer bound (typer-record.ts); undefined when it could not be interned. */
  readonly #recordAtom: number | undefined
  /** Focus windows that did not redraw a synthetic Expose in time: the quiet watch is raced for them. */
  readonly #silent = new Set<number>()

  private constructor (client: XClient, xtest: XTest, root: number, recordAtom: number | undefined, ping: FocusPing | undefined, quiet: FocusQuiet | undefined, expose: FocusExpose | undefined, minKeycode: number, maxKeycode: number, options: TextTyperOptions) {
    this.#client = client
    this.#root = root
    this.#recordAtom = recordAtom
    this.#xtest = xtest
    this.#ping = ping
    this.#expose = expose
    this.#exposeTimeoutMs = options.exposeTimeoutMs ?? 2000
    this.#pingTimeoutMs = options.pingTimeoutMs ?? 1000
    this.#quiet = quiet
    this.#quietMs = options.quietMs ?? 100
    this.#quietMaxMs = options.quietMaxMs ?? 1500
    this.#minKeycode = minKeycode
    this.#count = maxKeycode - minKeycode + 1
    this.#pauseMs = options.rebindPauseMs ?? 150
    this.#perKeyMs = options.perKeyMs ?? 3
    client.on('error', (error: Error) => { this.#connection.lose(error) })
    client.on('end', () => { this.#connection.lose(new Error('the X connection closed')) })
  }


  /** Why the connection is gone, or undefined while it lives. */
  get lost (): Error | undefined { return this.#connection.lost }

  /** The spare keycodes this typer has bound: only it may press them (it knows what they carry and which are held). */
  get boundKeycodes (): ReadonlySet<number> { return new Set(this.#bound.keys()) }

  /** Calls `listener` once when the connection ends by itself (X went away or hangs), not after close(). */
  onLost (listener: (error: Error) => void): void {
    this.#connection.onLost(listener)
  }

  static open (display: string, options: TextTyperOptions = {}): Promise<TextTyper> {
    return new Promise((resolve, reject) => {
      const client = createClient(display, (error, info) => {
        if (error) { reject(error); return }
        client.require('xtest', (xtestError, xtest) => {
          if (xtestError) { reject(xtestError); return }
          const root = info.screen[0]!.root
          // Without the ping and the damage watches, the timed pauses alone keep typing exact.
          Promise.all([
            FocusPing.open(client, root).catch(() => undefined),
            FocusQuiet.open(display).catch(() => undefined),
            FocusExpose.open(display).catch(() => undefined),
            reply<number>((cb) => client.InternAtom(false, RECORD_PROPERTY, cb)).catch(() => undefined),
          ]).then(async ([ping, quiet, expose, recordAtom]) => {
            const typer = new TextTyper(client, xtest, root, recordAtom, ping, quiet, expose, info.min_keycode, info.max_keycode, options)
            await typer.#reclaim().catch(() => {})
            resolve(typer)
          }).catch(reject)
        })
      })
      client.once('error', reject)
    })
  }

  /**
   * Types `text` exactly, or refuses it (UnsupportedAction) before a key is pressed when a
   * character has no key (a control character). A newline is Return however the text spells
   * it (\n, \r\n or \r).
   */
  async type (text: string): Promise<void> {
    const reason = untypable(text)
    if (reason) throw new UnsupportedAction(reason)
    text = text.replace(/\r\n?/g, '\n')
    this.#check()
    // Read every time (one round trip): the layout may have changed since (setxkbmap).
    const keys = await this.#readKeymap()
    const phases = planTyping(text, { ...keys, spare: keys.spare.filter((k) => !this.#held.has(k)) }, this.#bound)
    for (const phase of phases) await this.#run(phase, keys)
  }

  /**
   * Presses or releases `keysym` by keycode: the one that carries it on its first level of the
   * live keymap, or, when no keycode carries it, a spare keycode bound to it (and left bound,
   * as typed characters are). False when it sits on a shifted level only: the caller adds the
   * modifier its own way.
   */
  async toggleKey (keysym: number, state: 'down' | 'up'): Promise<boolean> {
    this.#check()
    const keys = await this.#readKeymap()
    const stroke = keys.strokes.get(keysym)
    // Shifted, or a keypad digit on the NumLock level: the caller adds the modifier its way.
    if (stroke?.shift || (!stroke && keys.numLockLevel.has(keysym))) return false
    let keycode = stroke?.keycode ?? [...this.#bound].find(([, [first]]) => first === keysym)?.[0]
    if (keycode === undefined) {
      // Never pressed: nothing to release.
      if (state === 'up') return true
      const free = keys.spare.filter((k) => !this.#held.has(k))
      keycode = free.find((k) => !this.#bound.has(k)) ?? free[0]
      if (keycode === undefined) throw new NoSpareKeycode(`no keycode carries keysym 0x${keysym.toString(16)} and the keymap has no empty keycode left to bind it to`)
      // Pauses as typing does: keys under the old binding may be unread, the new one unapplied.
      await this.#run({ bind: [{ keycode, keysyms: [keysym, keysym] }], strokes: [] }, keys)
      this.#bound.set(keycode, [keysym, keysym])
      this.#record()
    }
    this.#xtest.FakeInput(state === 'down' ? this.#xtest.KeyPress : this.#xtest.KeyRelease, keycode, 0, 0, 0, 0)
    if (state === 'down') this.#held.add(keycode)
    else this.#held.delete(keycode)
    await this.#sync()
    if (this.#bound.has(keycode)) {
      this.#strokesSinceBind++
      this.#boundSinceBind = true
      this.#lastStrokeAt = Date.now()
    }
    return true
  }

  /** Unbinds the spare keycodes (best effort) and closes the connection. */
  close (): Promise<void> {
    // Once: a second close would send the restoring requests again, on the client the first ended.
    return (this.#closing ??= this.#close())
  }

  async #close (): Promise<void> {
    this.#connection.close()
    if (!this.#connection.lost && this.#bound.size) {
      // Keys on the spare keycodes may still be unread: unbound now, they would read as nothing.
      if (this.#boundSinceBind && !(await this.#caughtUpBeforeClose())) await sleep(Math.max(0, this.#lastStrokeAt + this.#pauseMs - Date.now()))
      for (const keycode of this.#bound.keys()) {
        const row = this.#borrowed.get(keycode)
        if (row) this.#client.ChangeKeyboardMapping(keycode, row.length, row)
        else this.#client.ChangeKeyboardMapping(keycode, 2, [0, 0])
      }
      if (this.#recordAtom !== undefined) this.#client.DeleteProperty(this.#root, this.#recordAtom)
      await this.#client.sync().catch(() => {})
    }
    this.#quiet?.close()
    this.#expose?.close()
    this.#client.terminate()
  }

  async #run ({ bind, strokes }: Phase, keys: LiveKeys): Promise<void> {
    if (bind.length) {
      // Keys already sent may still be unread under the old binding.
      if (this.#boundSinceBind && !(await this.#focusedHasRead())) {
        await this.#focusedHasHandled()
        this.#check()
      }
      this.#watch?.end()
      this.#watch = undefined
      this.#strokesSinceBind = 0
      this.#boundSinceBind = false
      for (const { keycode, keysyms } of bind) {
        const vendor = keys.vendor.get(keycode)
        if (vendor && !this.#borrowed.has(keycode)) this.#borrowed.set(keycode, vendor)
        this.#client.ChangeKeyboardMapping(keycode, 2, keysyms)
      }
      this.#record()
      // No fixed pause after it: X delivers the MappingNotify before the keys, and the binding
      // is processed (this round trip) before they are sent. Measured: Chromium, xterm and a
      // GTK entry (yad) read the typing corpus exactly, also with both cores kept busy; the
      // fixed 150 ms pause that was here was most of the time of typing text off the keymap.
      await this.#sync()
      // But an application that answers pings is asked one first: its answer comes once it has
      // handled the mapping's notifications, queued before the ping. Without it, Chromium once
      // (in a full test run on a loaded machine) read a key pressed right after a rebind under
      // the keycode's previous binding. One round trip to it per binding.
      if (this.#ping) await this.#focusedHasRead()
    }
    const onBound = strokes.some(({ keycode }) => this.#bound.has(keycode))
    if (onBound && this.#quiet) {
      this.#watch?.end()
      this.#watch = await this.#quiet.watch()
      this.#check()
    }
    const { KeyPress, KeyRelease } = this.#xtest
    for (const { keycode, shift } of strokes) {
      if (shift) this.#xtest.FakeInput(KeyPress, keys.shiftKeycode!, 0, 0, 0, 0)
      this.#xtest.FakeInput(KeyPress, keycode, 0, 0, 0, 0)
      this.#xtest.FakeInput(KeyRelease, keycode, 0, 0, 0, 0)
      if (shift) this.#xtest.FakeInput(KeyRelease, keys.shiftKeycode!, 0, 0, 0, 0)
    }
    await this.#sync()
    this.#strokesSinceBind += strokes.length
    if (onBound) {
      this.#boundSinceBind = true
      this.#lastStrokeAt = Date.now()
    }
  }

  /**
   * For an application that does not answer pings: resolves once it has handled every key sent
   * so far, by one of two paths.
   * - It redraws a synthetic Expose sent behind the keys (focus-expose.ts): xterm, and any
   *   Xlib/Xt client that clears an exposed border pixel as xterm does. A proof, with no pause.
   * - Otherwise it drew since the keys and then stopped, not before the timed pause
   *   (focus-quiet.ts): a guess, for a client that repaints otherwise or ignores synthetic
   *   exposure, for an X server without DAMAGE, and when the focus moved since the keys were
   *   sent (a redraw of the window focused now says nothing of the one that got them).
   * A window is first given `exposeTimeoutMs` to redraw; one that did not is remembered as
   * silent, and from then on whichever path ends first ends the wait.
   */
  async #focusedHasHandled (): Promise<void> {
    const quiet = () => {
      const notBefore = this.#lastStrokeAt + this.#pauseMs + this.#perKeyMs * this.#strokesSinceBind
      if (this.#watch) return this.#watch.quiet({ quietMs: this.#quietMs, notBefore, maxMs: this.#quietMaxMs }).then(() => {})
      return sleep(Math.max(0, notBefore - Date.now()))
    }
    const probe = await this.#sendExpose()
    if (!probe) {
      await quiet()
      return
    }
    try {
      const silent = this.#silent.has(probe.focus)
      let redrew = false
      const redraw = probe.redrawn(silent ? this.#quietMaxMs : this.#exposeTimeoutMs).then((seen) => { redrew = seen })
      if (silent) await Promise.race([redraw, quiet()])
      else await redraw
      if (redrew) this.#silent.delete(probe.focus)
      else if (!silent) {
        if (this.#silent.size >= 64) this.#silent.clear()
        this.#silent.add(probe.focus)
        await quiet()
      }
    } finally {
      probe.end()
    }
  }

  /**
   * Sends a synthetic Expose to the focused application's windows behind the keys (on this
   * connection, so X queues it after them), watched for their redraw; undefined when there is
   * nothing to expose, or the focus moved since the keys were sent (a redraw of the window
   * focused now says nothing of the one that got them).
   */
  async #sendExpose (): Promise<ExposeProbe | undefined> {
    const probe = await this.#expose?.arm().catch(() => undefined)
    if (!probe) return undefined
    try {
      this.#check()
      if (this.#watch && this.#watch.window !== probe.focus) { probe.end(); return undefined }
      // A window destroyed since is a BadWindow for that request alone, not a lost connection.
      for (const target of probe.targets) this.#client.SendEvent(target.window, 0, 0, exposeEvent(target), () => true)
      await this.#sync()
      return probe
    } catch (error) {
      probe.end()
      throw error
    }
  }

  /** Before close() unbinds: whether the focused application has read every key (a ping or an Expose redrawn within the timed pause). */
  async #caughtUpBeforeClose (): Promise<boolean> {
    try {
      if (await this.#focusedHasRead()) return true
      const probe = await this.#sendExpose()
      if (!probe) return false
      try {
        return await probe.redrawn(Math.max(0, this.#lastStrokeAt + this.#pauseMs - Date.now()))
      } finally {
        probe.end()
      }
    } catch {
      return false
    }
  }

  /** Records what is bound now on the root window (typer-record.ts), for a typer started after this one is killed. */
  #record (): void {
    if (this.#recordAtom === undefined) return
    const bindings = new Map<number, RecordedBinding>()
    for (const [keycode, [keysym]] of this.#bound) bindings.set(keycode, { keysym, row: this.#borrowed.get(keycode) ?? [] })
    this.#client.ChangeProperty(0, this.#root, this.#recordAtom, INTEGER, 32, encodeRecord(bindings))
  }

  /** Gives back the keycodes a typer killed before close() left bound, by its record. */
  async #reclaim (): Promise<void> {
    if (this.#recordAtom === undefined) return
    const atom = this.#recordAtom
    const { format, data } = await reply<{ format: number, data: Buffer }>((cb) => this.#client.GetProperty(0, this.#root, atom, INTEGER, 0, 4096, cb))
    if (format !== 32 || !data.length) return
    const values = Array.from({ length: data.length >> 2 }, (_, i) => data.readUInt32LE(4 * i))
    const rows = await new Promise<number[][]>((resolve, reject) => this.#client.GetKeyboardMapping(this.#minKeycode, this.#count, (error, rows) => error ? reject(error) : resolve(rows)))
    for (const { keycode, row } of leftBound(decodeRecord(values), this.#minKeycode, rows)) this.#client.ChangeKeyboardMapping(keycode, row.length, row)
    this.#client.DeleteProperty(this.#root, atom)
    await this.#sync()
  }

  /** True once the focused application answered a ping sent after everything so far. */
  async #focusedHasRead (): Promise<boolean> {
    if (!this.#ping) return false
    const answered = await this.#ping.ping(this.#pingTimeoutMs).catch(() => false)
    this.#check()
    return answered
  }

  #readKeymap (): Promise<LiveKeys> {
    return new Promise((resolve, reject) => {
      this.#client.GetKeyboardMapping(this.#minKeycode, this.#count, (error, rows) => {
        if (error) reject(error)
        else resolve(liveKeys({ minKeycode: this.#minKeycode, rows }, this.#bound))
      })
    })
  }

  async #sync (): Promise<void> {
    await this.#client.sync()
    this.#check()
  }

  #check (): void {
    if (this.#connection.lost) throw this.#connection.refusal()!
  }
}
