/**
 * The versions of Claude's computer tool side by side, newest first: the one place that knows
 * more than one. Each version's file describes that version alone; here its input schema gets
 * its own rules plus a refusal of every action only a newer version has, which names that
 * version (so adding a version touches this table, not the older versions' files).
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox'
import { actionRules, type VersionActions } from './action-rules.ts'
import { INPUT_20241022, V20241022 } from './computer_20241022.ts'
import { INPUT_20250124, V20250124 } from './computer_20250124.ts'
import { INPUT_20251124, V20251124 } from './computer_20251124.ts'
import { versionBody } from './tool-use.ts'

const NEWEST_FIRST: readonly VersionActions[] = [V20251124, V20250124, V20241022]

function input<P extends TProperties> (version: VersionActions, properties: P) {
  const newer = NEWEST_FIRST.slice(0, NEWEST_FIRST.indexOf(version)).reverse()
  const title = `AnthropicComputer${version.version.replace('computer_', '')}Input`
  return Type.Object(properties, { additionalProperties: false, title, allOf: actionRules(version, newer) })
}

export const AnthropicComputer20251124Input = input(V20251124, INPUT_20251124)
export type AnthropicComputer20251124Input = Static<typeof AnthropicComputer20251124Input>
export const AnthropicComputer20251124 = versionBody('AnthropicComputer20251124',
  'The computer_20251124 tool input, or the whole tool_use block carrying it.', AnthropicComputer20251124Input)

export const AnthropicComputer20250124Input = input(V20250124, INPUT_20250124)
export type AnthropicComputer20250124Input = Static<typeof AnthropicComputer20250124Input>
export const AnthropicComputer20250124 = versionBody('AnthropicComputer20250124',
  'The computer_20250124 tool input, or the whole tool_use block carrying it.', AnthropicComputer20250124Input)

export const AnthropicComputer20241022Input = input(V20241022, INPUT_20241022)
export type AnthropicComputer20241022Input = Static<typeof AnthropicComputer20241022Input>
export const AnthropicComputer20241022 = versionBody('AnthropicComputer20241022',
  'The computer_20241022 tool input, or the whole tool_use block carrying it.', AnthropicComputer20241022Input)
