/**
 * MCP over stdin/stdout, for clients that launch a command rather than call a URL. stdout
 * carries the protocol alone (the logger writes to stderr); the process ends when the client
 * closes stdin. The one client is one MCP session: its bash sessions end with it.
 */
import { randomUUID } from 'node:crypto'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Log } from '../runtime/logger.ts'
import { createMcpServer } from './server.ts'
import { mcpScope, type McpTools } from './tools-service.ts'

/** Serves `tools` on this process' stdio; resolves once the client has closed its end. */
export async function serveStdio (tools: McpTools, log: Log): Promise<void> {
  const scope = mcpScope(randomUUID())
  const server = createMcpServer(tools, undefined, scope)
  const transport = new StdioServerTransport()
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve)
    process.stdin.once('close', resolve)
    transport.onclose = () => resolve()
  })
  await server.connect(transport)
  log.info({ transport: 'stdio' }, 'serving MCP on stdin/stdout')
  await ended
  log.info({ transport: 'stdio' }, 'the MCP client closed stdin')
  await tools.endSession(scope).catch(() => {})
  await server.close().catch(() => {})
}
