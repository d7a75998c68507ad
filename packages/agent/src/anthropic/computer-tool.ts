/**
 * The older `computer` tools (computer_20251124, computer_20250124, computer_20241022) as a
 * runnable tool for `toolRunner`: the tool definition with the display the model is told, and
 * a `run` that sends the call's input to POST /computer/anthropic?tool_version=… and hands back
 * our tool_result content (the text and the screenshot). A refusal is a ToolError with our message
 * (tool-call.ts).
 */
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool'
import type { BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta/messages/messages'
import { GatewayClient, displayQuery, type ConnectionOptions, type Display } from '../client/index.ts'
import { callAnthropicTool } from './tool-call.ts'

export type ComputerToolVersion = 'computer_20251124' | 'computer_20250124' | 'computer_20241022'

export interface GatewayComputerToolOptions extends ConnectionOptions {
  version: ComputerToolVersion
  /** The display the model is told (display_width_px/display_height_px); coordinates are scaled from it. */
  display: Display
}

export function gatewayComputerTool (options: GatewayComputerToolOptions): BetaRunnableTool<Record<string, unknown>> {
  const client = new GatewayClient(options)
  const query = { tool_version: options.version, ...displayQuery(options.display) }
  return {
    type: options.version,
    name: 'computer',
    display_width_px: options.display.width,
    display_height_px: options.display.height,
    parse: (content: unknown) => content as Record<string, unknown>,
    async run (input, context) {
      const id = context?.toolUse.id
      const result = await callAnthropicTool<{ content: BetaToolResultContentBlockParam[] }>(client, input, { ...query, ...(id && { tool_use_id: id }) })
      return result.content
    },
  } as BetaRunnableTool<Record<string, unknown>>
}
