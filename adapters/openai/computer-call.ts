/**
 * The `computer_call` output item as the Responses API returns it (`ResponseComputerToolCall`),
 * and the body of each version: the item, or what it carries without the envelope.
 *
 * One schema per version, discriminated by `type` without a union at the top: the item and
 * every action share the `type` field, so a mistake is reported for what was sent (an unknown
 * action type lists them all) rather than for whichever union member Ajv tried first.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import { ACTIONS, type OpenaiAction } from './actions.ts'

export const PendingSafetyCheck = Type.Object({
  id: Type.String({ minLength: 1 }),
  code: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'e.g. malicious_instructions, irrelevant_domain, sensitive_domain.' })),
  message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
}, {
  // Only id, code and message are read and echoed; a field the API adds later is carried, not refused.
  additionalProperties: true,
  description: 'A check the API raised on this call; it runs only once acknowledged.',
})
export type PendingSafetyCheck = Static<typeof PendingSafetyCheck>

const byType = (members: readonly TSchema[]) => ({
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: members,
})

export const ActionUnion = Type.Unsafe<OpenaiAction>({ type: 'object', ...byType(ACTIONS) })

const envelope = {
  id: Type.Optional(Type.String({ description: 'The item id (cu_…); not echoed.' })),
  call_id: Type.String({ minLength: 1, description: 'Becomes the call_id of the answer.' }),
  pending_safety_checks: Type.Optional(Type.Array(PendingSafetyCheck, {
    description: 'Non-empty: the call is refused (409) until the query acknowledges every check.',
  })),
  status: Type.Optional(StringEnum(['in_progress', 'completed', 'incomplete'])),
}

const ONE_ACTION = 'a computer_call of computer_use_preview carries one action; batched actions are the computer tool (tool_version=computer)'

/** computer-use-preview emits one `action` per call. */
export const PreviewCall = Type.Object({
  type: Type.Literal('computer_call'),
  ...envelope,
  action: ActionUnion,
  actions: Type.Optional(Type.Never({ errorMessage: ONE_ACTION })),
}, {
  additionalProperties: false,
  title: 'OpenaiComputerUsePreviewCall',
  description: 'A computer_call item of the computer_use_preview tool.',
  errorMessage: { required: { action: ONE_ACTION } },
})

/** The GA `computer` tool batches: `actions`, run in order (`action` is still accepted alone). */
export const BatchCall = Type.Object({
  type: Type.Literal('computer_call'),
  ...envelope,
  action: Type.Optional(ActionUnion),
  actions: Type.Optional(Type.Array(ActionUnion, { description: 'Run in order, as one batch; none is a call for the screen.' })),
}, { additionalProperties: false, title: 'OpenaiComputerCall', description: 'A computer_call item of the computer tool.' })

export type PreviewCall = Static<typeof PreviewCall>
export type BatchCall = Static<typeof BatchCall>


/** computer_use_preview: the item, or its bare action. */
export function previewBody (id: string, description: string) {
  return Type.Unsafe<PreviewCall | OpenaiAction>({
    $id: id,
    title: id,
    description,
    type: 'object',
    ...byType([PreviewCall, ...ACTIONS]),
    errorMessage: { type: 'a computer_use_preview payload is one computer_call item or one action; lists of actions are the computer tool (tool_version=computer)' },
  })
}

/** computer: the item, its bare action, or its bare list of actions. */
export function batchBody (id: string, description: string) {
  return Type.Unsafe<BatchCall | OpenaiAction | OpenaiAction[]>({
    $id: id,
    title: id,
    description,
    anyOf: [{ type: 'object' }, { type: 'array' }],
    ...byType([BatchCall, ...ACTIONS]),
    minItems: 1,
    items: { type: 'object', ...byType(ACTIONS) },
    errorMessage: { minItems: 'a list of actions cannot be empty' },
  })
}
