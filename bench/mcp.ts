/**
 * A click and a screenshot over MCP (the SDK's Client, Streamable HTTP, as an agent would
 * connect) beside the same over POST /computer, on the same server, interleaved (HTTP, MCP,
 * HTTP, MCP …) so drift hits both alike. Prints one line per action and returns the rows.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { client } from './http-client.ts'
import { type Stats, fmt, stats } from './percentile.ts'

export interface McpRow { kind: string, http: Stats, mcp: Stats }

const point = (i: number): [number, number] => [200 + (i * 37) % 800, 150 + (i * 53) % 500]

const KINDS: Array<{ kind: string, tool: string, args: (i: number) => Record<string, unknown> }> = [
  { kind: 'click', tool: 'click_mouse', args: (i) => ({ button: 'left', coordinates: point(i) }) },
  { kind: 'screenshot 1280x800', tool: 'take_screenshot', args: () => ({}) },
]

export async function mcpBench (port: number, iterations: number): Promise<McpRow[]> {
  const http = client(port)
  const mcp = new Client({ name: 'computer-gateway-bench', version: '1.0.0' })
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
  const rows: McpRow[] = []
  try {
    for (const { kind, tool, args } of KINDS) {
      const overHttp: number[] = []
      const overMcp: number[] = []
      for (let i = 0; i < Math.max(2, iterations); i++) {
        let started = performance.now()
        const response = await http.post('/computer', { action: tool, ...args(i) })
        overHttp.push(performance.now() - started)
        if (response.status !== 200) throw new Error(`POST /computer ${tool}: ${response.status} ${response.body.slice(0, 200)}`)
        started = performance.now()
        const result = await mcp.callTool({ name: tool, arguments: args(i) })
        overMcp.push(performance.now() - started)
        if (result.isError) throw new Error(`MCP ${tool}: ${JSON.stringify(result.content).slice(0, 200)}`)
      }
      rows.push({ kind, http: stats(overHttp), mcp: stats(overMcp) })
    }
  } finally {
    await mcp.close()
    http.close()
  }
  for (const row of rows) {
    console.log(`${row.kind} over MCP | ${fmt(row.mcp.p50)} / ${fmt(row.mcp.p95)} | POST /computer ${fmt(row.http.p50)} / ${fmt(row.http.p95)} | MCP costs ${fmt(row.mcp.p50 - row.http.p50)} ms more (p50)`)
  }
  return rows
}
