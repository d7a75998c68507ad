/** One combo string ('ctrl+shift+t', 'Control+C', 'cmd + c', UI-TARS 'ctrl c') → its keys. */
import { UnknownKey } from '../errors/errors.ts'
import type { KeyInfo } from './canonical.ts'
import { findKey, KEY_TABLE } from './lookup.ts'
import { unknownKey } from './normalize.ts'

export interface ComboOptions {
  /** Whitespace separates keys too, as in UI-TARS' hotkey(key='ctrl c'). */
  splitOnSpace?: boolean
}

/**
 * Split on '+', trimming spaces around each name. A '+' is the plus key where a name is
 * expected: alone ('+'), last ('ctrl++') or between separators ('ctrl+++a').
 * A blank part ('ctrl+', 'ctrl+ ') is an error, not the space bar: a combo cut short would
 * otherwise press something the model never asked for.
 */
export function parseCombo (combo: string, options: ComboOptions = {}): KeyInfo[] {
  // A string that is itself a key name needs no splitting: '+', ' ', 'Return'.
  const whole = KEY_TABLE.get(combo.toLowerCase())
  if (whole) return [whole]
  if (combo.trim() === '') throw unknownKey(combo)
  const names = splitPlus(combo)
  return names.flatMap((name) => options.splitOnSpace && /\s/.test(name) ? splitSpaces(name, combo) : [resolve(name, combo)])
}

/**
 * The keys of a list of names, each of which may itself be a combo such as "ctrl+shift+t";
 * a key named twice is pressed once.
 */
export function resolveKeys (names: readonly string[] | undefined): KeyInfo[] {
  const keys = new Map<string, KeyInfo>()
  for (const name of names ?? []) {
    for (const key of parseCombo(name)) keys.set(key.name, key)
  }
  return [...keys.values()]
}

/** The trimmed names between '+' signs, with each pair of empty parts read as the plus key. */
function splitPlus (combo: string): string[] {
  const parts = combo.split('+').map((part) => part.trim())
  const names: string[] = []
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] !== '') {
      names.push(parts[i]!)
    } else if (parts[i + 1] === '') {
      names.push('+')
      i++
    } else {
      throw blankPart(combo)
    }
  }
  return names
}

function blankPart (combo: string): InstanceType<typeof UnknownKey> {
  const hint = /\+\s+$/.test(combo) ? "; the space bar is 'space', like 'ctrl+space'" : ''
  return new UnknownKey(`key combo '${combo}' has an empty part; write keys joined by '+', like 'ctrl+shift+t'${hint}`)
}

function resolve (name: string, combo: string): KeyInfo {
  const key = findKey(name)
  if (!key) throw unknownKey(name, combo)
  return key
}

/**
 * UI-TARS writes 'ctrl c', but also 'page down'. Each word is a key when every word is one
 * ('shift left' is shift and the left arrow); otherwise the longest run of words that names
 * a key wins ('ctrl page down' → ctrl, pagedown).
 */
function splitSpaces (name: string, combo: string): KeyInfo[] {
  const words = name.split(/\s+/)
  const each = words.map((word) => findKey(word))
  if (each.every((key) => key !== undefined)) return each as KeyInfo[]
  const keys: KeyInfo[] = []
  for (let i = 0; i < words.length;) {
    const run = longestRun(words, i)
    if (!run) throw unknownKey(words[i]!, combo)
    keys.push(run.key)
    i += run.length
  }
  return keys
}

// Three words is the longest multi-word name written ('media play pause').
function longestRun (words: string[], start: number): { key: KeyInfo, length: number } | undefined {
  for (let length = Math.min(3, words.length - start); length > 0; length--) {
    const key = findKey(words.slice(start, start + length).join(' '))
    if (key) return { key, length }
  }
  return undefined
}
