/**
 * The tool's pydantic `_coerce_params`, before validation: models write string-typed output
 * ("null", "true", "[640, 360]", "3"), and Operator-Use reads it as the types its fields
 * declare. Applied the same way here, plus null for any absent optional field (pydantic's
 * `Optional[...] = None`, which wrappers write out). Pure: the payload is copied.
 */

/** List fields parsed from a JSON string ("loc" in the tool; the others hold pairs too). */
const LIST_FIELDS = ['loc', 'from_loc', 'to_loc', 'size', 'window_loc', 'window_size']
const BOOL_FIELDS = ['clear', 'press_enter', 'drag']
/** x and y are the first tool's integers, read like the current tool's. */
const INT_FIELDS = ['clicks', 'wheel_times', 'duration', 'x', 'y']
/** "null" means None for these; `name` (app) is read the same way. */
const NULLABLE_STRING_FIELDS = ['shortcut', 'text', 'desktop_name', 'new_name', 'desktop_action', 'name']
/** Python's falsy spellings: any other string is True (`v.lower() not in (...)`). */
const FALSE_WORDS = new Set(['false', '0', 'no', 'null', 'none', ''])
/** What Python's int() accepts of a string (surrounding spaces, a sign). */
const INT_TEXT = /^\s*[+-]?\d+\s*$/

export function coerceParams (payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return payload
  const data: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(payload)) {
    const coerced = coerce(field, value)
    if (coerced !== undefined) data[field] = coerced
  }
  return data
}

/** The field's value as the tool reads it; undefined drops the field (None). */
function coerce (field: string, value: unknown): unknown {
  if (value === null) return undefined
  if (LIST_FIELDS.includes(field) && typeof value === 'string') {
    if (value === 'null') return undefined
    const parsed = parseJson(value)
    return Array.isArray(parsed) ? parsed : value
  }
  if (BOOL_FIELDS.includes(field)) {
    if (typeof value === 'string') return !FALSE_WORDS.has(value.toLowerCase())
    // pydantic's lax bool also takes the integers 0 and 1.
    if (value === 0 || value === 1) return value === 1
    return value
  }
  if (INT_FIELDS.includes(field) && typeof value === 'string') {
    if (value === 'null' && field === 'duration') return undefined
    return INT_TEXT.test(value) ? Number.parseInt(value, 10) : value
  }
  if (NULLABLE_STRING_FIELDS.includes(field) && value === 'null') return undefined
  return value
}

function parseJson (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
