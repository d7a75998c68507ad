/** "Did you mean": the known names closest to an unknown one, for the 400's message. */
import { isCanonical, KEY_TABLE, spellings } from './lookup.ts'

// Whitespace aliases (' ', '\t', '\n') cannot be read in a message, so they are never offered.
const CANDIDATES = [...KEY_TABLE.keys()].filter((name) => !/\s/.test(name))

// Long input (a sentence pasted as a key) would only cost time: its prefix is as telling.
const MAX_COMPARED = 40

/**
 * Up to `limit` known names, closest first by Damerau-Levenshtein distance on lower case,
 * at most one name per key; in a tie a canonical name beats an alias, then the nearer length.
 */
export function suggestKeys (name: string, limit = 3): string[] {
  const lower = name.toLowerCase().trim().slice(0, MAX_COMPARED)
  const target = spellings(lower)[0] ?? lower
  const scored = CANDIDATES.map((candidate) => ({
    candidate,
    distance: editDistance(target, candidate),
    alias: isCanonical(candidate) ? 0 : 1,
    lengthGap: Math.abs(candidate.length - target.length),
  }))
  scored.sort((a, b) => a.distance - b.distance || a.alias - b.alias || a.lengthGap - b.lengthGap ||
    (a.candidate < b.candidate ? -1 : 1))
  const keys = new Set<string>()
  const out: string[] = []
  for (const { candidate } of scored) {
    if (out.length >= limit) break
    const key = KEY_TABLE.get(candidate)!.name
    if (keys.has(key)) continue
    keys.add(key)
    out.push(candidate)
  }
  return out
}

/** Optimal-string-alignment distance: Levenshtein plus adjacent swaps ('shfit' is one edit from 'shift'). */
export function editDistance (a: string, b: string): number {
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1)
      current.push(best)
    }
    before = previous
    previous = current
  }
  return previous[b.length]!
}
