/**
 * Proves that the focused application has handled every key sent to it so far, for
 * applications that do not answer the window manager's ping (xterm). That is the fact the
 * typer needs before it rebinds a spare keycode: Xlib looks a key's keysym up when the
 * application handles the key, and refreshes its copy of the keymap as soon as it *reads* a
 * MappingNotify off the socket, so a key read but not yet handled when a rebind's notification
 * arrives is looked up under the new binding. Seeing the application fetch the new keymap
 * proves nothing; neither does a fixed pause, nor "it stopped drawing" (guesses at how long a
 * loaded machine takes).
 *
 * How. After a phase's keys, the typer sends a synthetic Expose (SendEvent with an empty event
 * mask: to the client that created the window) on the connection the keys went through, so the
 * X server queues it behind them. Xlib and Xt hand events over in queue order, and xterm's
 * `allowSendEvents` filter applies to key and button events only: once the application has
 * redrawn what the Expose named, it has handled every key before it. The rectangle named is the
 * window's bottom-right pixel, which in xterm's text window is the internal border: xterm
 * answers with a ClearArea of exactly that pixel, which XDamage (RawRectangles) reports even
 * though no pixel changes — a rectangle nothing else draws (echoed text is drawn in character
 * cells, scrolling copies the text area), so the report cannot be the echo of the keys drawn
 * before the Expose was handled.
 *
 * An application that does not redraw exactly the pixel it was told is exposed is never taken
 * for one that did: the wait ends at its deadline, false, and the typer falls back to watching
 * it draw (focus-quiet.ts). Its own connection, as focus-quiet.ts has (damage-connection.ts).
 */
import { NONE } from './damage-watch.ts'
import { DamageConnection, openDamageLink, type DamageClient, type DamageLink } from './damage-connection.ts'
import { reply } from './reply.ts'

/** DamageReportRawRectangles: one report per rectangle drawn. */
const RAW_RECTANGLES = 0
const INPUT_OUTPUT = 1
const VIEWABLE = 2
const EXPOSURE_MASK = 0x8000
/** How far below the focus window to look, and how many windows to expose at most. */
const MAX_DEPTH = 4
const MAX_TARGETS = 8

interface Attributes { klass: number, mapState: number, allEventMasks: number }
type ExposeClient = DamageClient & {
  GetWindowAttributes (window: number, callback: (error: Error | null, attributes: Attributes) => void): void
}

/** One window to send an Expose to, and the rectangle it names. */
export interface ExposeTarget {
  window: number
  x: number
  y: number
  width: number
  height: number
}

export interface ExposeProbe {
  /** The window that holds the focus: what the typer remembers as redrawing, or not. */
  readonly focus: number
  /** The Expose events to send, on the connection the keys went through, after them. */
  readonly targets: readonly ExposeTarget[]
  /** Resolves true once one target's rectangle was drawn; false after `timeoutMs` or end(). */
  redrawn (timeoutMs: number): Promise<boolean>
  end (): void
}

/** The Expose event for `target`, in the shape node-x11's SendEvent packs (count 0: the last of its series). */
export function exposeEvent ({ window, x, y, width, height }: ExposeTarget) {
  return { type: 12, name: 'Expose', seq: 0, wid: window, x, y, width, height, count: 0 }
}

/**
 * The windows of the focus window's client to expose: the focus window and its descendants
 * that are mapped, InputOutput, and listened to for exposure (xterm's text window is a child
 * of its shell window). Only the focus window's client's (same resource base): an embedded
 * window of another client redrawing proves nothing about the one that gets the keys.
 */
export function exposeTargets (windows: ReadonlyArray<{ window: number, attributes: Attributes, width: number, height: number }>, focus: number, resourceMask: number): ExposeTarget[] {
  const client = (focus & ~resourceMask) >>> 0
  return windows
    .filter(({ window, attributes, width, height }) => ((window & ~resourceMask) >>> 0) === client &&
      attributes.klass === INPUT_OUTPUT && attributes.mapState === VIEWABLE &&
      (attributes.allEventMasks & EXPOSURE_MASK) !== 0 && width >= 2 && height >= 2)
    .slice(0, MAX_TARGETS)
    .map(({ window, width, height }) => ({ window, x: width - 1, y: height - 1, width: 1, height: 1 }))
}

export class FocusExpose extends DamageConnection<ExposeClient> {
  readonly #resourceMask: number

  private constructor (link: DamageLink<ExposeClient>) {
    super(link)
    this.#resourceMask = link.resourceMask
  }

  /** A prober on `display`, or a rejection when the X server has no DAMAGE extension. */
  static async open (display: string): Promise<FocusExpose> {
    return new FocusExpose(await openDamageLink<ExposeClient>(display))
  }

  /**
   * Finds the windows to expose and starts watching what is drawn in them; undefined when the
   * focus is on no window of an application (the root, none) or it has none to expose. The
   * watch is in place (a round trip) before this resolves: the Expose may be sent then.
   */
  async arm (): Promise<ExposeProbe | undefined> {
    const focus = await this.keyWindow()
    if (focus === undefined) return undefined
    const targets = exposeTargets(await this.#subtree(focus), focus, this.#resourceMask)
    if (!targets.length) return undefined
    let seen = false
    let wake: (() => void) | undefined
    const damages = targets.map((target) => {
      const damage = this.client.AllocID()
      this.onDamage.set(damage, ({ area }) => {
        if (!area) return
        const { x, y, w, h } = area
        if (x !== target.x || y !== target.y || w !== target.width || h !== target.height) return
        seen = true
        wake?.()
      })
      this.send(() => this.ext.Create(damage, target.window, RAW_RECTANGLES))
      return damage
    })
    await this.client.sync().catch(() => {})
    // What a new damage object reports first is its whole window: never a target's one pixel.
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      for (const damage of damages) {
        this.onDamage.delete(damage)
        this.send(() => { this.ext.Subtract(damage, NONE, NONE); this.ext.Destroy(damage) })
      }
      wake?.()
    }
    return {
      focus,
      targets,
      end,
      redrawn: (timeoutMs) => new Promise<boolean>((resolve) => {
        if (seen || ended || this.closed) { resolve(seen); return }
        const timer = setTimeout(done, timeoutMs)
        function done () { clearTimeout(timer); wake = undefined; resolve(seen) }
        wake = done
      }),
    }
  }

  /** `window` and its descendants (breadth first, a few levels), with what exposeTargets() looks at. */
  async #subtree (window: number) {
    const found: Array<{ window: number, attributes: Attributes, width: number, height: number }> = []
    let level = [window]
    for (let depth = 0; depth < MAX_DEPTH && level.length && found.length < 4 * MAX_TARGETS; depth++) {
      const next: number[] = []
      for (const w of level) {
        const [attributes, geometry, tree] = await Promise.all([
          reply<Attributes>((cb) => this.client.GetWindowAttributes(w, cb)),
          reply<{ width: number, height: number }>((cb) => this.client.GetGeometry(w, cb)),
          reply<{ children: number[] }>((cb) => this.client.QueryTree(w, cb)),
        ]).catch(() => [])
        if (!attributes || !geometry || !tree) continue
        found.push({ window: w, attributes, width: geometry.width, height: geometry.height })
        if (attributes.mapState === VIEWABLE) next.push(...tree.children)
      }
      level = next
    }
    return found
  }
}
