/**
 * What a client sends: the model's function call `{ name, args, id? }` as the Gemini SDKs hand
 * it over (`response.functionCalls`, `response.function_calls`), or the list of them from one
 * model turn, run in order. Both function sets are accepted; their names do not collide.
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
export type GeminiComputerUseInput = GeminiFunctionCall | GeminiFunctionCall[]

const byName = {
  required: ['name'],
  discriminator: { propertyName: 'name' },
  oneOf: MEMBERS,
}

export const GeminiComputerUseInput = Type.Unsafe<GeminiComputerUseInput>({
  $id: 'GeminiComputerUseInput',
  title: 'GeminiComputerUseInput',
  description: 'A Gemini Computer Use function call (`name`, `args`; points on the 0–999 grid), or a list of them from one model turn.',
  anyOf: [{ type: 'object' }, { type: 'array' }],
  ...byName,
  minItems: 1,
  items: { type: 'object', ...byName },
})
