/**
 * `computer_20241022` (beta header computer-use-2024-10-22: Claude Sonnet 3.5 v2): ten
 * actions; clicks happen where the pointer is, and `left_click_drag` drags from there.
 */
import { StringEnum } from '../../src/actions/common.ts'
import type { ActionRule, ActionTable, VersionActions } from './action-rules.ts'
import { fieldProperties } from './fields-schema.ts'

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

/** The version's input object: the action and the fields it has (its rules: ./versions.ts). */
export const INPUT_20241022 = {
  action: StringEnum(Object.keys(ACTIONS_20241022) as Array<keyof typeof ACTIONS_20241022>, { description: 'The action to perform.' }),
  ...fieldProperties(FIELDS_20241022),
}
