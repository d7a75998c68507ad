/**
 * `computer_20250124` (beta header computer-use-2025-01-24: Claude Sonnet 3.7 to Sonnet 4.5):
 * clicks take an optional coordinate and held keys (`text`), `left_click_drag` starts at
 * `start_coordinate`, and it adds left_mouse_down/up, scroll, hold_key, wait and triple_click.
 */
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import { actionRules, type ActionTable, type VersionActions } from './action-rules.ts'
import { V20251124 } from './computer_20251124.ts'
import { fieldProperties } from './fields-schema.ts'
import { BUTTON, CLICK, DRAG, HOLD_KEY, SCROLL, WAIT } from './shared-rules.ts'
import { versionBody } from './tool-use.ts'

export const ACTIONS_20250124 = {
  key: { required: ['text'] },
  hold_key: HOLD_KEY,
  type: { required: ['text'] },
  cursor_position: {},
  mouse_move: { required: ['coordinate'] },
  left_mouse_down: BUTTON,
  left_mouse_up: BUTTON,
  left_click: CLICK,
  left_click_drag: DRAG,
  right_click: CLICK,
  middle_click: CLICK,
  double_click: CLICK,
  triple_click: CLICK,
  scroll: SCROLL,
  wait: WAIT,
  screenshot: {},
} as const satisfies ActionTable

const FIELDS_20250124 = ['coordinate', 'start_coordinate', 'text', 'scroll_direction', 'scroll_amount', 'duration'] as const

export const V20250124: VersionActions = { version: 'computer_20250124', fields: FIELDS_20250124, actions: ACTIONS_20250124 }

export const AnthropicComputer20250124Input = Type.Object({
  action: StringEnum(Object.keys(ACTIONS_20250124) as Array<keyof typeof ACTIONS_20250124>, { description: 'The action to perform.' }),
  ...fieldProperties(FIELDS_20250124),
}, {
  additionalProperties: false,
  title: 'AnthropicComputer20250124Input',
  allOf: actionRules(V20250124, [V20251124]),
})
export type AnthropicComputer20250124Input = Static<typeof AnthropicComputer20250124Input>

export const AnthropicComputer20250124 = versionBody('AnthropicComputer20250124',
  'The computer_20250124 tool input, or the whole tool_use block carrying it.', AnthropicComputer20250124Input)
