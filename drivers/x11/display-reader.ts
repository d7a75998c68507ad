/**
 * Reads the screen's pixels and the pointer straight from the X server over a pure-JavaScript
 * connection (node-x11 GetImage and QueryPointer on the root window), in the server's own
 * process. The nut driver's worker would otherwise send 4 MB of pixels over IPC for every
 * screenshot, and a round trip through it for every cursor read; this asks X directly.
 * A lost X connection is an error here, never an exit.
 */
import { type Display, type XClient } from 'x11'
import { createClient } from './connect.ts'
import type { Point, RawImage, Rect, Size } from '../../src/driver.ts'

const Z_PIXMAP = 2
const ALL_PLANES = 0xffffffff

export class DisplayReader {
  readonly #client: XClient
  readonly #root: number
  readonly size: Size
  #failure: Error | undefined
  #closed = false
  readonly #lostListeners: Array<(error: Error) => void> = []

  private constructor (client: XClient, root: number, size: Size) {
    this.#client = client
    this.#root = root
    this.size = size
    client.on('error', (error: Error & { error?: number }) => {
      // X protocol errors (numeric `error`) answer one request; anything else is the socket.
      if (typeof error.error !== 'number') this.#lose(error)
    })
    client.on('end', () => this.#lose(new Error('the X connection closed')))
  }

  /** Why the connection is gone, or undefined while it lives. */
  get lost (): Error | undefined { return this.#failure }

  /** Calls `listener` once when the connection ends by itself (X went away or hangs), not after close(). */
  onLost (listener: (error: Error) => void): void {
    this.#lostListeners.push(listener)
  }

  #lose (error: Error): void {
    if (this.#failure) return
    this.#failure = error
    if (!this.#closed) for (const listener of this.#lostListeners) listener(error)
  }

  /**
   * Connects to `display`. Rejects when its root window's pixels are not 32-bit little-endian
   * BGRX (depth 24 or 32), the only layout read here; the caller then captures another way.
   */
  static open (display: string): Promise<DisplayReader> {
    return new Promise((resolve, reject) => {
      const client = createClient(display, (error, info) => {
        if (error) { reject(error); return }
        const screen = info.screen[0]! as Display['screen'][number] & { root_depth: number }
        const format = info.format?.[screen.root_depth]
        if (![24, 32].includes(screen.root_depth) || format?.bits_per_pixel !== 32 || info.image_byte_order !== 0) {
          client.terminate()
          reject(new Error(`the root window is depth ${screen.root_depth}, ${format?.bits_per_pixel ?? '?'} bits a pixel, byte order ${info.image_byte_order}: only 32-bit LSB-first pixels are read directly`))
          return
        }
        resolve(new DisplayReader(client, screen.root, { width: screen.pixel_width, height: screen.pixel_height }))
      })
      client.once('error', reject)
    })
  }

  /** The whole screen, or a rectangle of it, as tightly packed BGRA rows. */
  grab (region?: Rect): Promise<RawImage> {
    if (this.#failure) return Promise.reject(new Error(`lost the X connection: ${this.#failure.message}`))
    const { x, y, width, height } = region ?? { x: 0, y: 0, ...this.size }
    return new Promise((resolve, reject) => {
      this.#client.GetImage(Z_PIXMAP, this.#root, x, y, width, height, ALL_PLANES, (error, image) => {
        if (error) { reject(error); return }
        // 32 bits a pixel pads no row: width * 4 bytes each, as the driver contract wants.
        resolve({ width, height, order: 'bgra', data: image.data.subarray(0, width * height * 4) })
      })
    })
  }

  /** Where the pointer is, in root window pixels. */
  pointer (): Promise<Point> {
    if (this.#failure) return Promise.reject(new Error(`lost the X connection: ${this.#failure.message}`))
    return new Promise((resolve, reject) => {
      this.#client.QueryPointer(this.#root, (error, reply) => {
        if (error) reject(error)
        else resolve({ x: reply.rootX, y: reply.rootY })
      })
    })
  }

  close (): void {
    this.#closed = true
    this.#client.terminate()
  }
}
