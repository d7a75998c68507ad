/**
 * Claude's bash and text editor tools on the same desktop, as runnable tools for `toolRunner`
 * beside the computer tool or toolset: `gatewayBashTool({ baseUrl, token })` (the server's
 * --shell) and `gatewayTextEditorTool({ baseUrl, token })` (its --files). Each `run` sends the
 * call's input to POST /computer/anthropic?tool_version=… and hands back our tool_result content;
 * a refusal or a command the timeout killed is a ToolError with our text (is_error).
 */
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool'
import type { BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta/messages/messages'
import { ToolError } from '@anthropic-ai/sdk/helpers/beta/toolsets'
import { GatewayClient, type ConnectionOptions } from '../client/index.ts'
import { callAnthropicTool } from './tool-call.ts'

export type BashToolVersion = 'bash_20250124' | 'bash_20241022'
export type TextEditorToolVersion = 'text_editor_20250728' | 'text_editor_20250429' | 'text_editor_20250124' | 'text_editor_20241022'

const EDITOR_NAMES = {
  text_editor_20250728: 'str_replace_based_edit_tool',
  text_editor_20250429: 'str_replace_based_edit_tool',
  text_editor_20250124: 'str_replace_editor',
  text_editor_20241022: 'str_replace_editor',
} as const

function runnable (options: ConnectionOptions, type: string, name: string): BetaRunnableTool<Record<string, unknown>> {
  const client = new GatewayClient(options)
  return {
    type,
    name,
    parse: (content: unknown) => content as Record<string, unknown>,
    async run (input, context) {
      const id = context?.toolUse.id
      const result = await callAnthropicTool<{ content: BetaToolResultContentBlockParam[], is_error: boolean }>(client, input, { tool_version: type, ...(id && { tool_use_id: id }) })
      if (result.is_error) throw new ToolError(result.content)
      return result.content
    },
  } as BetaRunnableTool<Record<string, unknown>>
}

export function gatewayBashTool (options: ConnectionOptions & { version?: BashToolVersion }): BetaRunnableTool<Record<string, unknown>> {
  return runnable(options, options.version ?? 'bash_20250124', 'bash')
}

export function gatewayTextEditorTool (options: ConnectionOptions & { version?: TextEditorToolVersion }): BetaRunnableTool<Record<string, unknown>> {
  const version = options.version ?? 'text_editor_20250728'
  return runnable(options, version, EDITOR_NAMES[version])
}
