/**
 * AT-SPI state sets to CUP states. The state set comes as two 32-bit words; bit n (of word
 * n >> 5) is AtspiStateType n (at-spi2-core's atspi-constants.h). CUP lists only what is true.
 */
import type { CupState } from './schema.ts'

/** The AtspiStateType values read here. */
export const AtspiState = {
  ACTIVE: 1,
  BUSY: 3,
  CHECKED: 4,
  COLLAPSED: 5,
  EDITABLE: 7,
  ENABLED: 8,
  EXPANDABLE: 9,
  EXPANDED: 10,
  FOCUSABLE: 11,
  FOCUSED: 12,
  HORIZONTAL: 14,
  MODAL: 16,
  MULTISELECTABLE: 18,
  PRESSED: 20,
  SELECTABLE: 22,
  SELECTED: 23,
  SENSITIVE: 24,
  SHOWING: 25,
  VERTICAL: 29,
  VISIBLE: 30,
  INDETERMINATE: 32,
  REQUIRED: 33,
  READ_ONLY: 43,
} as const

export type StateWords = readonly [number, number]

export function hasState (words: StateWords, state: number): boolean {
  const word = words[state >> 5] ?? 0
  return ((word >>> (state & 31)) & 1) === 1
}

/** The inverse, for recorded fixtures and tests: the words with exactly these states set. */
export function stateWords (...states: number[]): [number, number] {
  const words: [number, number] = [0, 0]
  for (const state of states) words[state >> 5] = (words[state >> 5]! | (1 << (state & 31))) >>> 0
  return words
}

/**
 * `offscreen` also covers bounds wholly outside the screen: web content scrolled out of view
 * is often still SHOWING.
 */
export function cupStates (words: StateWords, outsideScreen: boolean): CupState[] {
  const has = (state: number) => hasState(words, state)
  const states: CupState[] = []
  if (!has(AtspiState.ENABLED)) states.push('disabled')
  if (has(AtspiState.FOCUSED)) states.push('focused')
  if (has(AtspiState.CHECKED)) states.push('checked')
  if (has(AtspiState.PRESSED)) states.push('pressed')
  if (has(AtspiState.INDETERMINATE)) states.push('mixed')
  if (has(AtspiState.EXPANDED)) states.push('expanded')
  else if (has(AtspiState.COLLAPSED) || has(AtspiState.EXPANDABLE)) states.push('collapsed')
  if (has(AtspiState.SELECTED)) states.push('selected')
  if (has(AtspiState.REQUIRED)) states.push('required')
  if (has(AtspiState.MODAL)) states.push('modal')
  if (has(AtspiState.READ_ONLY)) states.push('readonly')
  else if (has(AtspiState.EDITABLE)) states.push('editable')
  if (has(AtspiState.BUSY)) states.push('busy')
  if (has(AtspiState.MULTISELECTABLE)) states.push('multiselectable')
  if (!has(AtspiState.VISIBLE)) states.push('hidden')
  else if (!has(AtspiState.SHOWING) || outsideScreen) states.push('offscreen')
  return states
}
