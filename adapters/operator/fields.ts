/**
 * Reading the fields both generations of the tool name differently: a point is `loc` or `x`
 * and `y`; the caret is `caret` or `caret_position`; app's window corner and size are
 * `loc`/`size` or Windows-MCP's `window_loc`/`window_size`. Two spellings of one thing in a
 * call must not disagree silently, so giving both is refused.
 */
import { InvalidNativePayload } from '../../src/errors/errors.ts'
import { toXY, type XY } from '../../src/screen/geometry.ts'
import type { OperatorInput } from './computer.ts'

export type { XY }

/** loc, or x and y; undefined when neither is given. */
export function pointOf (input: OperatorInput): XY | undefined {
  const { loc, x, y } = input
  if (loc && (x !== undefined || y !== undefined)) throw new InvalidNativePayload('operator: give loc or x and y, not both')
  if (loc) return toXY(loc)
  if (x === undefined && y === undefined) return undefined
  if (x === undefined || y === undefined) throw new InvalidNativePayload(`operator: x and y go together; ${x === undefined ? 'x' : 'y'} is missing`)
  return [x, y]
}

export function requirePoint (input: OperatorInput, what: string): XY {
  const point = pointOf(input)
  if (!point) throw new InvalidNativePayload(`operator: loc (or x and y) is required for ${what}`)
  return point
}

export function caretOf (input: OperatorInput): 'start' | 'idle' | 'end' {
  const { caret, caret_position: position } = input
  if (caret !== undefined && position !== undefined && caret !== position) {
    throw new InvalidNativePayload(`operator: caret '${caret}' and caret_position '${position}' disagree; give one`)
  }
  return caret ?? position ?? 'idle'
}

/** One of two spellings of a pair; refused when both are given. */
export function eitherPair (input: OperatorInput, names: ['loc' | 'size', 'window_loc' | 'window_size']): XY | undefined {
  const [short, long] = names
  const a = input[short]
  const b = input[long]
  if (a && b) throw new InvalidNativePayload(`operator: give ${short} or ${long}, not both`)
  const pair = a ?? b
  return pair && toXY(pair)
}
