/**
 * The `computer_use` function's arguments, flat as Qwen declares them (QwenLM/Qwen2.5-VL and
 * QwenLM/Qwen3-VL `cookbooks/utils/agent_function_call.py`): one `action` and the parameters
 * "required only by" some actions. Which ones an action needs is checked after validation
 * (to-unified.ts), with a message naming the action; parameters an action does not use are
 * ignored, as Qwen's own tool ignores them.
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'

export const ACTIONS_25 = ['key', 'type', 'mouse_move', 'left_click', 'left_click_drag', 'right_click', 'middle_click', 'double_click', 'scroll', 'wait', 'terminate'] as const
/** Qwen3-VL adds these. */
export const ACTIONS_3 = [...ACTIONS_25, 'triple_click', 'hscroll', 'answer'] as const

export type QwenAction = (typeof ACTIONS_3)[number]

const parameters = {
  keys: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'For key: pressed in order, released in reverse order.' })),
  text: Type.Optional(Type.String({ description: 'For type (typed exactly) and answer (reported).' })),
  coordinate: Type.Optional(Type.Array(Type.Number(), {
    minItems: 2,
    maxItems: 2,
    description: '(x, y): pixels of the smart-resized screenshot (2.5), or the 0–999 relative grid (3). Rounded to whole units.',
  })),
  pixels: Type.Optional(Type.Number({ description: 'For scroll/hscroll: positive scrolls up (scroll) or right (hscroll); 120 px per wheel notch.' })),
  time: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'For wait: seconds.' })),
  status: Type.Optional(StringEnum(['success', 'failure'], { description: 'For terminate: reported, not executed.' })),
} satisfies TProperties

const argumentsSchema = (actions: readonly QwenAction[]) => Type.Object({
  action: StringEnum<QwenAction[]>([...actions]),
  ...parameters,
}, { additionalProperties: false })

export const QwenArguments3 = argumentsSchema(ACTIONS_3)
export const QwenArguments25 = argumentsSchema(ACTIONS_25)

export type QwenArguments = Static<typeof QwenArguments3>
