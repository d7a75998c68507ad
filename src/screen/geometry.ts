/**
 * Points, sizes and rectangles, shared by the action schemas' types, the scaler, the executor,
 * the adapters and the driver contract. Objects (`Point`, `Rect`) are real screen pixels as
 * drivers take them; `XY` is a point as the wire carries it, `[x, y]`.
 */

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

/** A point as a request writes it: `[x, y]`. */
export type XY = [number, number]

/** A region as a request writes it: `[x0, y0, x1, y1]`, x1 and y1 exclusive. */
export type Region = [number, number, number, number]

/**
 * A point whose schema held it to two numbers but types it as an array (a vendor's own
 * schema, as its SDK types it), as the pair it is.
 */
export function toXY (values: readonly number[]): XY {
  const [x, y] = values
  if (values.length !== 2 || x === undefined || y === undefined) throw new TypeError(`not a point [x, y]: ${JSON.stringify(values)}`)
  return [x, y]
}

/** A region held to four numbers by a schema that types it as an array, as the quadruple it is. */
export function toRegion (values: readonly number[]): Region {
  const [x0, y0, x1, y1] = values
  if (values.length !== 4 || x0 === undefined || y0 === undefined || x1 === undefined || y1 === undefined) {
    throw new TypeError(`not a region [x0, y0, x1, y1]: ${JSON.stringify(values)}`)
  }
  return [x0, y0, x1, y1]
}
