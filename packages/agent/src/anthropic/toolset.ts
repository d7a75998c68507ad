/**
 * Claude's computer toolset (computer_toolset_20260801) over the gateway: the SDK's
 * `execute` override, as it documents for a remote desktop, forwards every member call as
 * its tool_use block to POST /computer/anthropic, and hands the SDK what a member returns
 * (nothing for a pure action, `{ data, mediaType }` for screenshot and zoom, `{ x, y }` for
 * cursor_position). Our refusal or failure becomes a ToolError with our message, which the
 * tool runner answers with is_error and goes on (tool-call.ts).
 */
import { BetaAbstractComputerToolset20260801, type BetaComputerMemberResult, type BetaComputerToolsetOptions, type BetaToolsetCallContext } from '@anthropic-ai/sdk/helpers/beta/toolsets'
import { GatewayClient, displayQuery, type ConnectionOptions, type Display } from '../client/index.ts'
import { callAnthropicTool } from './tool-call.ts'

export interface GatewayComputerToolsetOptions extends ConnectionOptions, BetaComputerToolsetOptions {
  /** The size of the screenshots Claude is shown (its coordinates are in their pixels); default the screen, scaled down to within Anthropic's image limits by the server. */
  display?: Display
  /** Screenshot encoding (png, the default; jpeg or webp with quality). */
  format?: 'png' | 'jpeg' | 'webp'
  quality?: number
}

interface ToolResultBlock { type: 'tool_result', is_error?: boolean, content: Array<{ type: string, text?: string, source?: { data: string, media_type: string } }> }

export class GatewayComputerToolset extends BetaAbstractComputerToolset20260801 {
  readonly client: GatewayClient
  readonly #query: Record<string, string | number>

  constructor (options: GatewayComputerToolsetOptions) {
    const { configs, confirm, toolConfigs } = options
    super({ configs, confirm, toolConfigs })
    this.client = new GatewayClient(options)
    this.#query = {
      ...displayQuery(options.display),
      ...(options.format && { format: options.format }),
      ...(options.quality !== undefined && { quality: options.quality }),
    }
  }

  protected override async execute (ctx: BetaToolsetCallContext, name: string, input: unknown): Promise<BetaComputerMemberResult> {
    const id = (ctx.toolUse as { id: string }).id
    const block = { type: 'tool_use', id, name, toolset_name: 'computer', input }
    const results = await callAnthropicTool<ToolResultBlock[]>(this.client, block, this.#query)
    return memberResult(name, results[0]!)
  }
}

function memberResult (name: string, result: ToolResultBlock): BetaComputerMemberResult {
  const [first] = result.content
  switch (name) {
    case 'screenshot':
    case 'zoom':
      return { data: first!.source!.data, mediaType: first!.source!.media_type as 'image/png' }
    case 'cursor_position': {
      const [, x, y] = /^X=(-?\d+),Y=(-?\d+)$/.exec(first!.text!)!
      return { x: Number(x), y: Number(y) }
    }
    default:
      // A pure action: the SDK writes its own acknowledgment.
      return undefined
  }
}
