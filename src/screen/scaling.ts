/**
 * Coordinate spaces (SPEC §5). A model answers in the coordinates of the screenshot it was
 * shown; the client declares that size (display_width_px/display_height_px) and we map
 * between it and the real screen here, and nowhere else.
 *
 * Points map pixel centre to pixel centre, so every client pixel lands inside the real pixel
 * area it depicts, and mapping a real point to the client and back is stable.
 */
import type { Point, Rect, Region, Size, XY } from './geometry.ts'
import { DEFAULT_LIMITS, limitMessages, type Limits } from '../actions/limits.ts'
import { InvalidAction, InvalidQuery, PointOutOfBounds } from '../errors/errors.ts'

export type { XY } from './geometry.ts'

/** Wheel notches: a fraction rounds away from zero, so 0.2 is one notch, not none. */
export function notches (delta: number): number {
  return delta === 0 ? 0 : Math.sign(delta) * Math.ceil(Math.abs(delta))
}

export class Scaler {
  readonly real: Size
  readonly client: Size
  readonly scaled: boolean
  readonly #name: string | undefined

  /** `name` describes a client space that is not the declared display (e.g. a model's fixed grid). */
  constructor (real: Size, client: Size = real, name?: string) {
    this.real = real
    this.client = client
    this.scaled = real.width !== client.width || real.height !== client.height
    this.#name = name
  }

  /** The client's space as words, for error messages. */
  describeSpace (): string {
    const { width, height } = this.client
    if (this.#name) return this.#name
    return this.scaled
      ? `the ${width}x${height} coordinate space declared by display_width_px/display_height_px`
      : `the ${width}x${height} screen`
  }

  /** Maps a client point to the real screen; a point outside the client space is a 400. */
  toReal ([x, y]: XY, field = 'coordinates'): Point {
    const { width, height } = this.client
    if (x < 0 || y < 0 || x >= width || y >= height) {
      throw new PointOutOfBounds(
        `${field} (${x}, ${y}) is outside ${this.describeSpace()}: x must be 0..${width - 1} and y 0..${height - 1}`)
    }
    return {
      x: mapCentre(x, width, this.real.width),
      y: mapCentre(y, height, this.real.height),
    }
  }

  /** Maps a real point (e.g. the cursor) into the client's space. */
  toClient ({ x, y }: Point): XY {
    return [mapCentre(x, this.real.width, this.client.width), mapCentre(y, this.real.height, this.client.height)]
  }

  /**
   * Maps a client region [x0, y0, x1, y1] (x1, y1 exclusive) to the real rectangle that covers
   * it, and returns the size the crop must have in the client's space.
   */
  regionToReal ([x0, y0, x1, y1]: Region): { rect: Rect, size: Size } {
    const { width, height } = this.client
    if (!(x0 < x1 && y0 < y1)) {
      throw new InvalidAction(`region [${x0}, ${y0}, ${x1}, ${y1}] is empty: it needs x0 < x1 and y0 < y1`)
    }
    if (x0 < 0 || y0 < 0 || x1 > width || y1 > height) {
      throw new PointOutOfBounds(
        `region [${x0}, ${y0}, ${x1}, ${y1}] is outside ${this.describeSpace()}: it must lie within [0, 0, ${width}, ${height}]`)
    }
    const sx = this.real.width / width
    const sy = this.real.height / height
    const rx0 = Math.floor(x0 * sx)
    const ry0 = Math.floor(y0 * sy)
    const rect = {
      x: rx0,
      y: ry0,
      width: Math.max(1, Math.min(this.real.width, Math.ceil(x1 * sx)) - rx0),
      height: Math.max(1, Math.min(this.real.height, Math.ceil(y1 * sy)) - ry0),
    }
    return { rect, size: { width: x1 - x0, height: y1 - y0 } }
  }
}

function mapCentre (value: number, from: number, to: number): number {
  if (from === to) return value
  return Math.min(to - 1, Math.floor(((value + 0.5) * to) / from))
}

/**
 * The client's declared space from the query, or undefined for the real screen. Its size is
 * bounded: every screenshot is encoded at it, and a 16384x16384 PNG takes seconds and megabytes.
 */
export function clientSpace (query: { display_width_px?: number, display_height_px?: number }, limits: Limits = DEFAULT_LIMITS): Size | undefined {
  const { display_width_px: width, display_height_px: height } = query
  if (width === undefined && height === undefined) return undefined
  if (width === undefined || height === undefined) {
    throw new InvalidQuery('display_width_px and display_height_px go together: give both, or neither for the real screen size')
  }
  for (const [field, value] of [['display_width_px', width], ['display_height_px', height]] as const) {
    if (value > limits.maxDisplaySide) throw new InvalidQuery(limitMessages(limits).display(field, value))
  }
  return { width, height }
}
