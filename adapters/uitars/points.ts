/**
 * A point argument in any notation UI-TARS and its Doubao siblings write, read as the official
 * parsers read it: markers stripped, the brackets around the numbers dropped, the numbers
 * split on commas or spaces; two numbers are a point, four a box whose centre is the point.
 *   (x,y)  <|box_start|>(x,y)<|box_end|>  <point>x y</point>  <bbox>x1 y1 x2 y2</bbox>
 *   [x1, y1, x2, y2]  (x1,y1,x2,y2)
 */
import { UnparseableModelOutput } from '../../src/errors/errors.ts'
import type { Size } from '../../src/screen/geometry.ts'
import { quote } from './quote.ts'

type XY = [number, number]

const MARKERS = /<\|box_start\|>|<\|box_end\|>|<\/?point>|<\/?bbox>/g
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)$/

/** The point, in the model's own space, still fractional for a box centre. */
export function readPoint (key: string, value: string, call: string): XY {
  const fail = (why: string): never => {
    throw new UnparseableModelOutput(`cannot parse the UI-TARS action ${quote(call)}: ${key}=${JSON.stringify(value)} ${why}`)
  }
  let inner = value.replace(MARKERS, ' ').trim()
  if (/^\(.*\)$|^\[.*\]$/s.test(inner)) inner = inner.slice(1, -1)
  const parts = inner.split(/[\s,]+/).filter(Boolean)
  if (parts.length === 0) fail('is empty; expected a point like (x,y)')
  if (!parts.every((part) => NUMBER.test(part))) fail('is not a list of numbers; expected (x,y), <point>x y</point> or a box [x1,y1,x2,y2]')
  const numbers = parts.map(Number)
  if (numbers.length === 2) return [numbers[0]!, numbers[1]!]
  if (numbers.length === 4) return [(numbers[0]! + numbers[2]!) / 2, (numbers[1]! + numbers[3]!) / 2]
  return fail(`has ${numbers.length} numbers; a point has 2 (x,y) and a box 4 (x1,y1,x2,y2)`)
}

/**
 * The whole pixel of `space` the point falls on. A box centre rounds to the nearest. The far
 * edge itself (1000 on the 0–1000 scale, which the prompts allow) is the last pixel: the
 * official executors send it unchecked and X puts the pointer on the screen's last pixel.
 */
export function toPixel ([x, y]: XY, space: Size): XY {
  const snap = (value: number, size: number) => {
    const rounded = Math.round(value)
    return rounded === size ? size - 1 : rounded
  }
  return [snap(x, space.width), snap(y, space.height)]
}
