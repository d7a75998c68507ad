/** The optional properties a version's input object declares, picked from the shared fields. */
import { Type, type TOptional } from '@sinclair/typebox'
import { FIELDS, type Field } from './fields.ts'

export type FieldProperties<F extends Field> = { [K in F]: TOptional<(typeof FIELDS)[K]> }

export function fieldProperties<F extends Field> (names: readonly F[]): FieldProperties<F> {
  return Object.fromEntries(names.map((name) => [name, Type.Optional(FIELDS[name])])) as unknown as FieldProperties<F>
}
