/**
 * Anthropic's SDKs type some optional fields of the computer tool's input as nullable
 * (`coordinate?: Array<number> | null` on the clicks), so a null there is how a client built
 * on them says "absent": for a click or a scroll, where the pointer is, as the SDK's own
 * description says ("or the current cursor position if `coordinate` is omitted"). Those nulls
 * are dropped before validation, from the bare input and from a tool_use block's input. A
 * null anywhere else is nothing the SDK sends, so it is left for validation to refuse rather
 * than read as a guess.
 */
import { dropNulls, isPlainObject } from '../shared/drop-nulls.ts'

// The fields the SDK types `| null`, per action (@anthropic-ai/sdk, BetaComputer*Input;
// test/adapter-anthropic-sdk-types.test.ts checks this table against those types).
const CLICK = ['coordinate', 'text'] as const
export const NULLABLE_FIELDS = {
  left_click: CLICK,
  right_click: CLICK,
  middle_click: CLICK,
  double_click: CLICK,
  triple_click: CLICK,
  scroll: CLICK,
  left_click_drag: ['text'],
} as const satisfies Record<string, readonly string[]>

/** The toolset's members type the same fields nullable, and key's `repeat` (BetaComputerKeyInput). */
export const NULLABLE_MEMBER_FIELDS = { ...NULLABLE_FIELDS, key: ['repeat'] } as const satisfies Record<string, readonly string[]>

export function withoutNulls (payload: unknown): unknown {
  if (Array.isArray(payload)) return payload.map((block) => isMemberBlock(block) ? dropMemberNulls(block) : block)
  if (!isPlainObject(payload)) return payload
  if (isMemberBlock(payload)) return dropMemberNulls(payload)
  if (payload.type === 'tool_use' && isPlainObject(payload.input)) return { ...payload, input: dropActionNulls(payload.input) }
  return dropActionNulls(payload)
}

/** A toolset member call: the member is the block's `name`, not an `action` in its input. */
const isMemberBlock = (block: unknown): block is Record<string, unknown> & { input: Record<string, unknown> } =>
  isPlainObject(block) && block.type === 'tool_use' && 'toolset_name' in block && isPlainObject(block.input)

function dropMemberNulls (block: Record<string, unknown> & { input: Record<string, unknown> }): unknown {
  const name = block.name
  const nullable: readonly string[] = typeof name === 'string' && Object.hasOwn(NULLABLE_MEMBER_FIELDS, name)
    ? NULLABLE_MEMBER_FIELDS[name as keyof typeof NULLABLE_MEMBER_FIELDS]
    : []
  return { ...block, input: dropNulls(block.input, nullable) }
}

function dropActionNulls (input: Record<string, unknown>): unknown {
  const action = input.action
  const nullable: readonly string[] = typeof action === 'string' && Object.hasOwn(NULLABLE_FIELDS, action)
    ? NULLABLE_FIELDS[action as keyof typeof NULLABLE_FIELDS]
    : []
  return dropNulls(input, nullable)
}
