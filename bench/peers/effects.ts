/**
 * The checks of what an action did in a real application, apart from the applications: each
 * answers undefined when the effect is there, or says what arrived instead (the bench's cell
 * counts the first). Pure, so test/bench-peers.test.ts holds them to their cases.
 */
import { difference } from '../../test/helpers/typing.ts'

/** Every printable ASCII character once, space to tilde (95): the line the ASCII rows type. */
export const ASCII_LINE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('')

/** What arrived against what was typed: the first code point that differs, and the lengths. */
export function typedEffect (expected: string, actual: string): string | undefined {
  if (actual === expected) return undefined
  return `typed ${[...actual].length} of ${[...expected].length} characters, ${difference(expected, actual)}`
}

/**
 * The last line of what `cat > FILE` wrote in the terminal: the bench ends each sample with its
 * own Return, so the sample's line is the last complete one (an empty one when nothing arrived).
 */
export function lastLine (file: string): string {
  const lines = file.split('\n')
  // A file ending in a newline splits into a last empty element: the line is the one before.
  return (file.endsWith('\n') ? lines.at(-2) : lines.at(-1)) ?? ''
}

/** The primary selection after a double click or a drag: exactly `expected`, or what it held. */
export function selectionEffect (expected: string, primary: string, sentinel: string): string | undefined {
  if (primary === expected) return undefined
  if (primary === sentinel) return 'nothing selected (the primary selection still holds what the bench put there)'
  return `selected ${JSON.stringify(primary.slice(0, 40))}, not ${JSON.stringify(expected)}`
}

/** Raw pixels, as sharp gives them. */
export interface RawImage { width: number, height: number, channels: number, data: Uint8Array }

/** Mean difference per channel over a 16 x 10 grid of points from which a photo counts as another picture. */
export const PHOTO_TOLERANCE = 24

/**
 * A screenshot shows the photo at the screen's origin, pixel for pixel (a browser's JPEG
 * decoder and the encoder's rounding differ by a few levels): the mean absolute difference
 * over a grid of points inside `area` (by default all of both), each channel of RGB.
 */
export function photoEffect (photo: RawImage, screen: RawImage, area = { width: Infinity, height: Infinity }): string | undefined {
  const width = Math.min(photo.width, screen.width, area.width)
  const height = Math.min(photo.height, screen.height, area.height)
  let sum = 0
  let count = 0
  for (let gy = 0; gy < 10; gy++) {
    for (let gx = 0; gx < 16; gx++) {
      const x = Math.floor((gx + 0.5) * width / 16)
      const y = Math.floor((gy + 0.5) * height / 10)
      for (let c = 0; c < 3; c++) {
        sum += Math.abs(photo.data[(y * photo.width + x) * photo.channels + c]! - screen.data[(y * screen.width + x) * screen.channels + c]!)
        count++
      }
    }
  }
  const mean = sum / count
  return mean <= PHOTO_TOLERANCE ? undefined : `the photo is not on the screen: a mean difference of ${mean.toFixed(1)} levels over 160 points of the top-left ${width}x${height} (at most ${PHOTO_TOLERANCE})`
}

/** Nodes in a tree of `{ children: [...] }` (cua's accessibility answer), the root included. */
export function treeNodes (node: unknown): number {
  if (node === null || typeof node !== 'object') return 0
  const children = (node as { children?: unknown }).children
  return 1 + (Array.isArray(children) ? children.reduce((sum: number, child) => sum + treeNodes(child), 0) : 0)
}
