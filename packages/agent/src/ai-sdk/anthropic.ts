/**
 * `execute` and `toModelOutput` for the Vercel AI SDK's Anthropic computer tools:
 * `anthropic.tools.computer_20251124` (and _20250124) and `anthropic.tools.computerToolset_20260801`,
 * whose `execute` receives the member name as `action`. Each call runs through POST
 * /computer/anthropic; the screenshot reaches the model as a `file` content part. A refusal
 * throws a GatewayError, which generateText records as a tool-error and hands to the model.
 */
import { GatewayClient, displayQuery, type ConnectionOptions, type Display } from '../client/index.ts'

export type AnthropicComputerVersion = 'computer_20251124' | 'computer_20250124' | 'computer_toolset_20260801'

export interface AnthropicComputerOptions extends ConnectionOptions {
  /** computer_20251124 (default), computer_20250124, or computer_toolset_20260801 for computerToolset_20260801. */
  version?: AnthropicComputerVersion
  /**
   * The display the model is told (the versioned tools' displayWidthPx/displayHeightPx; pass the
   * same); for the toolset, the size of its screenshots. Default the screen (the toolset: scaled
   * to within Anthropic's image limits).
   */
  display?: Display
}

/** What `execute` resolves to: the tool result's text and image. */
export interface ComputerOutput {
  text: string | null
  image: { data: string, mediaType: string } | null
}

interface Input { action: string, [field: string]: unknown }
interface ToolResultBlock { content: Array<{ type: string, text?: string, source?: { data: string, media_type: string } }> }

export function anthropicComputer (options: AnthropicComputerOptions) {
  const client = new GatewayClient(options)
  const version = options.version ?? 'computer_20251124'
  const query = { ...displayQuery(options.display), ...(version !== 'computer_toolset_20260801' && { tool_version: version }) }
  return {
    async execute (input: Input, { toolCallId }: { toolCallId: string }): Promise<ComputerOutput> {
      const payload = version === 'computer_toolset_20260801' ? toolsetBlock(input, toolCallId) : input
      const answer = await client.post('/computer/anthropic', payload as never, { query: query as never }) as unknown
      const result = (Array.isArray(answer) ? answer[0] : answer) as ToolResultBlock
      const text = result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n')
      const image = result.content.find((c) => c.type === 'image')?.source
      return { text: text || null, image: image ? { data: image.data, mediaType: image.media_type } : null }
    },
    toModelOutput ({ output }: { output: ComputerOutput }) {
      return {
        type: 'content' as const,
        value: [
          ...(output.text ? [{ type: 'text' as const, text: output.text }] : []),
          ...(output.image ? [{ type: 'file' as const, data: { type: 'data' as const, data: output.image.data }, mediaType: output.image.mediaType }] : []),
        ],
      }
    },
  }
}

/** The toolset's input (the member as `action`) as the member's tool_use block. */
function toolsetBlock ({ action, ...input }: Input, id: string) {
  return { type: 'tool_use', id, name: action, toolset_name: 'computer', input }
}
