/**
 * The live X keymap, as far as the worker needs it: which keysyms sit on the first level of
 * some keycode. libnut presses a keysym's keycode without modifiers and dies on a keysym no
 * keycode carries, so it may only be trusted with first-level keysyms.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface Keymap {
  /** Keysym names on level 1 (no modifier) of some keycode. */
  firstLevel: ReadonlySet<string>
}

/** Parses `xmodmap -pke` ("keycode  10 = 1 exclam 1 exclam") into keycode → keysym names. */
export function parseXmodmap (output: string): Map<number, string[]> {
  const keycodes = new Map<number, string[]>()
  for (const line of output.split('\n')) {
    const match = /^keycode\s+(\d+)\s*=\s*(.*)$/.exec(line.trim())
    if (match) keycodes.set(Number(match[1]), match[2]!.split(/\s+/).filter(Boolean))
  }
  return keycodes
}

/** Derives what the worker needs from a parsed keymap. */
export function describeKeymap (keycodes: Map<number, string[]>): Keymap {
  const firstLevel = new Set<string>()
  for (const syms of keycodes.values()) {
    if (syms[0] && syms[0] !== 'NoSymbol') firstLevel.add(syms[0])
  }
  return { firstLevel }
}

/** Reads the keymap of the display in DISPLAY with xmodmap (x11-xserver-utils). */
export async function readKeymap (): Promise<Keymap> {
  const { stdout } = await run('xmodmap', ['-pke'], { timeout: 5000, maxBuffer: 4 * 1024 * 1024 })
  return describeKeymap(parseXmodmap(stdout))
}
