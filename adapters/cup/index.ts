/** The Computer Use Protocol's action specs: its session actions and element verbs, one or a batch. */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { CupActionResult, CupResult } from './action-result.ts'
import { CupBatchInput, type CupInput } from './action-spec.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type CupMeta } from './to-unified.ts'
import { dropNulls } from '../shared/drop-nulls.ts'

export const cupAdapter: Adapter<CupInput, CupMeta, ActionQuery> = {
  name: 'cup',
  description: 'Computer Use Protocol action specs as execute_action and batch_execute take them: the fifteen element verbs ' +
    '(click, doubleclick, rightclick, focus, type and setvalue with value, toggle, expand, collapse, select, increment, decrement, ' +
    'scroll with direction, dismiss, longpress) on an element_id of the server\'s last accessibility snapshot (GET /accessibility or ' +
    'get_accessibility_tree: the CUP tree the ids come from), through the application\'s AT-SPI action, Value, EditableText or ' +
    'Selection when it has them, else by real input at the element\'s centre; press_keys (or press) with a key combo; wait with ms. ' +
    'One spec, or a list run in order that stops at the first failure. Answered with CUP ActionResults {success, message, error}. ' +
    'Failures answer ActionResults too, as the SDKs do (success false, the reason in error), with the HTTP status of the error: ' +
    'an element_id the last snapshot did not issue, or whose element is gone, is success false with status 409 and an error ' +
    'that says to take a new snapshot.',
  coordinates: 'none: CUP names elements by id (bounds are in the snapshot), and its session actions take no point',
  versions: [{
    name: 'cup_0_1',
    description: 'CUP 0.1 (computeruseprotocol python-sdk and typescript-sdk): press_keys / press {keys}, wait {ms}, and the fifteen element verbs.',
    schema: CupBatchInput,
  }],
  schemas: [CupActionResult],
  // CUP's MCP `execute_action` declares `element_id`, `value`, `direction` and `keys` as
  // `str | None = None`: null there means absent, in one spec or each of a list.
  prepare: (payload) => Array.isArray(payload) ? payload.map((spec) => dropNulls(spec)) : dropNulls(payload),
  translate: (input, context) => toUnified(input, context.query.screenshot),
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: CupResult,
}
