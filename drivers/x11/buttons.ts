/** X pointer buttons, and the wheel as X sees it: each notch a press and release of a button. */
import type { MouseButton } from '../../src/driver/driver.ts'

/** 1–3 are the usual buttons; 8/9 are what browsers read as back and forward. */
export const X_BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3, back: 8, forward: 9 }

/**
 * Milliseconds between the notches of one scroll. X stamps an event when it processes the
 * request, and Chromium drops a wheel press that shares a timestamp with the one before it (it
 * reads as a duplicate): notches sent back to back lost one now and then on a busy machine.
 * One is enough for a timestamp of its own (XTest holds the request until the clock has moved
 * on), as for a double click's second press.
 */
export const WHEEL_NOTCH_GAP_MS = 1

/** The wheel buttons one scroll presses, in order: vertical first. 4 up, 5 down, 6 left, 7 right. */
export function wheelNotches (dx: number, dy: number): number[] {
  const notches: number[] = []
  for (const [count, negative, positive] of [[Math.round(dy), 4, 5], [Math.round(dx), 6, 7]] as const) {
    for (let i = 0; i < Math.abs(count); i++) notches.push(count > 0 ? positive : negative)
  }
  return notches
}
