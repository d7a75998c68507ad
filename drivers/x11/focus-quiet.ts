/**
 * Knows when the focused application has caught up with keys sent to it, for applications that
 * do not answer the window manager's ping (xterm). Such an application draws as it reads keys
 * (the echo of what was typed), so while it is behind, the X server reports damage to its
 * windows; once it has caught up, it stops drawing. A watch starts before a phase's keys are
 * sent; before the typer rebinds spare keycodes, it waits until the application has drawn
 * since, and then drawn nothing for a while. A fixed pause alone was too short on a loaded
 * machine: xterm, with every core busy, read the last keys of a binding under the next one.
 *
 * It has an X connection of its own (damage-connection.ts).
 */
import { NON_EMPTY, NONE } from './damage-watch.ts'
import { DamageConnection, openDamageLink, type DamageClient } from './damage-connection.ts'

export interface QuietOptions {
  /** Drawing must have stopped for this long. */
  quietMs: number
  /** Never before this time (Date.now() clock): the timed pause still holds. */
  notBefore: number
  /** Resolves by this long after the call whatever is drawn, or when nothing is (an application that shows no keys). */
  maxMs: number
}

/** What the window that gets the keys drew since the watch began. */
export interface FocusWatch {
  /** The window watched (and its subwindows): the one that got the keys; undefined when there was none (the root is watched). */
  readonly window: number | undefined
  /**
   * Resolves once the window has drawn since the watch began and then nothing for `quietMs`,
   * not before `notBefore`, and at most `maxMs` after the call: true when it caught up, false
   * when the time ran out.
   */
  quiet (options: QuietOptions): Promise<boolean>
  end (): void
}

export class FocusQuiet extends DamageConnection<DamageClient> {
  /** A watcher on `display`, or a rejection when the X server has no DAMAGE extension. */
  static async open (display: string): Promise<FocusQuiet> {
    return new FocusQuiet(await openDamageLink<DamageClient>(display))
  }

  /** Starts watching what the window that gets the keys draws (the focus, or the top-level window under the pointer). */
  async watch (): Promise<FocusWatch> {
    const window = await this.keyWindow().catch(() => undefined)
    const damage = this.client.AllocID()
    let lastDrawn: number | undefined
    let wake: (() => void) | undefined
    this.onDamage.set(damage, () => {
      lastDrawn = Date.now()
      // Empty again, so the next drawing reports anew.
      this.send(() => this.ext.Subtract(damage, NONE, NONE))
      wake?.()
    })
    // Damage to a window counts what is drawn in its subwindows too (xterm draws in a child).
    this.send(() => this.ext.Create(damage, window ?? this.root, NON_EMPTY))
    // A new damage object reports its whole window at once: that report is answered (the
    // first round trip) and its Subtract processed (the second) before the keys are sent, so
    // what is seen from now on is what the application draws for them.
    await this.client.sync().catch(() => {})
    await this.client.sync().catch(() => {})
    lastDrawn = undefined
    const end = () => {
      if (!this.onDamage.delete(damage)) return
      this.send(() => this.ext.Destroy(damage))
    }
    return {
      window,
      end,
      quiet: async ({ quietMs, notBefore, maxMs }) => {
        const deadline = Date.now() + maxMs
        for (;;) {
          const now = Date.now()
          const quietAt = lastDrawn === undefined ? deadline : Math.max(notBefore, lastDrawn + quietMs)
          if (lastDrawn !== undefined && now >= quietAt) return true
          if (now >= deadline || this.closed || !this.onDamage.has(damage)) return false
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, Math.max(1, Math.min(quietAt, deadline) - now))
            function done () { clearTimeout(timer); wake = undefined; resolve() }
            // The first drawing moves the time to look again.
            wake = lastDrawn === undefined ? done : undefined
          })
        }
      },
    }
  }
}
