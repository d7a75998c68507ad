/** Key names (SPEC §3): the canonical vocabulary, the alias table, and lookups. */
export { CANONICAL_KEYS, type KeyInfo } from './canonical.ts'
export { parseCombo, resolveKeys } from './combo.ts'
export { normalizeKey } from './normalize.ts'
export { suggestKeys } from './suggest.ts'
