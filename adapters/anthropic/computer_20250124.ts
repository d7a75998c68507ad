/**
 * `computer_20250124` (beta header computer-use-2025-01-24: Claude Sonnet 3.7 to Sonnet 4.5):
 * clicks take an optional coordinate and held keys (`text`), `left_click_drag` starts at
 * `start_coordinate`, and it adds left_mouse_down/up, scroll, hold_key, wait and triple_click.
 */
import { StringEnum } from '../../src/actions/common.ts'
import type { ActionTable, VersionActions } from './action-rules.ts'
import { fieldProperties } from './fields-schema.ts'
import { BUTTON, CLICK, DRAG, HOLD_KEY, SCROLL, WAIT } from './shared-rules.ts'

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

/** The version's input object: the action and the fields it has (its rules: ./versions.ts). */
export const INPUT_20250124 = {
  action: StringEnum(Object.keys(ACTIONS_20250124) as Array<keyof typeof ACTIONS_20250124>, { description: 'The action to perform.' }),
  ...fieldProperties(FIELDS_20250124),
}
