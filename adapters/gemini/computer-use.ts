/**
 * What a client sends: the model's function call `{ name, args, id? }` as the Gemini SDKs hand
 * it over (`response.functionCalls`, `response.function_calls`), the REST API's part around it,
 * or the list of them from one model turn, run in order. Both function sets are accepted;
 * their names do not collide.
 *
 * One schema serves both shapes, without a union at the top: `discriminator`, `required` and
 * `oneOf`-by-discriminator apply to objects only and `items` to arrays only, so a mistake is
 * reported for the shape that was sent (a union would report the other shape's mismatch first).
 */
import { Type, type Static } from '@sinclair/typebox'
import { FUNCTIONS } from './functions.ts'
import { LEGACY_FUNCTIONS } from './legacy-functions.ts'

const MEMBERS = [...LEGACY_FUNCTIONS, ...FUNCTIONS]

export type GeminiFunctionCall = Static<(typeof MEMBERS)[number]>
export type GeminiFunctionName = GeminiFunctionCall['name']

/**
 * The REST API's `Part` around a call (`candidates[0].content.parts[i]`), with the thought
 * signature the model attaches; forwarded as is, so a client need not unwrap it.
 */
export interface GeminiFunctionCallPart { functionCall: GeminiFunctionCall, thoughtSignature?: string }
/** The model's own words in the same turn: carried, not answered (only calls get a response). */
export interface GeminiTextPart { text: string, thought?: boolean, thoughtSignature?: string }

export type GeminiComputerUseInput = GeminiFunctionCall | GeminiFunctionCallPart |
  Array<GeminiFunctionCall | GeminiFunctionCallPart | GeminiTextPart>

/** One call of either set, named once in OpenAPI and referred to by every shape that holds one. */
export const GeminiFunctionCall = Type.Unsafe<GeminiFunctionCall>({
  $id: 'GeminiFunctionCall',
  title: 'GeminiFunctionCall',
  description: 'One function call `{name, args, id?}` of either Computer Use function set.',
  type: 'object',
  required: ['name'],
  discriminator: { propertyName: 'name' },
  oneOf: MEMBERS,
})

const byName = { $ref: 'GeminiFunctionCall' }

const callPart = {
  type: 'object',
  properties: {
    functionCall: byName,
    thoughtSignature: { type: 'string' },
  },
  additionalProperties: false,
}

const textPart = {
  type: 'object',
  properties: { text: { type: 'string' }, thought: { type: 'boolean' }, thoughtSignature: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
}

/** A call, or the Part around it: told apart by the field present, so errors name the right shape. */
const callOrPart = (otherwise: object) => ({
  if: { type: 'object', required: ['functionCall'] },
  then: callPart,
  else: otherwise,
})

export const GeminiComputerUseInput = Type.Unsafe<GeminiComputerUseInput>({
  $id: 'GeminiComputerUseInput',
  title: 'GeminiComputerUseInput',
  description: 'A Gemini Computer Use function call (`name`, `args`; points on the 0–999 grid), or the REST API `Part` around it ' +
    '(`{functionCall, thoughtSignature?}`), or a list of them from one model turn (`candidates[0].content.parts` as is: text parts are skipped).',
  anyOf: [{ type: 'object' }, { type: 'array' }],
  // Arrays pass the top level's `if` untouched (their items are checked below).
  ...callOrPart({ if: { type: 'array' }, else: byName }),
  minItems: 1,
  items: { type: 'object', ...callOrPart({ if: { type: 'object', required: ['text'] }, then: textPart, else: byName }) },
})
