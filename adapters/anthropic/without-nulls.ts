/**
 * Python wrappers of the computer tool (pydantic models, LangChain tools) write every optional
 * field of the input, as null when unset: `{"action": "screenshot", "coordinate": null}`. The
 * API never sends a null there, so null means absent and is dropped before validation — from the
 * bare input and from a tool_use block's input.
 */
export function withoutNulls (payload: unknown): unknown {
  if (!isObject(payload)) return payload
  if (payload.type === 'tool_use' && isObject(payload.input)) return { ...payload, input: dropNulls(payload.input) }
  return dropNulls(payload)
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const dropNulls = (input: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null))
