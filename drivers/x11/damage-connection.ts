/**
 * An X connection of its own that watches what windows draw (the DAMAGE extension), shared by
 * the typer's two ways of knowing an application has caught up with its keys (focus-quiet.ts,
 * focus-expose.ts). Its own, not the typer's: the windows watched may be destroyed meanwhile,
 * and the X errors that follow (BadWindow, BadDamage) are no concern of the typer's connection,
 * where any error means the connection is lost.
 */
import { createClient } from './connect.ts'
import type { DamageClient as DamageWatchClient, DamageExtension } from './damage-watch.ts'
import { reply } from './reply.ts'

/** PointerRoot: keys go to the window under the pointer. */
const POINTER_ROOT = 1

export type DamageClient = DamageWatchClient & {
  QueryPointer (window: number, callback: (error: Error | null, reply: { child: number }) => void): void
}
export interface DamageNotify { name?: string, damage?: number, area?: { x: number, y: number, w: number, h: number } }

/** What open() found: the connection, its DAMAGE extension, the root and the resource mask (which client a window is of). */
export interface DamageLink<C extends DamageClient> { client: C, ext: DamageExtension, root: number, resourceMask: number }

/** Connects to `display`, or rejects when the X server has no DAMAGE extension. */
export function openDamageLink<C extends DamageClient> (display: string): Promise<DamageLink<C>> {
  return new Promise((resolve, reject) => {
    const client = createClient(display, (error, info) => {
      if (error) { reject(error); return }
      const x = client as C
      x.require('damage', (damageError, ext) => {
        if (damageError || !ext) { client.terminate(); reject(damageError ?? new Error('no DAMAGE extension')); return }
        resolve({ client: x, ext, root: info.screen[0]!.root, resourceMask: (info as unknown as { resource_mask: number }).resource_mask })
      })
      // X that stops answering must not hold typing long: the waits are bounded anyway.
    }, { requestTimeoutMs: 1000 })
    client.once('error', reject)
  })
}

export class DamageConnection<C extends DamageClient> {
  protected readonly client: C
  protected readonly ext: DamageExtension
  protected readonly root: number
  /** By damage object: what its reports do. */
  protected readonly onDamage = new Map<number, (event: DamageNotify) => void>()
  protected closed = false

  protected constructor ({ client, ext, root }: DamageLink<C>) {
    this.client = client
    this.ext = ext
    this.root = root
    client.on('event', (event: DamageNotify) => {
      if (event.name === 'DamageNotify' && event.damage !== undefined) this.onDamage.get(event.damage)?.(event)
    })
    // A window that went away under the watch: its damage simply stops.
    client.on('error', () => {})
  }

  close (): void {
    this.closed = true
    this.onDamage.clear()
    this.client.terminate()
  }

  /** A request on a connection that may have ended (X went away): then there is nothing to watch. */
  protected send (request: () => void): void {
    if (this.closed) return
    try {
      request()
    } catch {}
  }

  /** The window that gets the keys: the focus, or the top-level window under the pointer. */
  protected async keyWindow (): Promise<number | undefined> {
    const { focus } = await reply<{ focus: number }>((cb) => this.client.GetInputFocus(cb))
    if (focus > POINTER_ROOT && focus !== this.root) return focus
    const { child } = await reply<{ child: number }>((cb) => this.client.QueryPointer(this.root, cb))
    return child || undefined
  }
}
