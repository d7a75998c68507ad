/**
 * `computer_20251124` (beta header computer-use-2025-11-24: Claude Opus 4.5 and later): the
 * 20250124 actions plus `zoom`, a view of one region of the screen.
 */
import { StringEnum } from '../../src/actions/common.ts'
import type { ActionTable, VersionActions } from './action-rules.ts'
import { fieldProperties } from './fields-schema.ts'
import { BUTTON, CLICK, DRAG, HOLD_KEY, SCROLL, WAIT } from './shared-rules.ts'

export const ACTIONS_20251124 = {
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
  zoom: { required: ['region'] },
} as const satisfies ActionTable

const FIELDS_20251124 = ['coordinate', 'start_coordinate', 'text', 'scroll_direction', 'scroll_amount', 'duration', 'region'] as const

export const V20251124: VersionActions = { version: 'computer_20251124', fields: FIELDS_20251124, actions: ACTIONS_20251124 }

/** The version's input object: the action and the fields it has (its rules: ./versions.ts). */
export const INPUT_20251124 = {
  action: StringEnum(Object.keys(ACTIONS_20251124) as Array<keyof typeof ACTIONS_20251124>, { description: 'The action to perform.' }),
  ...fieldProperties(FIELDS_20251124),
}
