/**
 * Reads the screen's pixels and the pointer straight from the X server over a pure-JavaScript
 * connection (node-x11 GetImage and QueryPointer on the root window), in the server's own
 * process. The nut driver's worker would otherwise send 4 MB of pixels over IPC for every
 * screenshot, and a round trip through it for every cursor read; this asks X directly.
 * A lost X connection is an error here, never an exit.
 *
 * Pixels come through MIT-SHM when the X server takes a shared segment from us (a local
 * server: node-x11 passes a tmpfs file's descriptor, and reads it back with one pread), else
 * through the socket (core GetImage, about ten times slower for a full screen).
 */
import { LostConnection } from './lost-connection.ts'
import { type Display, type XClient } from 'x11'
import { createClient } from './connect.ts'
import { DamageWatch } from './damage-watch.ts'
import { openShmGrabber, ReadBackProvider, type ShmGrabber } from './shm-grabber.ts'
import type { Point, RawImage, Rect, SettleOptions, Settled, Size } from '../../src/driver/driver.ts'

const Z_PIXMAP = 2
const ALL_PLANES = 0xffffffff

export class DisplayReader {
  readonly #client: XClient
  readonly #root: number
  readonly size: Size
  #shm: ShmGrabber | undefined
  #damage: DamageWatch | undefined
  readonly #connection = new LostConnection()

  private constructor (client: XClient, root: number, size: Size) {
    this.#client = client
    this.#root = root
    this.size = size
    client.on('error', (error: Error & { error?: number }) => {
      // X protocol errors (numeric `error`) answer one request; anything else is the socket.
      if (typeof error.error !== 'number') this.#connection.lose(error)
    })
    client.on('end', () => this.#connection.lose(new Error('the X connection closed')))
  }

  /** Why the connection is gone, or undefined while it lives. */
  get lost (): Error | undefined { return this.#connection.lost }

  /** Calls `listener` once when the connection ends by itself (X went away or hangs), not after close(). */
  onLost (listener: (error: Error) => void): void {
    this.#connection.onLost(listener)
  }

  /**
   * Connects to `display`. Rejects when its root window's pixels are not 32-bit little-endian
   * BGRX (depth 24 or 32), the only layout read here; the caller then captures another way.
   */
  static open (display: string): Promise<DisplayReader> {
    return new Promise((resolve, reject) => {
      const provider = new ReadBackProvider()
      const client = createClient(display, (error, info) => {
        if (error) { reject(error); return }
        const screen = info.screen[0]! as Display['screen'][number] & { root_depth: number }
        const format = info.format?.[screen.root_depth]
        if (![24, 32].includes(screen.root_depth) || format?.bits_per_pixel !== 32 || info.image_byte_order !== 0) {
          client.terminate()
          reject(new Error(`the root window is depth ${screen.root_depth}, ${format?.bits_per_pixel ?? '?'} bits a pixel, byte order ${info.image_byte_order}: only 32-bit LSB-first pixels are read directly`))
          return
        }
        const size = { width: screen.pixel_width, height: screen.pixel_height }
        const reader = new DisplayReader(client, screen.root, size)
        // Without shared memory the socket does the same work, only slower; without DAMAGE,
        // settling compares grabs (the caller's fallback).
        void Promise.allSettled([
          openShmGrabber(client, screen.root, size, provider).then((shm) => { reader.#shm = shm }),
          DamageWatch.open(client, screen.root).then((damage) => { reader.#damage = damage }),
        ]).then(() => resolve(reader))
      }, { shm: provider })
      client.once('error', reject)
    })
  }

  /** Whether pixels come through MIT-SHM (else through the socket). */
  get sharedMemory (): boolean { return this.#shm !== undefined }

  /** The whole screen, or a rectangle of it, as tightly packed BGRA rows (a buffer of the caller's own). */
  grab (region?: Rect): Promise<RawImage> {
    if (this.#connection.lost) return Promise.reject(this.#connection.refusal()!)
    const { x, y, width, height } = region ?? { x: 0, y: 0, ...this.size }
    if (this.#shm) return this.#shm.grab({ x, y, width, height })
    return new Promise((resolve, reject) => {
      this.#client.GetImage(Z_PIXMAP, this.#root, x, y, width, height, ALL_PLANES, (error, image) => {
        if (error) { reject(error); return }
        // 32 bits a pixel pads no row: width * 4 bytes each, as the driver contract wants.
        resolve({ width, height, order: 'bgra', data: image.data.subarray(0, width * height * 4) })
      })
    })
  }

  /** Whether the X server reports changes (XDamage), so `settle` needs no grabs. */
  get reportsDamage (): boolean { return this.#damage !== undefined }

  /** Waits until the screen stopped changing, from X's damage reports; undefined without DAMAGE. */
  settle (options: SettleOptions): Promise<Settled> | undefined {
    if (this.#connection.lost) return Promise.reject(this.#connection.refusal()!)
    return this.#damage?.settle(options)
  }

  /** Where the pointer is, in root window pixels. */
  pointer (): Promise<Point> {
    if (this.#connection.lost) return Promise.reject(this.#connection.refusal()!)
    return new Promise((resolve, reject) => {
      this.#client.QueryPointer(this.#root, (error, reply) => {
        if (error) reject(error)
        else resolve({ x: reply.rootX, y: reply.rootY })
      })
    })
  }

  close (): void {
    this.#connection.close()
    this.#damage?.close()
    this.#client.terminate()
  }
}
