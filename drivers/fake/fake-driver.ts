/**
 * A recording driver with an in-memory screen: the unit tests of everything above the driver
 * run against it, and `--driver fake` lets anyone try the API without a display. It is never
 * evidence that a desktop works; the end-to-end tests drive a real X server for that.
 */
import type { Driver, MouseButton, Point, RawImage, Rect, Size } from '../../src/driver.ts'
import type { KeyInfo } from '../../src/keys/index.ts'

export type FakeCall =
  | { call: 'moveMouse', x: number, y: number }
  | { call: 'buttonDown' | 'buttonUp', button: MouseButton }
  | { call: 'wheel', dx: number, dy: number }
  | { call: 'keyDown' | 'keyUp', key: string }
  | { call: 'typeText', text: string }
  | { call: 'screenshot', region?: Rect }

export interface FakeDriverOptions {
  screen?: Size
  /** Called before every recorded primitive; throw from it to inject a failure. */
  beforeCall?: (call: FakeCall) => void | Promise<void>
}

export class FakeDriver implements Driver {
  readonly name = 'fake'
  readonly calls: FakeCall[] = []
  readonly screen: Size
  /** The in-memory screen, RGBA; tests may paint on it. */
  readonly pixels: Buffer
  #cursor: Point = { x: 0, y: 0 }
  #ready = false
  #beforeCall?: FakeDriverOptions['beforeCall']

  constructor (options: FakeDriverOptions = {}) {
    this.screen = options.screen ?? { width: 1280, height: 800 }
    this.#beforeCall = options.beforeCall
    this.pixels = Buffer.alloc(this.screen.width * this.screen.height * 4, 0xff)
  }

  async start (): Promise<void> { this.#ready = true }
  async close (): Promise<void> { this.#ready = false }
  ready (): boolean { return this.#ready }
  /** Simulates the desktop going away (or coming back). */
  setReady (ready: boolean): void { this.#ready = ready }
  setBeforeCall (hook: FakeDriverOptions['beforeCall']): void { this.#beforeCall = hook }

  async screenSize (): Promise<Size> { return { ...this.screen } }
  async cursorPosition (): Promise<Point> { return { ...this.#cursor } }

  async moveMouse (point: Point): Promise<void> {
    await this.#record({ call: 'moveMouse', x: point.x, y: point.y })
    this.#cursor = { ...point }
  }

  async buttonDown (button: MouseButton): Promise<void> { await this.#record({ call: 'buttonDown', button }) }
  async buttonUp (button: MouseButton): Promise<void> { await this.#record({ call: 'buttonUp', button }) }
  async wheel (dx: number, dy: number): Promise<void> { await this.#record({ call: 'wheel', dx, dy }) }
  async keyDown (key: KeyInfo): Promise<void> { await this.#record({ call: 'keyDown', key: key.name }) }
  async keyUp (key: KeyInfo): Promise<void> { await this.#record({ call: 'keyUp', key: key.name }) }
  async typeText (text: string): Promise<void> { await this.#record({ call: 'typeText', text }) }

  async screenshot (region?: Rect): Promise<RawImage> {
    await this.#record(region ? { call: 'screenshot', region } : { call: 'screenshot' })
    const { x, y, width, height } = region ?? { x: 0, y: 0, ...this.screen }
    const data = Buffer.allocUnsafe(width * height * 4)
    for (let row = 0; row < height; row++) {
      const from = ((y + row) * this.screen.width + x) * 4
      this.pixels.copy(data, row * width * 4, from, from + width * 4)
    }
    return { width, height, order: 'rgba', data }
  }

  /** Paints a filled rectangle (RGB) on the in-memory screen. */
  fill (rect: Rect, [r, g, b]: [number, number, number]): void {
    for (let row = rect.y; row < rect.y + rect.height; row++) {
      for (let col = rect.x; col < rect.x + rect.width; col++) {
        const i = (row * this.screen.width + col) * 4
        this.pixels[i] = r
        this.pixels[i + 1] = g
        this.pixels[i + 2] = b
      }
    }
  }

  async #record (call: FakeCall): Promise<void> {
    await this.#beforeCall?.(call)
    this.calls.push(call)
  }
}
