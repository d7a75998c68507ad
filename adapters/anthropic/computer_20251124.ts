/**
 * `computer_20251124` (beta header computer-use-2025-11-24: Claude Opus 4.5 and later): the
 * 20250124 actions plus `zoom`, a view of one region of the screen.
 */
import { StringEnum } from '../../src/actions/common.ts'
import type { ActionTable, VersionActions } from './action-rules.ts'
import { fieldProperties } from './fields-schema.ts'
import { ACTIONS_20250124 } from './computer_20250124.ts'

export const ACTIONS_20251124 = {
  ...ACTIONS_20250124,
  zoom: { required: ['region'] },
} as const satisfies ActionTable

const FIELDS_20251124 = ['coordinate', 'start_coordinate', 'text', 'scroll_direction', 'scroll_amount', 'duration', 'region'] as const

export const V20251124: VersionActions = { version: 'computer_20251124', fields: FIELDS_20251124, actions: ACTIONS_20251124 }

/** The version's input object: the action and the fields it has (its rules: ./versions.ts). */
export const INPUT_20251124 = {
  action: StringEnum(Object.keys(ACTIONS_20251124) as Array<keyof typeof ACTIONS_20251124>, { description: 'The action to perform.' }),
  ...fieldProperties(FIELDS_20251124),
}
