/**
 * What the text typer has bound, recorded on the root window (a property, which outlives the
 * typer's connection): a typer killed before close() leaves its spare keycodes bound, and after
 * a few such runs the keymap had no empty keycode left. The next typer on that display reads the
 * record and gives back each recorded keycode that still carries only the keysym recorded for it
 * (a keymap replaced since, by setxkbmap, is left alone).
 *
 * One typer per display: a second one started while another types would take its bindings back.
 */

/** The root window property, of type INTEGER, format 32: [keycode, keysym, n, ...row(n)] per keycode. */
export const RECORD_PROPERTY = '_COMPUTER_GATEWAY_TYPER_BINDINGS'
export const INTEGER = 19

export interface RecordedBinding {
  /** The keysym the typer bound it to (on both levels). */
  keysym: number
  /** What the keycode carried before (a vendor key's keysyms; empty for an empty keycode). */
  row: number[]
}

export function encodeRecord (bindings: ReadonlyMap<number, RecordedBinding>): number[] {
  return [...bindings].flatMap(([keycode, { keysym, row }]) => [keycode, keysym, row.length, ...row])
}

/** The record read back; what does not parse ends it (a property someone else wrote). */
export function decodeRecord (values: readonly number[]): Map<number, RecordedBinding> {
  const bindings = new Map<number, RecordedBinding>()
  for (let i = 0; i + 3 <= values.length;) {
    const [keycode, keysym, n] = [values[i]!, values[i + 1]!, values[i + 2]!]
    if (keycode < 8 || keycode > 255 || n > 8 || i + 3 + n > values.length) break
    bindings.set(keycode, { keysym, row: values.slice(i + 3, i + 3 + n) })
    i += 3 + n
  }
  return bindings
}

/**
 * The recorded keycodes still bound as the typer left them, with the row to give back (two
 * NoSymbols for an empty keycode). `rows[i]` is keycode `minKeycode + i`'s, as GetKeyboardMapping
 * reports it: the server may repeat the binding for the second group, or drop a caseless
 * keysym's second level once XKB rebuilt the map ([k, k, k, k, 0…] or [k, 0, k, 0…]).
 */
export function leftBound (record: ReadonlyMap<number, RecordedBinding>, minKeycode: number, rows: readonly number[][]): Array<{ keycode: number, row: number[] }> {
  const found: Array<{ keycode: number, row: number[] }> = []
  for (const [keycode, { keysym, row }] of record) {
    const now = rows[keycode - minKeycode]
    if (!now || keysym === 0 || now[0] !== keysym || !now.every((sym) => sym === 0 || sym === keysym)) continue
    found.push({ keycode, row: row.length ? row : [0, 0] })
  }
  return found
}
