/**
 * CUP's MCP `execute_action` declares `element_id`, `value`, `direction` and `keys` as
 * `str | None = None`, and clients serialising that signature write null for the unset ones.
 * Null means absent there, so it is dropped before validation, from one spec or each of a list.
 */
export function withoutNulls (payload: unknown): unknown {
  if (Array.isArray(payload)) return payload.map(dropNulls)
  return dropNulls(payload)
}

function dropNulls (spec: unknown): unknown {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return spec
  return Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== null))
}
