/**
 * /mcp — the Model Context Protocol over Streamable HTTP, stateless: every POST gets a new
 * MCP server and transport over the app's one McpTools (src/mcp), and nothing is kept between
 * requests. The tools hold no per-client state (the desktop's input queue is the executor's),
 * so a session table would only be something to leak, expire and share between replicas.
 * Auth and the Origin/Host guard are the app's onRequest hooks, as for every route.
 *
 * One thing is a client's own: its bash sessions. An `initialize` is answered with an
 * Mcp-Session-Id (a fresh UUID, kept nowhere), which MCP clients send with every later
 * request; the id scopes the client's bash sessions (two clients that both use "default" get a
 * bash each), and DELETE /mcp with it, which a client sends to end its session, ends them.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { MethodNotAllowed } from '../src/errors/errors.ts'
import { mcpScope } from '../src/mcp/tools-service.ts'
import { strictTextBodies } from '../src/http/text-bodies.ts'
import { clientGone } from './run-options.ts'

export const MCP_PATH = '/mcp'

// The MCP SDK (and the zod it brings) costs ~30 MB and a few hundred ms to load: a server that
// is only driven over REST never pays for it, one driven over MCP pays once, at the first POST.
let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('../src/mcp/server.ts')]> | undefined
const loadMcp = () => (mcpModules ??= Promise.all([
  import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  import('../src/mcp/server.ts')
]))

export const mcpRoutes: FastifyPluginAsync = async (fastify) => {
  strictTextBodies(fastify)

  // The MCP endpoint describes itself (tools/list); it is not part of the REST document.
  fastify.post(MCP_PATH, { schema: { hide: true } }, async (request, reply) => {
    const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp()
    const signal = clientGone(reply)
    let session = sessionOf(request)
    if (initializes(request.body)) {
      session = randomUUID()
      reply.header('mcp-session-id', session)
    }
    const server = createMcpServer(fastify.mcpTools, signal, session === undefined ? undefined : mcpScope(session))
    // JSON answers rather than an SSE stream: a tool call has one result and sends no progress.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    reply.raw.once('close', () => {
      void transport.close()
      void server.close()
    })
    passHeaders(reply)
    reply.hijack()
    try {
      await server.connect(transport)
      await transport.handleRequest(request.raw, reply.raw, request.body)
    } catch (error) {
      request.log.error({ err: error }, 'the MCP transport failed')
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' })
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal server error' }, id: null }))
      }
    }
  })

  // Stateless: there is no server-initiated stream to open (GET); a session ends its bash sessions (DELETE).
  const notAllowed = async (_request: unknown, reply: FastifyReply) => {
    reply.header('allow', 'POST, DELETE')
    throw new MethodNotAllowed(`${MCP_PATH} is stateless and answers POST (each JSON-RPC message) and DELETE with an Mcp-Session-Id (which ends that session's bash sessions); there is no stream to open`)
  }
  fastify.get(MCP_PATH, { schema: { hide: true } }, notAllowed)
  fastify.delete(MCP_PATH, { schema: { hide: true } }, async (request, reply) => {
    const session = sessionOf(request)
    if (session === undefined) return notAllowed(request, reply)
    return { bash_sessions_ended: await fastify.mcpTools.endSession(mcpScope(session)) }
  })
}

/** The Mcp-Session-Id a client sent (the one its initialize was answered with), if any. */
function sessionOf (request: FastifyRequest): string | undefined {
  const id = request.headers['mcp-session-id']
  return typeof id === 'string' && id !== '' ? id : undefined
}

/** Whether a JSON-RPC body (one message or a batch) holds an initialize request. */
function initializes (body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body]
  return messages.some((message) => typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize')
}

/** Headers the app's hooks set (CORS for an allowed origin) go out on the raw response the transport writes. */
function passHeaders (reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value as string | string[] | number)
  }
}
