/**
 * An MCP server (the SDK's) over McpTools, for one transport connection: Streamable HTTP makes
 * one per request (stateless), stdio one for the process. The SDK's low-level Server, not
 * McpServer: McpServer wants zod schemas, and ours are the app's TypeBox (JSON) schemas.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { McpTools } from './tools-service.ts'

export const SERVER_INFO = { name: 'computer-gateway', title: 'computer-gateway: an X11 desktop', version: '0.1.0' }

const INSTRUCTIONS = 'Drives a real desktop with mouse and keyboard. Start with take_screenshot; give coordinates ' +
  'in the pixels of the last screenshot. Actions run one at a time, and nothing stays pressed after an error. ' +
  'get_accessibility_tree (compact text) finds controls by role and name; element_action acts on them by id.'

/**
 * `transportSignal`: aborted when the transport's client has gone (an HTTP request closed early).
 * `scope`: the client's (its MCP session's), whose bash sessions are its own.
 */
export function createMcpServer (tools: McpTools, transportSignal?: AbortSignal, scope?: string): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await tools.list() }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const signal = transportSignal ? AbortSignal.any([extra.signal, transportSignal]) : extra.signal
    return tools.call(request.params.name, request.params.arguments, signal, scope)
  })
  return server
}
