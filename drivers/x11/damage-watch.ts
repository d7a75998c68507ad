/**
 * When the screen stopped changing, from the X server's own word: an XDamage object on the
 * root window (reporting level NonEmpty: one DamageNotify when its damage goes from empty to
 * not empty) is re-armed with DamageSubtract after each report while someone waits, so a wait
 * costs one small event per change, and nothing at all while no one waits. The screen counts
 * as settled once no report came for the quiet window; the cap bounds waiting on a screen
 * that never stops (a blinking cursor, a video).
 */
import type { XClient } from 'x11'
import type { SettleOptions, Settled } from '../../src/driver/driver.ts'
import { ActionAborted } from '../../src/errors/errors.ts'

export const NON_EMPTY = 3
export const NONE = 0

/** The part of node-x11's DAMAGE extension (lib/ext/damage.js) used here. */
export interface DamageExtension {
  Create (damage: number, drawable: number, level: number): void
  Subtract (damage: number, repair: number, parts: number): void
  Destroy (damage: number): void
}
export type DamageClient = XClient & {
  require (extension: 'damage', callback: (error: Error | null, ext: DamageExtension) => void): void
  AllocID (): number
}

export class DamageWatch {
  readonly #ext: DamageExtension
  readonly #damage: number
  /** Called on every report while a wait is on. */
  #onChange: (() => void) | undefined

  private constructor (client: DamageClient, ext: DamageExtension, root: number) {
    this.#ext = ext
    this.#damage = client.AllocID()
    ext.Create(this.#damage, root, NON_EMPTY)
    client.on('event', (event: { name?: string, damage?: number }) => {
      if (event.name !== 'DamageNotify' || event.damage !== this.#damage) return
      if (!this.#onChange) return
      // Empty again, so the next change reports anew.
      this.#ext.Subtract(this.#damage, NONE, NONE)
      this.#onChange()
    })
  }

  /** A watch on `root`, or a rejection when the X server has no DAMAGE extension. */
  static open (client: XClient, root: number): Promise<DamageWatch> {
    const x = client as DamageClient
    return new Promise((resolve, reject) => {
      x.require('damage', (error, ext) => {
        if (error || !ext) reject(error ?? new Error('no DAMAGE extension'))
        else resolve(new DamageWatch(x, ext, root))
      })
    })
  }

  /**
   * Resolves once no change was reported for `quietMs`, or after `maxMs`. One wait at a
   * time (the executor's queue sees to it); a second would take over the first's reports.
   */
  settle ({ quietMs, maxMs, signal }: SettleOptions): Promise<Settled> {
    return new Promise((resolve, reject) => {
      const started = performance.now()
      let lastChange = started
      let changes = 0
      let timer: NodeJS.Timeout | undefined
      const finish = (quiet: boolean) => {
        clearTimeout(timer)
        this.#onChange = undefined
        signal?.removeEventListener('abort', aborted)
        resolve({ waitedMs: performance.now() - started, changes, quiet, via: 'damage' })
      }
      const aborted = () => {
        clearTimeout(timer)
        this.#onChange = undefined
        reject(new ActionAborted('the client closed the connection while the screen settled'))
      }
      const check = () => {
        const now = performance.now()
        if (now - lastChange >= quietMs) { finish(true); return }
        if (now - started >= maxMs) { finish(false); return }
        timer = setTimeout(check, Math.max(1, Math.min(lastChange + quietMs, started + maxMs) - now))
      }
      if (signal?.aborted) { aborted(); return }
      signal?.addEventListener('abort', aborted, { once: true })
      this.#onChange = () => { changes++; lastChange = performance.now() }
      // What was damaged before the wait is forgotten; a change from now on reports.
      this.#ext.Subtract(this.#damage, NONE, NONE)
      check()
    })
  }

  close (): void {
    this.#onChange = undefined
  }
}
