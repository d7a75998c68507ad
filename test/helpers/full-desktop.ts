/**
 * The real server as a process with the full desktop (--desktop full): spawned as `npm run dev`
 * runs it, on an Xvfb of its own, with a home of its own; its port read from its log. Ended at
 * teardown by PID — and every process of its desktop session after it, found by the session
 * marker in their environment, should the server have failed to.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
interface TestContext { teardown: (fn: () => unknown) => void }
import { descendants, processes } from './process-table.ts'
import { stopOwned } from './processes.ts'
import type { CupEnvelope } from '../../src/accessibility/schema.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const MARKER = 'COMPUTER_GATEWAY_SESSION'

export interface FullServer {
  server: ChildProcess
  url: string
  home: string
  exited: Promise<{ code: number | null, signal: string | null }>
  act: (payload: object) => Promise<{ status: number, body: Record<string, unknown> }>
  get: (path: string) => Promise<{ status: number, body: Record<string, unknown> }>
  /** Every line the server wrote to stdout (its JSON log), as they come. */
  lines: string[]
}

/** The server's living descendants, and every process of its sessions (the marker starts with its PID). */
export function serverProcesses (serverPid: number): Map<number, string> {
  const table = new Map([...processes()].filter(([, { state }]) => state !== 'Z'))
  const found = descendants(serverPid, table)
  const wanted = `${MARKER}=${serverPid}-`
  for (const [pid, { command }] of table) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').includes(wanted)) found.set(pid, command)
    } catch { /* gone, or not readable */ }
  }
  return found
}

/** The port a spawned server says it listens at on its stdout; refused if it exits first. Each line goes to `lines` too. */
export function listeningPort (server: ChildProcess, exited: Promise<unknown>, lines: string[] = []): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    createInterface({ input: server.stdout! }).on('line', (line) => {
      lines.push(line)
      const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line)
      if (match) resolve(Number(match[1]))
    })
    void exited.then(() => reject(new Error('the server exited at start')))
  })
}

/** With `home`, the session's home is that directory (left as it is); else a new one, removed at teardown. */
export async function startFullServer (t: TestContext, args: string[] = [], env: NodeJS.ProcessEnv = {}, options: { home?: string } = {}): Promise<FullServer> {
  const own = options.home === undefined
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'gateway-home-'))
  const serverEnv: NodeJS.ProcessEnv = { ...process.env, SCREEN: '1024x768x24', LOG_LEVEL: 'info', ...env }
  for (const name of ['ALLOW_APPS', 'DISPLAY', 'XAUTHORITY', 'AUTOSTART', 'DESKTOP', 'DESKTOP_HOME']) delete serverEnv[name]
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/runtime/server.ts', '--port', '0', '--desktop', 'full', '--home', home, ...args],
    { cwd: ROOT, env: serverEnv, stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<{ code: number | null, signal: string | null }>((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })))
  t.teardown(async () => {
    const left = serverProcesses(server.pid!)
    await stopOwned(server, false, 15_000)
    for (const pid of left.keys()) { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
    if (own) rmSync(home, { recursive: true, force: true })
  })
  const lines: string[] = []
  const port = await listeningPort(server, exited, lines)
  const url = `http://127.0.0.1:${port}`
  const answer = async (response: Response) => ({ status: response.status, body: await response.json() as Record<string, unknown> })
  return {
    server,
    url,
    home,
    exited,
    act: async (payload) => answer(await fetch(`${url}/computer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) })),
    get: async (path) => answer(await fetch(`${url}${path}`)),
    lines,
  }
}

/** A web server for the browser: every request's path is recorded; pages are small HTML documents by path. */
export async function recordingSite (t: TestContext, pages: Record<string, string>) {
  const requests: string[] = []
  const server = createServer((request: IncomingMessage, response) => {
    requests.push(request.url ?? '')
    const page = pages[(request.url ?? '').split('?')[0]!]
    response.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(page ?? 'not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  const { port } = server.address() as { port: number }
  return { origin: `http://127.0.0.1:${port}`, requests }
}

export interface TreeNode { id: string, role: string, name?: string, children?: TreeNode[] }

export function flattenTree (envelope: CupEnvelope): TreeNode[] {
  const out: TreeNode[] = []
  const visit = (nodes: TreeNode[]) => { for (const node of nodes) { out.push(node); visit(node.children ?? []) } }
  visit(envelope.tree as TreeNode[])
  return out
}

/** Polls GET /accessibility until `found` picks a node out of it; the last envelope and the node, or undefined after `timeoutMs`. */
export async function waitForNode (server: FullServer, query: string, found: (nodes: TreeNode[]) => TreeNode | undefined, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const { status, body } = await server.get(`/accessibility?${query}`).catch(() => ({ status: 0, body: {} }))
    const node = status === 200 ? found(flattenTree(body as unknown as CupEnvelope)) : undefined
    if (node || Date.now() > deadline) return node
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

export async function waitUntil (check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, stepMs))
  }
}
