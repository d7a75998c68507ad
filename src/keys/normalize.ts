/** Key name lookup: canonical names and aliases, case-insensitive; combos; suggestions. */
import { UnknownKey } from '../errors.ts'
import { ALIASES } from './aliases.ts'
import { CANONICAL_KEYS, type KeyInfo } from './canonical.ts'

const BY_NAME = new Map(CANONICAL_KEYS.map((key) => [key.name, key]))
const ALL_NAMES = [...BY_NAME.keys(), ...ALIASES.keys()]

/** A printable name such as '+' or 'A' looks itself up; anything else goes through lower case. */
function lookup (name: string): KeyInfo | undefined {
  const exact = BY_NAME.get(name)
  if (exact) return exact
  const lower = name.toLowerCase()
  return BY_NAME.get(lower) ?? BY_NAME.get(ALIASES.get(lower) ?? '') ?? BY_NAME.get(ALIASES.get(lower.replace(/[\s-]+/g, '_')) ?? '')
}

export function normalizeKey (name: string): KeyInfo {
  if (name === '') throw new UnknownKey('key name cannot be empty')
  const key = lookup(name) ?? (name.trim() ? lookup(name.trim()) : undefined)
  if (!key) throw new UnknownKey(`unknown key '${name}' (closest known names: ${suggestKeys(name).join(', ')})`)
  return key
}

/**
 * One string to its keys: 'ctrl+shift+t', 'Control+C', 'cmd + c', 'ctrl++' (ctrl and plus),
 * a lone '+', and with splitOnSpace UI-TARS' 'ctrl c'.
 */
export function parseCombo (combo: string, options: { splitOnSpace?: boolean } = {}): KeyInfo[] {
  if (combo === '+' || lookup(combo)) return [normalizeKey(combo)]
  // '+' between names separates; a '+' that is itself a key stands alone or last ('ctrl++').
  const parts = combo.endsWith('++') ? [...combo.slice(0, -2).split('+'), '+'] : combo.split('+')
  const names = parts.flatMap((part) => {
    const trimmed = part.trim()
    if (options.splitOnSpace && /\s/.test(trimmed)) return trimmed.split(/\s+/)
    return [trimmed]
  })
  if (names.some((name) => name === '')) {
    throw new UnknownKey(`key combo '${combo}' has an empty part; write keys joined by '+', like 'ctrl+shift+t'`)
  }
  return names.map(normalizeKey)
}

export function suggestKeys (name: string, limit = 3): string[] {
  const target = name.toLowerCase()
  const scored = ALL_NAMES.map((candidate) => ({
    candidate,
    distance: editDistance(target, candidate) - (BY_NAME.has(candidate) ? 0.5 : 0) - (candidate.startsWith(target.slice(0, 2)) ? 0.25 : 0),
  }))
  scored.sort((a, b) => a.distance - b.distance || a.candidate.length - b.candidate.length)
  const seen = new Set<string>()
  const out: string[] = []
  for (const { candidate } of scored) {
    const canonical = BY_NAME.has(candidate) ? candidate : ALIASES.get(candidate)!
    if (seen.has(canonical)) continue
    seen.add(canonical)
    out.push(canonical)
    if (out.length === limit) break
  }
  return out
}

function editDistance (a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }
  return row[b.length]!
}
