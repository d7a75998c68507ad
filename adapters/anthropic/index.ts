/** Claude's `computer` tool (computer_20241022, computer_20250124, computer_20251124). */
import type { Adapter } from '../../src/adapter.ts'
import { AnthropicComputer20241022, AnthropicComputer20250124, AnthropicComputer20251124 } from './versions.ts'
import { AnthropicOwnQuery, type AnthropicQuery } from './query.ts'
import { AnthropicToolResult } from './result.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type AnthropicBody, type AnthropicMeta } from './to-unified.ts'
import { withoutNulls } from './without-nulls.ts'

export { AnthropicToolResult } from './result.ts'
export type { AnthropicBody, AnthropicMeta } from './to-unified.ts'

export const anthropicAdapter: Adapter<AnthropicBody, AnthropicMeta, AnthropicQuery> = {
  name: 'anthropic',
  description: "Claude's computer tool: the tool_use block's input, or the whole tool_use block, answered with the tool_result block for the next user message (with tool_use_id when the block or the tool_use_id query gave it). Every action but cursor_position, screenshot and zoom answers with a screenshot unless screenshot=false.",
  coordinates: 'the display the tool was declared with (display_width_px/display_height_px, as in the tool definition; else the screen)',
  versions: [
    { name: 'computer_20251124', description: 'Claude Opus 4.5 and later (beta computer-use-2025-11-24): the 20250124 actions and zoom.', schema: AnthropicComputer20251124 },
    { name: 'computer_20250124', description: 'Claude Sonnet 3.7 to 4.5, Opus 4/4.1, Haiku 4.5 (beta computer-use-2025-01-24): clicks at a coordinate with held keys, drag from start_coordinate, scroll, hold_key, wait, triple_click, left_mouse_down/up.', schema: AnthropicComputer20250124 },
    { name: 'computer_20241022', description: 'Claude Sonnet 3.5 v2 (beta computer-use-2024-10-22): clicks and drags from where the pointer is.', schema: AnthropicComputer20241022 },
  ],
  query: AnthropicOwnQuery,
  prepare: withoutNulls,
  version: (query) => query.tool_version,
  translate: toUnified,
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: AnthropicToolResult,
}
