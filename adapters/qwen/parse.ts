/**
 * Any accepted payload → the list of `computer_use` arguments it carries, checked against the
 * version's arguments schema. Model text is read as Qwen's own agents read it: each
 * `<tool_call>` block holds one JSON call `{"name": "computer_use", "arguments": {…}}`; a last
 * block the model left unclosed (it stopped at the end of its turn) is read to the end.
 */
import type { TObject } from '@sinclair/typebox'
import { InvalidNativePayload, UnparseableModelOutput } from '../../src/errors.ts'
import { createValidatorCompiler, formatValidationErrors } from '../../src/validation.ts'
import type { QwenArguments } from './arguments.ts'
import type { QwenInput } from './computer-use.ts'

export interface ParsedCall {
  /** Where the call came from, for messages: '', 'tool_call 2', … */
  where: string
  args: QwenArguments
}

const QUOTE_LIMIT = 200
const quote = (text: string) => JSON.stringify(text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text)

// The same validator and messages as payloads get; the arguments inside text or a JSON string
// can only be checked once they are parsed.
const compile = createValidatorCompiler([])
const validators = new WeakMap<TObject, ReturnType<typeof compile>>()
function validator (schema: TObject) {
  let validate = validators.get(schema)
  if (!validate) validators.set(schema, validate = compile({ schema, httpPart: 'body' }))
  return validate
}

export function parsePayload (input: QwenInput, schema: TObject, label: string): ParsedCall[] {
  if (typeof input === 'string') return parseText(input, schema, label)
  const { name, arguments: args, response, ...flat } = input
  const shapes = [response !== undefined && 'response', (name !== undefined || args !== undefined) && 'name/arguments', Object.keys(flat).length > 0 && 'action']
    .filter((s): s is string => !!s)
  if (shapes.length !== 1) {
    throw new InvalidNativePayload(shapes.length === 0
      ? `${label}: payload is empty: send the arguments {"action", …}, the call {"name", "arguments"} or {"response"}`
      : `${label}: payload mixes ${shapes.join(' and ')}: send the arguments {"action", …}, the call {"name", "arguments"} or {"response"}, one of them`)
  }
  if (response !== undefined) return parseText(response, schema, label)
  if (name !== undefined || args !== undefined) {
    if (name === undefined) throw new InvalidNativePayload(`${label}: missing required field 'name' ("computer_use") beside 'arguments'`)
    if (args === undefined) throw new InvalidNativePayload(`${label}: missing required field 'arguments' beside 'name'`)
    return [{ where: '', args: typeof args === 'string' ? parseArgumentsString(args, schema, label) : args }]
  }
  if (flat.action === undefined) throw new InvalidNativePayload(`${label}: missing required field 'action'`)
  return [{ where: '', args: flat as QwenArguments }]
}

function parseArgumentsString (text: string, schema: TObject, label: string): QwenArguments {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new UnparseableModelOutput(`${label}: arguments is not JSON: ${quote(text)}`)
  }
  return checked(parsed, schema, `${label}: arguments`)
}

function checked (value: unknown, schema: TObject, where: string): QwenArguments {
  const validate = validator(schema)
  if (!validate(value)) {
    throw new InvalidNativePayload(`${where}: ${formatValidationErrors(validate.errors ?? [], 'arguments', [])}`)
  }
  return value as QwenArguments
}

const OPEN = '<tool_call>'
const CLOSE = '</tool_call>'

/** The text of each `<tool_call>` block, in order. */
function blocks (text: string): string[] {
  const found: string[] = []
  let at = text.indexOf(OPEN)
  while (at !== -1) {
    const start = at + OPEN.length
    const end = text.indexOf(CLOSE, start)
    const next = text.indexOf(OPEN, start)
    // An unclosed block ends where the next one opens, or with the text.
    const stop = end !== -1 && (next === -1 || end < next) ? end : next !== -1 ? next : text.length
    found.push(text.slice(start, stop).trim())
    at = text.indexOf(OPEN, stop)
  }
  return found
}

function parseText (text: string, schema: TObject, label: string): ParsedCall[] {
  const found = blocks(text)
  if (found.length === 0) throw new UnparseableModelOutput(`${label}: no <tool_call> in the model output: ${quote(text)}`)
  return found.map((block, i) => {
    const where = `tool_call ${i + 1}`
    let call: unknown
    try {
      call = JSON.parse(block)
    } catch {
      throw new UnparseableModelOutput(`${label}: ${where} is not JSON: ${quote(block)}`)
    }
    if (!call || typeof call !== 'object' || Array.isArray(call)) {
      throw new UnparseableModelOutput(`${label}: ${where} is not a JSON object {"name", "arguments"}: ${quote(block)}`)
    }
    const { name, arguments: args } = call as { name?: unknown, arguments?: unknown }
    if (name !== 'computer_use') {
      throw new InvalidNativePayload(`${label}: ${where} calls ${JSON.stringify(name ?? null)}; only "computer_use" runs here`)
    }
    if (args === undefined) throw new InvalidNativePayload(`${label}: ${where} has no 'arguments'`)
    return { where, args: typeof args === 'string' ? parseArgumentsString(args, schema, `${label}: ${where}`) : checked(args, schema, `${label}: ${where} arguments`) }
  })
}
