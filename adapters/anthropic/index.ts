/**
 * Claude's computer toolset (computer_toolset_20260801) and `computer` tool (computer_20241022,
 * computer_20250124, computer_20251124).
 */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import { Type } from '@sinclair/typebox'
import { AnthropicComputer20241022, AnthropicComputer20250124, AnthropicComputer20251124 } from './versions.ts'
import { AnthropicComputerToolset20260801, ToolsetToolUse, TOOLSET_VERSION } from './computer_toolset_20260801.ts'
import { AnthropicOwnQuery, type AnthropicQuery } from './query.ts'
import { AnthropicToolResult } from './result.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type AnthropicBody, type AnthropicMeta } from './to-unified.ts'
import { toolsetSpace } from './toolset-display.ts'
import { AnthropicToolsetResult } from './toolset-result.ts'
import { toolsetToNativeResult } from './toolset-to-native-result.ts'
import { toolsetToUnified, type ToolsetBody, type ToolsetMeta } from './toolset-to-unified.ts'
import { withoutNulls } from './without-nulls.ts'
import { AGENT_TOOL_SCHEMAS, isAgentToolVersion } from './agent-tools.ts'
import { agentToolToNativeResult, agentToolToUnified, type AgentToolBody, type AgentToolMeta } from './agent-tool-call.ts'

export { AnthropicToolResult } from './result.ts'
export { AnthropicToolsetResult } from './toolset-result.ts'
export type { AnthropicBody, AnthropicMeta } from './to-unified.ts'
export type { ToolsetBody, ToolsetMeta } from './toolset-to-unified.ts'

/** Both answers, so the route serialises either (an object for a tool, a list for the toolset). */
const AnthropicResult = Type.Union([Type.Ref(AnthropicToolsetResult), Type.Ref(AnthropicToolResult)], {
  $id: 'AnthropicResult',
  title: 'AnthropicResult',
  description: 'computer_toolset_20260801: the list of tool_result blocks, one per member call; the computer_2024…/2025… tools: one tool_result block.',
})

const isToolset = (version: string) => version === TOOLSET_VERSION

export const anthropicAdapter: Adapter<AnthropicBody | ToolsetBody | AgentToolBody, AnthropicMeta | ToolsetMeta | AgentToolMeta, AnthropicQuery> = {
  name: 'anthropic',
  description: "Claude's computer toolset (default): a member tool_use block, or the content of the assistant's turn (its bash and text editor blocks run in their place, other blocks passed over), the member blocks run in order and stopping at the first failure, answered with the tool_result blocks the SDK's toolset renders (the acknowledgment, the image for screenshot and zoom, is_error and the not-executed text; no screenshot after a pure action). " +
    "Claude's computer tool (tool_version=computer_2025…/2024…): the tool_use block's input, or the whole block, answered with the tool_result block for the next user message (with tool_use_id when the block or the tool_use_id query gave it); every action but cursor_position, screenshot and zoom answers with a screenshot unless screenshot=false.",
  coordinates: 'toolset: the pixels of the screenshot Claude is shown (display_width_px/display_height_px; else the screen, scaled down to within 1568 px on the long edge and 1.15 megapixels); the computer tool: the display the tool was declared with (display_width_px/display_height_px, as in the tool definition; else the screen)',
  versions: [
    { name: TOOLSET_VERSION, description: 'The newest Claude models on the Claude API: one tool_use block per member (17: the 20251124 actions), toolset_name "computer"; the entry declares no display size.', schema: AnthropicComputerToolset20260801 },
    { name: 'computer_20251124', description: 'Claude Opus 4.5 and later (beta computer-use-2025-11-24): the 20250124 actions and zoom.', schema: AnthropicComputer20251124 },
    { name: 'computer_20250124', description: 'Claude Sonnet 3.7 to 4.5, Opus 4/4.1, Haiku 4.5 (beta computer-use-2025-01-24): clicks at a coordinate with held keys, drag from start_coordinate, scroll, hold_key, wait, triple_click, left_mouse_down/up.', schema: AnthropicComputer20250124 },
    { name: 'computer_20241022', description: 'Claude Sonnet 3.5 v2 (beta computer-use-2024-10-22): clicks and drags from where the pointer is.', schema: AnthropicComputer20241022 },
    { name: 'bash_20250124', description: "Claude's bash tool (--shell): {command} runs in the persistent session, {restart: true} ends it; answered with stdout, stderr and a non-zero exit code as text (is_error when the timeout killed it).", schema: AGENT_TOOL_SCHEMAS.bash_20250124 },
    { name: 'bash_20241022', description: 'The bash tool of Claude Sonnet 3.5 v2: as bash_20250124.', schema: AGENT_TOOL_SCHEMAS.bash_20241022 },
    { name: 'text_editor_20250728', description: "Claude's text editor (str_replace_based_edit_tool; --files): view, create, str_replace, insert over the desktop's home, answered with the reference tool's result strings.", schema: AGENT_TOOL_SCHEMAS.text_editor_20250728 },
    { name: 'text_editor_20250429', description: 'The text editor of Claude 4 (str_replace_based_edit_tool): as text_editor_20250728.', schema: AGENT_TOOL_SCHEMAS.text_editor_20250429 },
    { name: 'text_editor_20250124', description: 'The text editor of Claude Sonnet 3.7 (str_replace_editor), with undo_edit.', schema: AGENT_TOOL_SCHEMAS.text_editor_20250124 },
    { name: 'text_editor_20241022', description: 'The text editor of Claude Sonnet 3.5 v2 (str_replace_editor), with undo_edit.', schema: AGENT_TOOL_SCHEMAS.text_editor_20241022 },
  ],
  schemas: [ToolsetToolUse, AnthropicToolsetResult, AnthropicToolResult],
  query: AnthropicOwnQuery,
  prepare: withoutNulls,
  version: (query) => query.tool_version,
  space: (context) => isToolset(context.version)
    ? toolsetSpace(context.screen, context.query.display_width_px !== undefined)
    : undefined,
  translate: (body, context) => isToolset(context.version)
    ? toolsetToUnified(body as ToolsetBody, context)
    : isAgentToolVersion(context.version)
      ? agentToolToUnified(body as AgentToolBody, context)
      : toUnified(body as AnthropicBody, context),
  result: (outcome, context, translation) => isToolset(context.version)
    ? toolsetToNativeResult(outcome, translation as Parameters<typeof toolsetToNativeResult>[1])
    : isAgentToolVersion(context.version)
      ? agentToolToNativeResult(outcome, translation as Parameters<typeof agentToolToNativeResult>[1])
      : toNativeResult(outcome, translation as Parameters<typeof toNativeResult>[1]),
  resultSchema: AnthropicResult,
}
