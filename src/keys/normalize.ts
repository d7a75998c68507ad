/** One key name → its key, or a 400 that names it and the closest known names. */
import { UnknownKey } from '../errors/errors.ts'
import type { KeyInfo } from './canonical.ts'
import { findKey } from './lookup.ts'
import { suggestKeys } from './suggest.ts'

/** Case-insensitive; accepts canonical names and every alias (aliases.ts). */
export function normalizeKey (name: string): KeyInfo {
  const key = findKey(name)
  if (key) return key
  throw unknownKey(name)
}

/** The error for a name no lookup knows; `combo` is the whole string when the name came from one. */
export function unknownKey (name: string, combo?: string): InstanceType<typeof UnknownKey> {
  if (name === '') return new UnknownKey('key name cannot be empty')
  if (name.trim() === '') return new UnknownKey(`key name '${name}' is blank; the space bar is 'space'`)
  const where = combo !== undefined && combo !== name ? ` in '${combo}'` : ''
  // 'ctrl c' where spaces do not separate keys: say how to write it instead.
  const words = name.trim().split(/\s+/)
  const hint = words.length > 1 && words.every((word) => findKey(word))
    ? `; keys pressed together are joined by '+', like '${words.join('+')}'`
    : ''
  return new UnknownKey(`unknown key '${name}'${where} (closest known names: ${suggestKeys(name).join(', ')}${hint})`)
}
