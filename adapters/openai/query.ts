/** The adapter's own query parameters, beside screenshot and display_width_px/display_height_px. */
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'

export const TOOL_VERSIONS = ['computer', 'computer_use_preview'] as const
export type ToolVersion = (typeof TOOL_VERSIONS)[number]
export const NEWEST: ToolVersion = 'computer'

/** A wheel notch scrolls 120 px in Chromium on X11 (shared research, feasibility §4), so the model's pixels land where it meant. */
export const DEFAULT_PX_PER_NOTCH = 120

/** `wait` names no duration; OpenAI's computer use guide sleeps 2 s for it. */
export const DEFAULT_WAIT_SECONDS = 2

export const OpenaiOwnQuery = Type.Object({
  tool_version: Type.Optional(StringEnum([...TOOL_VERSIONS], {
    description: `The \`type\` of the computer tool the model was given. Default: ${NEWEST}.`,
  })),
  call_id: Type.Optional(Type.String({
    minLength: 1,
    description: 'The call_id of the computer_call, when the body is a bare action or list; the answer carries it.',
  })),
  acknowledge_safety_checks: Type.Optional(Type.String({
    minLength: 1,
    description: "The user confirmed the call's pending_safety_checks: `true` for all of them, or their ids, comma-separated. They are echoed as acknowledged_safety_checks.",
  })),
  scroll_px_per_notch: Type.Optional(Type.Number({
    exclusiveMinimum: 0,
    description: `Pixels of scroll_x/scroll_y per wheel notch; a remainder rounds away from zero, so any non-zero scroll is at least one notch. Default: ${DEFAULT_PX_PER_NOTCH}.`,
  })),
  wait_seconds: Type.Optional(Type.Number({
    exclusiveMinimum: 0,
    description: `How long a wait action waits, in seconds. Default: ${DEFAULT_WAIT_SECONDS}.`,
  })),
})

export type OpenaiQuery = ActionQuery & Static<typeof OpenaiOwnQuery>
