/**
 * How each printable ASCII character is typed on a US keyboard: which key, and whether Shift
 * is held. nut's keyboard.type gets this wrong (it presses '1' for '!', feasibility §4), so
 * the worker types ASCII key by key from this table instead — after checking the live keymap
 * really is laid out this way (see keymap.ts).
 */

/** Unshifted and shifted character of each US key that is not a letter. */
const KEY_PAIRS = ['`~', '1!', '2@', '3#', '4$', '5%', '6^', '7&', '8*', '9(', '0)', '-_', '=+',
  '[{', ']}', '\\|', ';:', '\'"', ',<', '.>', '/?']

/** X keysym names of the ASCII characters that are not letters or digits (their own names). */
const KEYSYM_NAMES: Record<string, string> = {
  ' ': 'space', '!': 'exclam', '"': 'quotedbl', '#': 'numbersign', '$': 'dollar', '%': 'percent',
  '&': 'ampersand', "'": 'apostrophe', '(': 'parenleft', ')': 'parenright', '*': 'asterisk', '+': 'plus',
  ',': 'comma', '-': 'minus', '.': 'period', '/': 'slash', ':': 'colon', ';': 'semicolon', '<': 'less',
  '=': 'equal', '>': 'greater', '?': 'question', '@': 'at', '[': 'bracketleft', '\\': 'backslash',
  ']': 'bracketright', '^': 'asciicircum', _: 'underscore', '`': 'grave', '{': 'braceleft', '|': 'bar',
  '}': 'braceright', '~': 'asciitilde',
}

/** The X keysym name of a printable ASCII character ('!' → 'exclam', 'a' → 'a'). */
export function keysymOf (char: string): string {
  return KEYSYM_NAMES[char] ?? char
}

/** One keystroke: the libnut key name to tap, and whether Shift is held around it. */
export interface Stroke { key: string, shift: boolean }

const STROKES = new Map<string, Stroke>([
  [' ', { key: 'space', shift: false }],
  ['\n', { key: 'return', shift: false }],
  ['\t', { key: 'tab', shift: false }],
])
for (const letter of 'abcdefghijklmnopqrstuvwxyz') {
  STROKES.set(letter, { key: letter, shift: false })
  STROKES.set(letter.toUpperCase(), { key: letter, shift: true })
}
for (const [base, shifted] of KEY_PAIRS) {
  STROKES.set(base!, { key: base!, shift: false })
  STROKES.set(shifted!, { key: base!, shift: true })
}

/** The keystroke for a printable ASCII character, '\n' or '\t' on a US layout; undefined for anything else. */
export function usStroke (char: string): Stroke | undefined {
  return STROKES.get(char)
}

/**
 * Pairs of keysyms a US keymap has on levels 1 and 2 of one keycode (['1', 'exclam'], ['a',
 * 'A'], …): what the worker checks the live keymap against before trusting this table.
 */
export const US_KEY_LEVELS: ReadonlyArray<[string, string]> = [
  ...[...'abcdefghijklmnopqrstuvwxyz'].map((c): [string, string] => [c, c.toUpperCase()]),
  ...KEY_PAIRS.map(([base, shifted]): [string, string] => [keysymOf(base!), keysymOf(shifted!)]),
]
