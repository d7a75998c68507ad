/**
 * An AIToolCall → the CUAction it carries. Its arguments are the model's own output, a dict or
 * a stringified JSON, so they are parsed and checked here, with the messages the route gives a
 * bare action.
 */
import { InvalidNativePayload, UnparseableModelOutput } from '../../src/errors/errors.ts'
import { createValidatorCompiler, formatValidationErrors } from '../../src/schemas/validation.ts'
import { ACTION_TYPES, ConatusActionSchema, type ConatusAction, type ConatusToolCall } from './cu-action.ts'

const validate = createValidatorCompiler([])({ schema: ConatusActionSchema, httpPart: 'body' })

const QUOTE_LIMIT = 200

export interface Unwrapped { action: ConatusAction, callId: string | null }

export function unwrap (input: ConatusAction | ConatusToolCall): Unwrapped {
  if (!('returned_arguments' in input)) return { action: input, callId: input.call_id ?? null }
  const args = argumentsOf(input.returned_arguments)
  // Conatus names the action by `type` inside the arguments; a provider that puts it in the
  // function name instead is read the same way.
  if (args.type === undefined && !ACTION_TYPES.includes(input.name)) {
    throw new InvalidNativePayload(`conatus: returned_arguments has no 'type' and the tool name '${input.name}' is not an action (one of: ${ACTION_TYPES.join(', ')})`)
  }
  const action = { type: input.name, ...args }
  if (!validate(action)) {
    throw new InvalidNativePayload(`conatus: returned_arguments: ${formatValidationErrors(validate.errors ?? [], 'returned_arguments', [])}`)
  }
  return { action: action as ConatusAction, callId: input.call_id ?? null }
}

function argumentsOf (raw: Record<string, unknown> | string): Record<string, unknown> {
  if (typeof raw !== 'string') return raw
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (caught) {
    // V8's wording, less the line/column it adds from Node 22 on: the answer reads the same on every runtime.
    const why = (caught as Error).message.replace(/ \(line \d+ column \d+\)$/, '')
    throw new UnparseableModelOutput(`conatus: returned_arguments is not JSON (${why}): ${quote(raw)}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UnparseableModelOutput(`conatus: returned_arguments must be a JSON object, not ${quote(raw)}`)
  }
  return parsed as Record<string, unknown>
}

const quote = (text: string) => `'${text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text}'`
