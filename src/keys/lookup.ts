/** The one name → key table (canonical names and aliases), built once, and the lenient lookup. */
import { ALIAS_PAIRS } from './aliases.ts'
import { CANONICAL_KEYS, type KeyInfo } from './canonical.ts'

function buildTable (): ReadonlyMap<string, KeyInfo> {
  const table = new Map(CANONICAL_KEYS.map((key) => [key.name, key]))
  const canonical = new Set(table.keys())
  for (const [alias, target] of ALIAS_PAIRS) {
    const key = canonical.has(target) ? table.get(target) : undefined
    const clash = table.get(alias)
    // A clash would silently press the wrong key, so refuse to start instead.
    if (!key) throw new Error(`key alias '${alias}' points at unknown key '${target}'`)
    if (clash && clash !== key) throw new Error(`key alias '${alias}' means both '${clash.name}' and '${target}'`)
    table.set(alias, key)
  }
  return table
}

/** Lower-case name → key, for canonical names and every alias. */
export const KEY_TABLE: ReadonlyMap<string, KeyInfo> = buildTable()

/** True where the name is a canonical name, not an alias. */
export const isCanonical = (name: string): boolean => KEY_TABLE.get(name)?.name === name

const WORDS = /^[a-z0-9]+(?:[\s_-]+[a-z0-9]+)+$/

/**
 * Word-like spellings with other separators, in the order they are tried:
 * 'Page-Up' / 'page up' → 'page_up', then 'Alt Gr' / 'Shift Left' → 'altgr' / 'shiftleft'.
 * Squashing only words of two letters or more keeps 'b s' from becoming 'bs' (backspace).
 */
export function spellings (lower: string): string[] {
  if (!WORDS.test(lower)) return []
  const words = lower.split(/[\s_-]+/)
  return words.every((word) => word.length >= 2) ? [words.join('_'), words.join('')] : [words.join('_')]
}

/**
 * A name as given, case-insensitively; then trimmed; then with its separators normalised.
 * Whitespace is looked up before trimming: ' ', '\t' and '\n' are keys themselves.
 */
export function findKey (name: string): KeyInfo | undefined {
  const lower = name.toLowerCase()
  const exact = KEY_TABLE.get(lower)
  if (exact) return exact
  const trimmed = lower.trim()
  if (trimmed !== lower) {
    const found = KEY_TABLE.get(trimmed)
    if (found) return found
  }
  for (const spelling of spellings(trimmed)) {
    const found = KEY_TABLE.get(spelling)
    if (found) return found
  }
  return undefined
}
