/** Starting our server as `npm start` runs it, on a free port, and waiting for its first answer. */
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { spawnOwned } from '../test/helpers/processes.ts'
import { client } from './http-client.ts'

export const root = new URL('..', import.meta.url)

export const freePort = () => new Promise<number>((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number }
    server.close(() => resolve(port))
  })
})

export async function waitHttp (port: number, body: unknown, timeoutMs = 20_000): Promise<void> {
  const http = client(port)
  const deadline = Date.now() + timeoutMs
  try {
    for (;;) {
      const ok = await http.post('/computer', body).then((r) => r.status === 200, () => false)
      if (ok) return
      if (Date.now() > deadline) throw new Error(`no answer on port ${port}`)
      await delay(20)
    }
  } finally { http.close() }
}

/** What `npm start` runs: package.json's start script execs the bin, whose shebang carries the memory settings. */
export function npmStartBin (): string {
  const script = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } }).scripts.start
  const match = /^exec (\S+)$/.exec(script.trim())
  if (!match) throw new Error(`package.json's start script does not exec the bin: ${script}`)
  return fileURLToPath(new URL(match[1]!, root))
}

/**
 * Our server as `npm start` runs it, with its flags and environment: compiled (npm run setup
 * builds dist/; the bench builds it when missing), and this process's own child (the shebang's
 * env execs node in place), for its RSS and CPU. Without `display` it starts its own Xvfb.
 */
export function startOurs (display: string | undefined, port: number, args: string[] = [], env: NodeJS.ProcessEnv = {}, group = false): ChildProcess {
  const serverEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env }
  if (display) serverEnv.DISPLAY = display
  else delete serverEnv.DISPLAY
  const log = process.env.BENCH_SERVER_LOG ? 'inherit' : 'ignore'
  return spawnOwned(undefined, npmStartBin(), ['--port', String(port), ...args], { cwd: root, env: serverEnv, stdio: ['ignore', log, log], group })
}

/** A process's command line, or undefined once it is gone. */
export async function commandLine (pid: number): Promise<string[] | undefined> {
  const text = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined)
  return text?.split('\0').filter(Boolean)
}

export async function childrenOf (pid: number): Promise<number[]> {
  return (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).split(' ').filter(Boolean).map(Number)
}

/** CPU time (user + system, all threads, in ms) a process has used so far; 0 once it is gone. */
export async function cpuMs (pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  if (!stat) return 0
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** The server's Xvfb (its child) — display and authority file — once it runs. */
export async function desktopOf (serverPid: number): Promise<{ display: string, authority: string, pid: number }> {
  for (const pid of await childrenOf(serverPid)) {
    const argv = await commandLine(pid)
    if (!argv || !/(^|\/)Xvfb$/.test(argv.find((a) => /Xvfb$/.test(a)) ?? '')) continue
    const at = argv.findIndex((a) => /Xvfb$/.test(a))
    const auth = argv.indexOf('-auth')
    return { display: argv[at + 1]!, authority: argv[auth + 1]!, pid }
  }
  throw new Error(`the server (pid ${serverPid}) runs no Xvfb`)
}

/** The driver worker: the server's node child. */
export async function workerOf (serverPid: number): Promise<number | undefined> {
  for (const pid of await childrenOf(serverPid)) {
    const argv = await commandLine(pid)
    if (argv && /(^|\/)node$/.test(argv[0]!)) return pid
  }
  return undefined
}
