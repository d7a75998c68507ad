/** The adapter's own query parameters, beside screenshot and display_width_px/display_height_px. */
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'

export const TOOL_VERSIONS = ['computer_toolset_20260801', 'computer_20251124', 'computer_20250124', 'computer_20241022',
  'bash_20250124', 'bash_20241022', 'text_editor_20250728', 'text_editor_20250429', 'text_editor_20250124', 'text_editor_20241022'] as const
export type ToolVersion = (typeof TOOL_VERSIONS)[number]
export const NEWEST: ToolVersion = 'computer_toolset_20260801'

export const AnthropicOwnQuery = Type.Object({
  tool_version: Type.Optional(StringEnum([...TOOL_VERSIONS], {
    description: `The \`type\` of the tool the model was given: the computer tool or toolset, the bash tool (--shell) or the text editor (--files). Default: ${NEWEST}.`,
  })),
  tool_use_id: Type.Optional(Type.String({
    minLength: 1,
    description: 'The id of the tool_use block, when the body is its bare input; the answer carries it as tool_use_id (not for the toolset, whose blocks carry their ids).',
  })),
})

export type AnthropicQuery = ActionQuery & Static<typeof AnthropicOwnQuery>
