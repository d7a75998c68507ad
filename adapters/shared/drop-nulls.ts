/**
 * Clients built on typed SDKs write null for an optional field they leave unset (Python's
 * `str | None = None`, Anthropic's `| null` fields). Adapters whose vendor means "absent" by
 * that drop those nulls before validation (`Adapter.prepare`), and only those: a null elsewhere
 * is left for validation to refuse rather than read as a guess.
 */

/** `value` without its null fields, of those `nullable` names (default every field); anything but a plain object as is. */
export function dropNulls (value: unknown, nullable?: readonly string[]): unknown {
  if (!isPlainObject(value)) return value
  return Object.fromEntries(Object.entries(value).filter(([field, v]) => v !== null || (nullable && !nullable.includes(field))))
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
