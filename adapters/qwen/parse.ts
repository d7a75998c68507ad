/**
 * Any accepted payload → the list of tool arguments it carries, checked against the family's
 * arguments schema. Model text is read as the models' own agents read it: each `<tool_call>`
 * block holds one call, as JSON `{"name": "computer_use", "arguments": {…}}` (Qwen2.5-VL,
 * Qwen3-VL) or in the XML form Qwen3.5 writes,
 * `<function=computer><parameter=action>left_click</parameter>…</function>`; a last block the
 * model left unclosed (it stopped at the end of its turn) is read to the end.
 */
import type { TObject } from '@sinclair/typebox'
import { InvalidNativePayload, UnparseableModelOutput } from '../../src/errors/errors.ts'
import { createValidatorCompiler, formatValidationErrors } from '../../src/schemas/validation.ts'
import type { QwenArguments } from './arguments.ts'
import { FUNCTION_NAMES, type ChatToolCall, type QwenInput } from './computer-use.ts'
import { xmlCall } from './xml-call.ts'

export interface ParsedCall {
  /** Where the call came from, for messages: '', 'tool_call 2', 'tool_calls[1]', … */
  where: string
  args: QwenArguments
}

const QUOTE_LIMIT = 200
export const quote = (text: string) => JSON.stringify(text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text)

// The same validator and messages as payloads get; the arguments inside text or a JSON string
// can only be checked once they are parsed.
const compile = createValidatorCompiler([])
const validators = new WeakMap<TObject, ReturnType<typeof compile>>()
function validator (schema: TObject) {
  let validate = validators.get(schema)
  if (!validate) validators.set(schema, validate = compile({ schema, httpPart: 'body' }))
  return validate
}

const SHAPES = 'send the arguments {"action", …}, the call {"name", "arguments"}, the chat message {"tool_calls"} or {"response"}'

export function parsePayload (input: QwenInput, schema: TObject, label: string): ParsedCall[] {
  if (typeof input === 'string') return parseText(input, schema, label)
  const { name, arguments: args, response, role, content, reasoning_content: _reasoning, tool_calls: toolCalls, ...flat } = input
  const message = role !== undefined || content !== undefined || toolCalls !== undefined
  const shapes = [response !== undefined && 'response', (name !== undefined || args !== undefined) && 'name/arguments', message && 'tool_calls', Object.keys(flat).length > 0 && 'action']
    .filter((s): s is string => !!s)
  if (shapes.length !== 1) {
    throw new InvalidNativePayload(shapes.length === 0
      ? `${label}: payload is empty: ${SHAPES}`
      : `${label}: payload mixes ${shapes.join(' and ')}: ${SHAPES}, one of them`)
  }
  if (response !== undefined) return parseText(response, schema, label)
  if (message) return chatMessage(toolCalls ?? [], content ?? null, schema, label)
  if (name !== undefined || args !== undefined) {
    if (name === undefined) throw new InvalidNativePayload(`${label}: missing required field 'name' ("computer_use") beside 'arguments'`)
    if (args === undefined) throw new InvalidNativePayload(`${label}: missing required field 'arguments' beside 'name'`)
    return [{ where: '', args: typeof args === 'string' ? parseArgumentsString(args, schema, label) : args }]
  }
  if (flat.action === undefined) throw new InvalidNativePayload(`${label}: missing required field 'action'`)
  return [{ where: '', args: flat as QwenArguments }]
}

/** The message's tool calls in order; a server that left them in the text (no tool parser) has them in `content`. */
function chatMessage (toolCalls: ChatToolCall[], content: string | null, schema: TObject, label: string): ParsedCall[] {
  if (toolCalls.length === 0) {
    if (content === null || !content.includes(OPEN)) throw new UnparseableModelOutput(`${label}: the chat message has no tool_calls and no <tool_call> in its content: ${quote(content ?? '')}`)
    return parseText(content, schema, label)
  }
  return toolCalls.map(({ function: call }, i) => {
    const where = `tool_calls[${i}]`
    const { arguments: args } = call
    return { where, args: typeof args === 'string' ? parseArgumentsString(args, schema, `${label}: ${where}`) : args }
  })
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

const NAMES = FUNCTION_NAMES.map((n) => JSON.stringify(n)).join(' or ')

function parseText (text: string, schema: TObject, label: string): ParsedCall[] {
  const found = blocks(text)
  if (found.length === 0) throw new UnparseableModelOutput(`${label}: no <tool_call> in the model output: ${quote(text)}`)
  return found.map((block, i) => {
    const where = `tool_call ${i + 1}`
    const call = block.startsWith('<function') ? xmlCall(block, `${label}: ${where}`) : jsonCall(block, `${label}: ${where}`)
    const { name, arguments: args } = call as { name?: unknown, arguments?: unknown }
    if (!FUNCTION_NAMES.includes(name as never)) {
      throw new InvalidNativePayload(`${label}: ${where} calls ${JSON.stringify(name ?? null)}; only ${NAMES} runs here`)
    }
    if (args === undefined) throw new InvalidNativePayload(`${label}: ${where} has no 'arguments'`)
    return { where, args: typeof args === 'string' ? parseArgumentsString(args, schema, `${label}: ${where}`) : checked(args, schema, `${label}: ${where} arguments`) }
  })
}

function jsonCall (block: string, where: string): unknown {
  let call: unknown
  try {
    call = JSON.parse(block)
  } catch {
    throw new UnparseableModelOutput(`${where} is not JSON: ${quote(block)}`)
  }
  if (!call || typeof call !== 'object' || Array.isArray(call)) {
    throw new UnparseableModelOutput(`${where} is not a JSON object {"name", "arguments"}: ${quote(block)}`)
  }
  return call
}
