/**
 * The live X keymap, as far as the worker needs it: which keysyms sit on the first level of
 * some keycode. libnut presses a keysym's keycode without modifiers and dies on a keysym no
 * keycode carries, so it may only be trusted with first-level keysyms; and typing by the US
 * table is only right when the keymap really is US.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { US_KEY_LEVELS } from './us-layout.ts'

const run = promisify(execFile)

export interface Keymap {
  /** Keysym names on level 1 (no modifier) of some keycode. */
  firstLevel: ReadonlySet<string>
  /** True when every US key has its two characters on levels 1 and 2 of one keycode. */
  us: boolean
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
  const levels = new Set<string>()
  for (const syms of keycodes.values()) {
    if (syms[0] && syms[0] !== 'NoSymbol') firstLevel.add(syms[0])
    if (syms[0]) levels.add(`${syms[0]} ${syms[1] ?? 'NoSymbol'}`)
  }
  const us = ['space', 'Return', 'Tab', 'Shift_L'].every((sym) => firstLevel.has(sym)) &&
    US_KEY_LEVELS.every(([base, shifted]) => levels.has(`${base} ${shifted}`))
  return { firstLevel, us }
}

/** Reads the keymap of the display in DISPLAY with xmodmap (x11-xserver-utils). */
export async function readKeymap (): Promise<Keymap> {
  const { stdout } = await run('xmodmap', ['-pke'], { timeout: 5000, maxBuffer: 4 * 1024 * 1024 })
  return describeKeymap(parseXmodmap(stdout))
}
