/**
 * The adapter against @anthropic-ai/sdk's own types, checked by `tsc --noEmit`: our tool_result
 * must be assignable to the SDK's ToolResultBlockParam (stable and beta), the tool versions
 * and the newest version's actions must be the SDK's, and every action input the SDK types
 * must fit our newest input schema. A drift in any of them stops the build; the test below
 * then sends SDK-typed values through the server and hands the answer back to SDK types.
 */
import t from 'tap'
import type { Static } from '@sinclair/typebox'
import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages'
import type {
  BetaComputerCursorPositionInput, BetaComputerDoubleClickInput, BetaComputerHoldKeyInput,
  BetaComputerKeyInput, BetaComputerLeftClickDragInput, BetaComputerLeftClickInput,
  BetaComputerLeftMouseDownInput, BetaComputerLeftMouseUpInput, BetaComputerMemberName,
  BetaComputerMiddleClickInput, BetaComputerMouseMoveInput, BetaComputerRightClickInput,
  BetaComputerScreenshotInput, BetaComputerScrollInput, BetaComputerTripleClickInput,
  BetaComputerTypeInput, BetaComputerWaitInput, BetaComputerZoomInput, BetaMessageParam,
  BetaToolComputerUse20241022, BetaToolComputerUse20250124, BetaToolComputerUse20251124,
  BetaToolBash20241022, BetaToolBash20250124, BetaToolTextEditor20241022, BetaToolTextEditor20250124, BetaToolTextEditor20250429, BetaToolTextEditor20250728,
  BetaToolResultBlockParam, BetaToolUseBlock, BetaComputerToolset20260801, BetaComputerToolUseBlock,
} from '@anthropic-ai/sdk/resources/beta/messages/messages'
import type { TObject } from '@sinclair/typebox'
import type { MEMBER_INPUTS, ToolsetMember, ToolsetToolUse } from '../adapters/anthropic/computer_toolset_20260801.ts'
import type { AnthropicToolsetResultBlock } from '../adapters/anthropic/toolset-result.ts'
import type { NULLABLE_MEMBER_FIELDS } from '../adapters/anthropic/without-nulls.ts'
import { anthropicAdapter, AnthropicToolResult, type AnthropicBody } from '../adapters/anthropic/index.ts'
import type { ComputerAction, ComputerInput } from '../adapters/anthropic/to-unified.ts'
import type { ToolVersion } from '../adapters/anthropic/query.ts'
import type { AGENT_TOOL_VERSIONS } from '../adapters/anthropic/agent-tools.ts'
import type { NULLABLE_FIELDS } from '../adapters/anthropic/without-nulls.ts'
import { build, post } from './helpers/build.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const same = <A, B>(proof: Equal<A, B>) => proof

// Our answer, once it carries a tool_use_id, is a tool_result block to both APIs.
type Answer = Static<typeof AnthropicToolResult> & { tool_use_id: string }
const toBeta = (answer: Answer): BetaToolResultBlockParam => answer
const toStable = (answer: Answer): ToolResultBlockParam => answer

// The tool versions are the SDK's computer, bash and text editor tool types, no more and no fewer.
same<ToolVersion, BetaComputerToolset20260801['type'] | BetaToolComputerUse20241022['type'] | BetaToolComputerUse20250124['type'] | BetaToolComputerUse20251124['type'] |
  BetaToolBash20241022['type'] | BetaToolBash20250124['type'] | BetaToolTextEditor20241022['type'] | BetaToolTextEditor20250124['type'] | BetaToolTextEditor20250429['type'] | BetaToolTextEditor20250728['type']>(true)
// Each version's tool name is the SDK's.
same<typeof AGENT_TOOL_VERSIONS, {
  readonly bash_20250124: BetaToolBash20250124['name'], readonly bash_20241022: BetaToolBash20241022['name'],
  readonly text_editor_20250728: BetaToolTextEditor20250728['name'], readonly text_editor_20250429: BetaToolTextEditor20250429['name'],
  readonly text_editor_20250124: BetaToolTextEditor20250124['name'], readonly text_editor_20241022: BetaToolTextEditor20241022['name'],
}>(true)

// The newest version's actions are the members the SDK lists for the computer tool.
same<ComputerAction, BetaComputerMemberName>(true)

// Each action input the SDK types (nulls read as absent) is one our newest schema accepts.
// `repeat` on key exists only in the computer toolset, not in the computer_2025… tools.
type Sent<A extends ComputerAction, I> = { action: A } & { [K in keyof I]: Exclude<I[K], null> }
// Every field the SDK names must be one of ours (a structural check alone would allow extras).
type Fits<A extends ComputerAction, I> = [Exclude<keyof I, keyof ComputerInput>] extends [never]
  ? Sent<A, I> extends ComputerInput ? true : false
  : false
// The nulls read as absent are exactly the fields the SDK types `| null`, action by action.
type NullableOf<I> = { [K in keyof I]-?: null extends I[K] ? K : never }[keyof I]
type Inputs = {
  key: Omit<BetaComputerKeyInput, 'repeat'>, hold_key: BetaComputerHoldKeyInput, type: BetaComputerTypeInput,
  cursor_position: BetaComputerCursorPositionInput, mouse_move: BetaComputerMouseMoveInput,
  left_mouse_down: BetaComputerLeftMouseDownInput, left_mouse_up: BetaComputerLeftMouseUpInput,
  left_click: BetaComputerLeftClickInput, left_click_drag: BetaComputerLeftClickDragInput,
  right_click: BetaComputerRightClickInput, middle_click: BetaComputerMiddleClickInput,
  double_click: BetaComputerDoubleClickInput, triple_click: BetaComputerTripleClickInput,
  scroll: BetaComputerScrollInput, wait: BetaComputerWaitInput, screenshot: BetaComputerScreenshotInput, zoom: BetaComputerZoomInput,
}
type SdkNullable = { [A in keyof Inputs as [NullableOf<Inputs[A]>] extends [never] ? never : A]: NullableOf<Inputs[A]> }
type OursNullable = { -readonly [A in keyof typeof NULLABLE_FIELDS]: (typeof NULLABLE_FIELDS)[A][number] }
same<SdkNullable, OursNullable>(true)

// computer_toolset_20260801: the members are the SDK's, each member's input has the SDK's fields
// and accepts every input the SDK types (nulls read as absent, exactly where it types them).
same<ToolsetMember, BetaComputerMemberName>(true)
type MemberInput<M extends ToolsetMember> = Static<TObject<(typeof MEMBER_INPUTS)[M]>>
type SdkMemberInput<M extends ToolsetMember> = Extract<BetaComputerToolUseBlock, { name: M }>['input']
type MemberFits = { [M in ToolsetMember]: Equal<keyof MemberInput<M>, keyof SdkMemberInput<M>> extends true
  ? ({ [K in keyof SdkMemberInput<M>]: Exclude<SdkMemberInput<M>[K], null> } extends MemberInput<M> ? true : false)
  : false }
same<MemberFits, { [M in ToolsetMember]: true }>(true)
type SdkMemberNullable = { [M in ToolsetMember as [NullableOf<SdkMemberInput<M>>] extends [never] ? never : M]: NullableOf<SdkMemberInput<M>> }
type OursMemberNullable = { -readonly [M in keyof typeof NULLABLE_MEMBER_FIELDS]: (typeof NULLABLE_MEMBER_FIELDS)[M][number] }
same<SdkMemberNullable, OursMemberNullable>(true)
// A member block the SDK types is one our schema's type takes; our result block is the SDK's tool_result.
const toolsetBlock = (block: BetaComputerToolUseBlock): ToolsetToolUse => block
const toolsetAnswer = (answer: AnthropicToolsetResultBlock): BetaToolResultBlockParam => answer

const inputs: Array<true> = [
  true satisfies Fits<'key', Omit<BetaComputerKeyInput, 'repeat'>>,
  true satisfies Fits<'hold_key', BetaComputerHoldKeyInput>,
  true satisfies Fits<'type', BetaComputerTypeInput>,
  true satisfies Fits<'cursor_position', BetaComputerCursorPositionInput>,
  true satisfies Fits<'mouse_move', BetaComputerMouseMoveInput>,
  true satisfies Fits<'left_mouse_down', BetaComputerLeftMouseDownInput>,
  true satisfies Fits<'left_mouse_up', BetaComputerLeftMouseUpInput>,
  true satisfies Fits<'left_click', BetaComputerLeftClickInput>,
  true satisfies Fits<'left_click_drag', BetaComputerLeftClickDragInput>,
  true satisfies Fits<'right_click', BetaComputerRightClickInput>,
  true satisfies Fits<'middle_click', BetaComputerMiddleClickInput>,
  true satisfies Fits<'double_click', BetaComputerDoubleClickInput>,
  true satisfies Fits<'triple_click', BetaComputerTripleClickInput>,
  true satisfies Fits<'scroll', BetaComputerScrollInput>,
  true satisfies Fits<'wait', BetaComputerWaitInput>,
  true satisfies Fits<'screenshot', BetaComputerScreenshotInput>,
  true satisfies Fits<'zoom', BetaComputerZoomInput>,
]

t.test('a tool_use block typed by the SDK goes in, and the answer is the SDK\'s tool_result', async (t) => {
  t.equal(inputs.length, 17, 'one check per action')
  const tool: BetaToolComputerUse20251124 = {
    type: 'computer_20251124', name: 'computer', display_width_px: 1024, display_height_px: 768, enable_zoom: true,
  }
  const input: Sent<'scroll', BetaComputerScrollInput> = {
    action: 'scroll', coordinate: [512, 384], scroll_direction: 'down', scroll_amount: 3, text: 'shift',
  }
  const block: BetaToolUseBlock & AnthropicBody = {
    type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'computer', input, caller: { type: 'direct' },
  }
  const { app } = await build(t, { adapters: [anthropicAdapter] })
  const query = `tool_version=${tool.type}&display_width_px=${tool.display_width_px}&display_height_px=${tool.display_height_px}`
  const { status, body } = await post(app, `/computer/anthropic?${query}`, block)
  t.equal(status, 200)
  const answer = body as Answer
  t.equal(answer.tool_use_id, block.id)
  const message: BetaMessageParam = { role: 'user', content: [toBeta(answer)] }
  t.strictSame(message.content, [answer])
  t.equal(toStable(answer).tool_use_id, block.id)
  t.strictSame(answer.content.map((c) => c.type), ['text', 'image'])
})

t.test('computer_toolset_20260801: SDK-typed member blocks go in, and the answer is the SDK\'s tool_result blocks', async (t) => {
  const entry: BetaComputerToolset20260801 = { type: 'computer_toolset_20260801' }
  const blocks: BetaComputerToolUseBlock[] = [
    { type: 'tool_use', id: 'toolu_01', name: 'left_click', toolset_name: 'computer', input: { coordinate: [512, 384], text: null } },
    { type: 'tool_use', id: 'toolu_02', name: 'key', toolset_name: 'computer', input: { text: 'ctrl+s', repeat: null }, caller: { type: 'direct' } },
  ]
  const { app } = await build(t, { adapters: [anthropicAdapter] })
  const { status, body } = await post(app, `/computer/anthropic?tool_version=${entry.type}`, blocks.map(toolsetBlock))
  t.equal(status, 200)
  const message: BetaMessageParam = { role: 'user', content: (body as AnthropicToolsetResultBlock[]).map(toolsetAnswer) }
  t.strictSame(message.content, [
    { type: 'tool_result', tool_use_id: 'toolu_01', toolset_name: 'computer', content: [{ type: 'text', text: 'Clicked.' }] },
    { type: 'tool_result', tool_use_id: 'toolu_02', toolset_name: 'computer', content: [{ type: 'text', text: 'Pressed ctrl+s.' }] },
  ])
})
