/**
 * `computer_20241022` (beta header computer-use-2024-10-22: Claude Sonnet 3.5 v2): ten
 * actions; clicks happen where the pointer is, and `left_click_drag` drags from there.
 */
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import { actionRules, type ActionRule, type ActionTable, type VersionActions } from './action-rules.ts'
import { V20250124 } from './computer_20250124.ts'
import { V20251124 } from './computer_20251124.ts'
import { fieldProperties } from './fields-schema.ts'
import { versionBody } from './tool-use.ts'

// The demo answers a coordinate here with "If you are not at the given coordinates, you
// need to execute the mouse_move action first"; the 400 says the same.
const CLICK: ActionRule = { note: 'it clicks where the pointer is: move it first with mouse_move' }

export const ACTIONS_20241022 = {
  key: { required: ['text'] },
  type: { required: ['text'] },
  mouse_move: { required: ['coordinate'] },
  left_click: CLICK,
  left_click_drag: { required: ['coordinate'] },
  right_click: CLICK,
  middle_click: CLICK,
  double_click: CLICK,
  screenshot: {},
  cursor_position: {},
} as const satisfies ActionTable

const FIELDS_20241022 = ['coordinate', 'text'] as const

export const V20241022: VersionActions = { version: 'computer_20241022', fields: FIELDS_20241022, actions: ACTIONS_20241022 }

export const AnthropicComputer20241022Input = Type.Object({
  action: StringEnum(Object.keys(ACTIONS_20241022) as Array<keyof typeof ACTIONS_20241022>, { description: 'The action to perform.' }),
  ...fieldProperties(FIELDS_20241022),
}, {
  additionalProperties: false,
  title: 'AnthropicComputer20241022Input',
  allOf: actionRules(V20241022, [V20250124, V20251124]),
})
export type AnthropicComputer20241022Input = Static<typeof AnthropicComputer20241022Input>

export const AnthropicComputer20241022 = versionBody('AnthropicComputer20241022',
  'The computer_20241022 tool input, or the whole tool_use block carrying it.', AnthropicComputer20241022Input)
