/**
 * The contract between the executor and a desktop. A driver is thin on purpose: it knows
 * input primitives and pixels, nothing of actions, adapters, HTTP, scaling or key aliases.
 * Everything with meaning (hold_keys, n-clicks, drags, key names, scaling) lives above it,
 * once, in src/executor.
 *
 * Coordinates are always real screen pixels. Keys are always canonical key names from
 * src/keys (with their X keysym at hand), never a dialect's spelling.
 */
import type { KeyInfo } from './keys/index.ts'

export type MouseButton = 'left' | 'right' | 'middle' | 'back' | 'forward'

export interface Point {
  x: number
  y: number
}

export interface Size {
  width: number
  height: number
}

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

/** Raw pixels as the X server hands them out: 4 bytes a pixel, rows of `width * 4` bytes. */
export interface RawImage {
  width: number
  height: number
  /** Byte order of each pixel. X11 ZPixmaps on little-endian machines are 'bgra'. */
  order: 'rgba' | 'bgra'
  data: Buffer
}

export interface Driver {
  /** A short name for logs and GET /health ('nut', 'xdotool', 'fake'). */
  readonly name: string

  /** Connects to the desktop. Rejects with a clear error when the display does not answer. */
  start(): Promise<void>

  /** Disconnects and frees whatever start() took. Safe to call twice. */
  close(): Promise<void>

  /** True while the driver can take input (started, and its desktop connection alive). */
  ready(): boolean

  /** The real screen size in pixels. */
  screenSize(): Promise<Size>

  /** Warps the pointer to a point of the real screen. Motion events are delivered as usual. */
  moveMouse(point: Point): Promise<void>

  /** Where the pointer is now, in real screen pixels. */
  cursorPosition(): Promise<Point>

  /** Presses a mouse button at the current pointer position, without releasing it. */
  buttonDown(button: MouseButton): Promise<void>

  /** Releases a mouse button at the current pointer position. */
  buttonUp(button: MouseButton): Promise<void>

  /**
   * Turns the wheel by whole notches: `dy` > 0 scrolls down, `dx` > 0 scrolls right
   * (X11 buttons 5 and 7); negative values go up / left (buttons 4 and 6).
   */
  wheel(dx: number, dy: number): Promise<void>

  /** Presses a key without releasing it. */
  keyDown(key: KeyInfo): Promise<void>

  /** Releases a key. */
  keyUp(key: KeyInfo): Promise<void>

  /** Types text exactly as given (characters, not key names). */
  typeText(text: string): Promise<void>

  /** Grabs the screen (or a rectangle of it) as raw pixels. */
  screenshot(region?: Rect): Promise<RawImage>
}
