/**
 * One call of Claude's computer tools to POST /computer/anthropic. Our refusal or failure (any
 * 4xx/5xx but a refused token) becomes a ToolError with our message, which the tool runner
 * answers with is_error and goes on; a refused token (401/403), a timeout or no server stay
 * GatewayErrors, which end the run: the model cannot fix them.
 */
import { ToolError } from '@anthropic-ai/sdk/helpers/beta/toolsets'
import { GatewayError, type GatewayClient } from '../client/index.ts'

export async function callAnthropicTool<T> (client: GatewayClient, body: unknown, query: Record<string, unknown>): Promise<T> {
  try {
    return await client.post('/computer/anthropic', body as never, { query: query as never }) as unknown as T
  } catch (error) {
    if (error instanceof GatewayError && error.status >= 400 && error.status !== 401 && error.status !== 403) {
      throw new ToolError([{ type: 'text', text: error.message }])
    }
    throw error
  }
}
