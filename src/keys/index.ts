/** Key names (SPEC §3): the canonical vocabulary, the alias table, and lookups. */
export { CANONICAL_KEYS, type KeyInfo } from './canonical.ts'
export { ALIAS_PAIRS, ALIASES } from './aliases.ts'
export { normalizeKey, parseCombo, suggestKeys } from './normalize.ts'
