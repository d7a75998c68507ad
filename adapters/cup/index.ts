/** The Computer Use Protocol's session actions (press_keys, wait), one or a batch. */
import type { Adapter } from '../../src/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { CupActionResult, CupResult } from './action-result.ts'
import { CupBatchInput, type CupInput } from './action-spec.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type CupMeta } from './to-unified.ts'
import { withoutNulls } from './without-nulls.ts'

export const cupAdapter: Adapter<CupInput, CupMeta, ActionQuery> = {
  name: 'cup',
  description: 'Computer Use Protocol action specs as execute_action and batch_execute take them: press_keys (or press) with a key combo, wait with ms; one spec, or a list run in order that stops at the first failure. Answered with CUP ActionResults {success, message, error}. Element verbs (click, type, setvalue, … on an id like "e14") are refused with 400: they need the accessibility tree, which this server does not read.',
  coordinates: 'none: CUP names elements by id, and its session actions take no point',
  versions: [{
    name: 'cup_0_1',
    description: 'CUP 0.1 (computeruseprotocol python-sdk and typescript-sdk): press_keys / press {keys}, wait {ms}, and the fifteen element verbs.',
    schema: CupBatchInput,
  }],
  defaultVersion: 'cup_0_1',
  schemas: [CupActionResult],
  prepare: withoutNulls,
  version: () => 'cup_0_1',
  translate: (input, context) => toUnified(input, context.query.screenshot),
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: CupResult,
}
