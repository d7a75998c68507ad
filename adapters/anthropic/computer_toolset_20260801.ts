/**
 * `computer_toolset_20260801` (the computer tool of the newest Claude models on the Claude API;
 * `@anthropic-ai/sdk` `BetaAbstractComputerToolset20260801`): the old actions become the
 * toolset's 17 members. Each call is its own `tool_use` block whose `name` is the member,
 * `toolset_name` is "computer" and `input` the member's parameters (the old ones without
 * `action`); a turn may hold several, run in order. The tool entry declares no display size.
 */
import { Type, type TObject, type TProperties } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import { FIELDS } from './fields.ts'

const opt = <T extends TProperties[string]>(schema: T) => Type.Optional(schema)

const CLICK = { coordinate: opt(FIELDS.coordinate), text: opt(FIELDS.text) }

/** Each member's input as `BetaComputer*Input` types it (test/adapter-anthropic-sdk-types.test.ts checks them). */
export const MEMBER_INPUTS = {
  key: {
    text: FIELDS.text,
    repeat: opt(Type.Integer({ minimum: 1, maximum: 100, description: 'Times to press the key combination; default 1.', errorMessage: 'repeat must be a whole number from 1 to 100' })),
  },
  hold_key: { text: FIELDS.text, duration: FIELDS.duration },
  type: { text: FIELDS.text },
  cursor_position: {},
  mouse_move: { coordinate: FIELDS.coordinate },
  left_mouse_down: {},
  left_mouse_up: {},
  left_click: CLICK,
  left_click_drag: { start_coordinate: FIELDS.start_coordinate, coordinate: FIELDS.coordinate, text: opt(FIELDS.text) },
  right_click: CLICK,
  middle_click: CLICK,
  double_click: CLICK,
  triple_click: CLICK,
  scroll: { scroll_direction: FIELDS.scroll_direction, scroll_amount: FIELDS.scroll_amount, ...CLICK },
  wait: { duration: FIELDS.duration },
  screenshot: {},
  zoom: { region: FIELDS.region },
} satisfies Record<string, TProperties>

export type ToolsetMember = keyof typeof MEMBER_INPUTS
export const TOOLSET_MEMBERS = Object.keys(MEMBER_INPUTS) as ToolsetMember[]

const memberInput = (member: ToolsetMember): TObject => Type.Object(MEMBER_INPUTS[member], {
  additionalProperties: false,
  ...(Object.keys(MEMBER_INPUTS[member]).length === 0 && { errorMessage: { additionalProperties: `input must be empty: ${member} takes no fields` } }),
  title: `AnthropicToolset${member.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}Input`,
})

// `type: 'object'`: a keyword like `required` holds of any non-object, which would refuse it with this message.
const when = (condition: Record<string, unknown>, message: string) => ({ if: { type: 'object', ...condition }, then: { not: {}, errorMessage: message } })

/**
 * One member call. Its input is checked by the member its `name` names. Further envelope
 * fields are allowed (`caller`, `cache_control`): only `id`, `name` and `input` matter here.
 */
export const ToolsetToolUse = Type.Object({
  type: Type.Literal('tool_use'),
  id: Type.String({ minLength: 1, description: "Becomes the result's tool_use_id." }),
  name: StringEnum([...TOOLSET_MEMBERS], { description: 'The member called.' }),
  toolset_name: Type.Literal('computer', { description: 'The API sets it on every member call; the result echoes it.' }),
  input: Type.Object({}, { additionalProperties: true, description: "The member's parameters." }),
}, {
  additionalProperties: true,
  $id: 'AnthropicToolsetToolUse',
  title: 'AnthropicToolsetToolUse',
  description: 'A computer toolset member tool_use block, as the Messages API returns it.',
  allOf: [
    // The older tool's shapes, sent to this version: say which version takes them.
    when({ required: ['action'] }, 'this is the computer tool\'s input {"action", …}; computer_toolset_20260801 takes the member tool_use blocks (name = the member, toolset_name "computer"): for the computer tool choose its version with tool_version (e.g. computer_20251124)'),
    when({ properties: { name: { const: 'computer' } }, required: ['name'] }, 'this is a tool_use block of the computer tool (name "computer"); computer_toolset_20260801 takes the member tool_use blocks (name = the member, toolset_name "computer"): for the computer tool choose its version with tool_version (e.g. computer_20251124)'),
    ...TOOLSET_MEMBERS.map((member) => ({
      if: { properties: { name: { const: member } }, required: ['name'] },
      then: { properties: { input: memberInput(member) } },
    })),
  ],
})

export interface ToolsetToolUse {
  type: 'tool_use'
  id: string
  name: ToolsetMember
  toolset_name: 'computer'
  /** The member's input, as its schema (MEMBER_INPUTS) checked it. */
  input: object
}

/**
 * Any other block of the assistant's turn (text, thinking, another tool's tool_use): the content
 * list can be forwarded as it came, and those blocks are passed over; the answer holds one
 * tool_result per member block.
 */
const OtherBlock = Type.Object({ type: Type.String() }, {
  additionalProperties: true,
  errorMessage: 'each item must be a content block of the turn, an object with a "type" (a computer member: a tool_use block with toolset_name "computer")',
})

/** A block the API marks as a member call of this toolset. */
const isMember = { type: 'object', properties: { type: { const: 'tool_use' }, toolset_name: { const: 'computer' } }, required: ['type', 'toolset_name'] }

/**
 * A block, or a turn's blocks. Told apart by `if` rather than a union, so a mistake in a block
 * is reported as that block's (with its index in the list), not as a mismatch with the other shape.
 */
export const AnthropicComputerToolset20260801 = Type.Unsafe<ToolsetToolUse | Array<ToolsetToolUse | { type: string }>>({
  $id: 'AnthropicComputerToolset20260801',
  title: 'AnthropicComputerToolset20260801',
  description: "One computer_toolset_20260801 member tool_use block (AnthropicToolsetToolUse), or the content of the assistant's turn, in the model's order: its member blocks run in order, stopping at the first failure; its other blocks (text, thinking, other tools' tool_use) are passed over.",
  anyOf: [{ type: 'object' }, { type: 'array' }],
  if: { type: 'array' },
  then: {
    type: 'array',
    items: { if: isMember, then: Type.Ref(ToolsetToolUse), else: OtherBlock },
    minItems: 1,
    errorMessage: { minItems: 'the list of blocks is empty: send the turn\'s content, with at least one computer member tool_use block' },
  },
  else: Type.Ref(ToolsetToolUse),
})

export const TOOLSET_VERSION = 'computer_toolset_20260801'
