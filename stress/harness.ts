/**
 * What every stress phase stands on: processes ended by PID whatever happens, the server
 * started as a user starts it (compiled, its own Xvfb, a token, loopback, a free port), HTTP
 * with a deadline on every request, an application on the server's desktop (an xterm whose
 * input goes to a file), and what X itself says is held or where the pointer is.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { existsSync, openSync, closeSync } from 'node:fs'
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'

export const ROOT = new URL('..', import.meta.url).pathname
/** util-linux's setpriv (on every Debian), for --pdeathsig. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path))

// ---------------------------------------------------------------- processes

interface Owned { name: string, pid?: number, child?: ChildProcess, graceMs: number, descendants: () => Promise<number[]> }

/**
 * Every process this run starts. An entry is registered before its spawn, so a failure or an
 * interrupt between the two still ends it; ending is SIGTERM, then SIGKILL after its grace,
 * then SIGKILL to whatever it had started itself and left behind (by PID, start time checked).
 */
export class Processes {
  readonly #owned: Owned[] = []
  #closing?: Promise<void>

  spawn (name: string, command: string, args: string[], options: SpawnOptions & { graceMs?: number } = {}): ChildProcess {
    const entry: Owned = { name, graceMs: options.graceMs ?? 1000, descendants: async () => [] }
    this.#owned.push(entry)
    // The kernel ends it with this process, however that ends (a test runner's kill included).
    const child = SETPRIV ? spawn(SETPRIV, ['--pdeathsig', 'SIGKILL', '--', command, ...args], options) : spawn(command, args, options)
    entry.child = child
    entry.pid = child.pid
    if (child.pid !== undefined) entry.descendants = () => descendants(child.pid!)
    child.on('error', () => {})
    return child
  }

  /** Ends one process started here (and what it left behind). */
  async end (child: ChildProcess): Promise<void> {
    const entry = this.#owned.find((e) => e.child === child)
    if (entry) await endOne(entry)
  }

  endAll (): Promise<void> {
    this.#closing ??= (async () => {
      for (const entry of [...this.#owned].reverse()) await endOne(entry)
    })()
    return this.#closing
  }
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

async function endOne (entry: Owned): Promise<void> {
  const child = entry.child
  if (!child || child.pid === undefined) return
  // Known before the parent goes: once it is gone its orphans are re-parented and lost to us.
  const left = await Promise.all((await entry.descendants()).map(async (pid) => ({ pid, start: await startTime(pid) })))
  if (alive(child)) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    // A stopped process cannot act on SIGTERM.
    try { process.kill(child.pid, 'SIGCONT') } catch { /* gone */ }
    const timer = setTimeout(() => { if (alive(child)) child.kill('SIGKILL') }, entry.graceMs)
    await Promise.race([exited, delay(entry.graceMs + 3000)])
    clearTimeout(timer)
  }
  for (const { pid, start } of left) {
    if (start !== undefined && (await startTime(pid)) === start) {
      try { process.kill(pid, 'SIGKILL') } catch { /* gone */ }
    }
  }
}

/** Every process below `pid`, children first. */
export async function descendants (pid: number): Promise<number[]> {
  const out: number[] = []
  const queue = [pid]
  while (queue.length > 0) {
    const parent = queue.shift()!
    const tasks = await readdir(`/proc/${parent}/task`).catch(() => [] as string[])
    for (const task of tasks) {
      const children = await readFile(`/proc/${parent}/task/${task}/children`, 'utf8').catch(() => '')
      for (const child of children.split(' ').filter(Boolean).map(Number)) {
        if (!out.includes(child)) { out.push(child); queue.push(child) }
      }
    }
  }
  return out
}

/** Clock ticks since boot when `pid` started (field 22 of /proc/pid/stat): tells a PID from its reuse. */
export async function startTime (pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined)
  if (!stat) return undefined
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[19])
}

export async function cmdline (pid: number): Promise<string[]> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
  return raw.split('\0').filter(Boolean)
}

export async function rssMb (pids: number[]): Promise<number> {
  let kb = 0
  for (const id of pids) {
    const status = await readFile(`/proc/${id}/status`, 'utf8').catch(() => '')
    kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  }
  return Math.round(kb / 1024)
}

// ---------------------------------------------------------------- HTTP with deadlines

export interface Answer {
  status: number // 0: no answer within the deadline; -1: the connection failed
  ms: number
  body: string
  headers: Record<string, string | string[] | undefined>
  error?: string
}

export interface SendOptions {
  method?: 'GET' | 'POST'
  path: string
  body?: Buffer | string
  contentType?: string | null // null: no content-type header at all
  headers?: Record<string, string>
  deadlineMs: number
  token?: string | null // undefined: the server's token; null: none
}

export class Http {
  readonly agent: Agent
  constructor (readonly port: number, readonly token: string, sockets = 16) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets })
  }

  send (options: SendOptions): Promise<Answer> {
    const started = performance.now()
    const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body)
    const headers: Record<string, string> = { ...options.headers }
    const token = options.token === undefined ? this.token : options.token
    if (token !== null && headers.authorization === undefined) headers.authorization = `Bearer ${token}`
    if (body !== undefined) {
      headers['content-length'] = String(body.length)
      if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json'
    }
    return new Promise((resolve) => {
      let settled = false
      const finish = (answer: Omit<Answer, 'ms'>) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve({ ...answer, ms: performance.now() - started })
      }
      const req = request({ host: '127.0.0.1', port: this.port, path: options.path, method: options.method ?? (body ? 'POST' : 'GET'), agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => finish({ status: res.statusCode ?? -1, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }))
        res.on('error', (error) => finish({ status: -1, body: '', headers: {}, error: error.message }))
      })
      const timer = setTimeout(() => {
        finish({ status: 0, body: '', headers: {}, error: `no answer within ${options.deadlineMs} ms` })
        req.destroy()
      }, options.deadlineMs)
      // A server may answer (413) and close before the body is written: the write fails first,
      // and the answer is still read.
      req.on('error', (error) => { setTimeout(() => finish({ status: -1, body: '', headers: {}, error: error.message }), 200) })
      req.end(body)
    })
  }

  post (path: string, json: unknown, deadlineMs: number, extra: Partial<SendOptions> = {}) {
    return this.send({ path, body: JSON.stringify(json), deadlineMs, ...extra })
  }

  get (path: string, deadlineMs: number) { return this.send({ path, deadlineMs }) }

  close () { this.agent.destroy() }
}

/** What SPEC §7 allows while the desktop may be restarting: a 200, or a 503 that says when to retry. */
export const okOrRetry = (a: Answer) => a.status === 200 || (a.status === 503 && a.headers['retry-after'] !== undefined)

// ---------------------------------------------------------------- the server

export const freePort = () => new Promise<number>((resolve, reject) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number }
    server.close(() => resolve(port))
  })
  server.on('error', reject)
})

export interface Health { ready: boolean, display: string | null, screen: { width: number, height: number } | null, held: { keys: string[], buttons: string[] }, xauthority?: string }

export interface Server {
  child: ChildProcess
  pid: number
  port: number
  token: string
  http: Http
  logFile: string
  health: (deadlineMs?: number) => Promise<{ answer: Answer, health?: Health }>
  /** The X environment a client of this server's display needs (DISPLAY, and XAUTHORITY when the display has one). */
  xEnv: () => Promise<NodeJS.ProcessEnv>
  xvfbPid: () => Promise<number | undefined>
  /** The driver worker that serves actions now: the oldest one (a spare is always started after the one in use). */
  workerPid: () => Promise<number | undefined>
  /** The server and everything it started, for RSS. */
  tree: () => Promise<number[]>
}

export interface ServerOptions { extraArgs?: string[], startDeadlineMs?: number, xauthority?: string }

export async function startServer (procs: Processes, workdir: string, options: ServerOptions = {}): Promise<Server> {
  const port = await freePort()
  const token = `stress-${Math.random().toString(36).slice(2)}`
  const logFile = join(workdir, `server-${port}.log`)
  // The token in the environment, not on the command line (which every local user reads).
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: process.env.STRESS_SERVER_LOG_LEVEL ?? 'warn', API_TOKEN: token }
  delete env.API_TOKEN_FILE
  delete env.DISPLAY
  delete env.XAUTHORITY
  const log = openSync(logFile, 'a')
  // The server's own grace on SIGTERM is 10 s (close-with-grace); it ends its Xvfb, jwm, workers and bus.
  const child = procs.spawn('server', process.execPath, ['dist/src/runtime/server.js', '--host', '127.0.0.1', '--port', String(port), ...(options.extraArgs ?? [])],
    { cwd: ROOT, env, stdio: ['ignore', log, log], graceMs: 12_000 })
  closeSync(log)
  const http = new Http(port, token, 64)
  const health = async (deadlineMs = 5000) => {
    const answer = await http.get('/health', deadlineMs)
    let parsed: Health | undefined
    try { parsed = answer.status > 0 ? JSON.parse(answer.body) as Health : undefined } catch { /* not JSON */ }
    return { answer, health: parsed }
  }
  const children = async (match: (args: string[]) => boolean) => {
    const found: Array<{ pid: number, start: number }> = []
    for (const pid of await descendants(child.pid!)) {
      const args = await cmdline(pid)
      if (match(args)) found.push({ pid, start: (await startTime(pid)) ?? Infinity })
    }
    return found.sort((a, b) => a.start - b.start)
  }
  const xvfbPid = async () => (await children((a) => /(^|\/)Xvfb$/.test(a[0] ?? '')))[0]?.pid
  const server: Server = {
    child, pid: child.pid!, port, token, http, logFile, health,
    xvfbPid,
    workerPid: async () => (await children((a) => a.some((arg) => arg.endsWith('nut-worker.js'))))[0]?.pid,
    tree: async () => [child.pid!, ...(await descendants(child.pid!))],
    xEnv: async () => {
      const h = (await health()).health
      const display = h?.display
      if (!display) throw new Error('the server reports no display')
      const xenv: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display }
      delete xenv.XAUTHORITY
      const auth = h.xauthority ?? (await xvfbAuthFile(await xvfbPid())) ?? options.xauthority
      if (auth) xenv.XAUTHORITY = auth
      return xenv
    },
  }
  const deadline = Date.now() + (options.startDeadlineMs ?? 45_000)
  for (;;) {
    if (!alive(child)) throw new Error(`the server exited before it was ready (see ${logFile})`)
    const { health: h } = await health(2000)
    if (h?.ready && h.display) return server
    if (Date.now() > deadline) throw new Error(`the server was not ready within ${options.startDeadlineMs ?? 45_000} ms (see ${logFile})`)
    await delay(100)
  }
}

/**
 * The authority file an X client of this display needs: the server may say it in /health;
 * otherwise it is what its Xvfb was started with (`-auth FILE`), the standard way to make a
 * display private. None: the display takes any local client.
 */
async function xvfbAuthFile (pid: number | undefined): Promise<string | undefined> {
  if (pid === undefined) return undefined
  const args = await cmdline(pid)
  const at = args.indexOf('-auth')
  return at >= 0 ? args[at + 1] : undefined
}

// ---------------------------------------------------------------- X, from outside the server

export function x (env: NodeJS.ProcessEnv, command: string, args: string[], timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: timeoutMs, killSignal: 'SIGKILL' }, (error, stdout) => {
      if (error) reject(error)
      else resolve(stdout.trim())
    })
  })
}

/** Keys and buttons X reports down on the XTest devices (what the server presses). */
export async function heldOnX (env: NodeJS.ProcessEnv): Promise<string[]> {
  const states = await Promise.all(['Virtual core XTEST keyboard', 'Virtual core XTEST pointer'].map((device) => x(env, 'xinput', ['query-state', device])))
  return states.join('\n').split('\n').filter((line) => /=down/.test(line)).map((line) => line.trim())
}

export async function pointerOnX (env: NodeJS.ProcessEnv): Promise<[number, number]> {
  const out = await x(env, 'xdotool', ['getmouselocation'])
  const match = /x:(-?\d+) y:(-?\d+)/.exec(out)
  if (!match) throw new Error(`xdotool getmouselocation: ${out}`)
  return [Number(match[1]), Number(match[2])]
}

// ---------------------------------------------------------------- the application

/**
 * An xterm on the server's desktop running `cat > FILE` in raw mode: every byte the keyboard
 * produces reaches the file at once (no line buffering that could drop a long line, no ^C that
 * could end cat), so the file is what the application received, in order.
 */
export class App {
  child?: ChildProcess
  file = ''
  window = ''
  area = { x: 0, y: 0, width: 0, height: 0 }
  #launches = 0

  #pid?: number

  /**
   * `via: 'launch_app'`: the server starts it from its allow-list (start the server with
   * `App.allowArgs(file)`), as users launching applications through the API do; else it is
   * spawned here with the server's display, as any X client on that desktop would be.
   */
  constructor (readonly procs: Processes, readonly server: Server, readonly workdir: string, readonly via: 'spawn' | 'launch_app' = 'spawn', readonly allowedFile?: string) {}

  /** The server's --allow-app for an xterm writing to `file` (appended: each launch adds to it). */
  static async allowArgs (workdir: string): Promise<{ args: string[], file: string }> {
    const file = join(workdir, `stress-app-${process.pid}-server.txt`)
    const script = join(workdir, 'stress-app.sh')
    await writeFile(script, `#!/bin/sh\nstty raw -echo && exec cat >> '${file}'\n`, { mode: 0o755 })
    return { args: ['--allow-app', `stress-app=xterm -T stress-app -geometry 160x50+0+0 -e ${script}`], file }
  }

  get alive () {
    if (this.via === 'launch_app') {
      if (this.#pid === undefined) return false
      try { process.kill(this.#pid, 0); return true } catch { return false }
    }
    return this.child !== undefined && alive(this.child)
  }

  /** Starts it (again), waits for its window, and focuses it through the server as a user would. */
  async launch (deadlineMs = 20_000): Promise<void> {
    if (this.via === 'launch_app') return this.#launchThroughServer(deadlineMs)
    if (this.child) await this.procs.end(this.child)
    const deadline = Date.now() + deadlineMs
    const env = await this.server.xEnv()
    const title = `stress-app-${process.pid}-${++this.#launches}`
    this.file = join(this.workdir, `${title}.txt`)
    this.child = this.procs.spawn('xterm', 'xterm', ['-T', title, '-geometry', '160x50+0+0', '-e', 'sh', '-c', 'stty raw -echo && exec cat > "$0"', this.file], { env, stdio: 'ignore' })
    for (;;) {
      const ids = await x(env, 'xdotool', ['search', '--onlyvisible', '--name', title]).catch(() => '')
      if (ids && existsSync(this.file)) { this.window = ids.split('\n')[0]!; break }
      if (!this.alive) throw new Error('the xterm exited before its window appeared')
      if (Date.now() > deadline) throw new Error(`no xterm window within ${deadlineMs} ms`)
      await delay(100)
    }
    const geometry = await x(env, 'xdotool', ['getwindowgeometry', '--shell', this.window])
    const get = (k: string) => Number(new RegExp(`${k}=(\\d+)`).exec(geometry)?.[1] ?? 0)
    this.area = { x: get('X'), y: get('Y'), width: get('WIDTH'), height: get('HEIGHT') }
    await this.#focus(deadline)
  }

  async #launchThroughServer (deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs
    this.file = this.allowedFile!
    // The server ends what it launched when it stops; one left from a dead X server has exited.
    const a = await this.server.http.post('/computer', { action: 'launch_app', app: 'stress-app' }, deadlineMs)
    if (a.status !== 200) throw new Error(`launch_app: ${a.status || a.error} ${a.body.slice(0, 200)}`)
    const w = (JSON.parse(a.body) as { window: { id: string, pid: number, x: number, y: number, width: number, height: number } }).window
    this.#pid = w.pid
    this.window = w.id
    this.area = { x: w.x, y: w.y, width: w.width, height: w.height }
    await until(async () => existsSync(this.file), Math.max(1000, deadline - Date.now()))
    await this.#focus(deadline)
  }

  /** Clicks the middle of the window and types until the application has the word: it is focused and reads input. */
  async #focus (deadline: number): Promise<void> {
    const centre = [this.area.x + Math.floor(this.area.width / 2), this.area.y + Math.floor(this.area.height / 2)]
    const click = await this.server.http.post('/computer', { action: 'click_mouse', button: 'left', coordinates: centre }, Math.max(1000, deadline - Date.now()))
    if (click.status !== 200) throw new Error(`focusing the xterm: ${click.status} ${click.body.slice(0, 200)}`)
    if (!await this.probe('ready', Math.max(1000, deadline - Date.now()))) throw new Error('what was typed did not reach the xterm')
  }

  /** Types `word` through the server and waits until the application has it: proof that input reaches it. */
  async probe (word: string, deadlineMs = 5000): Promise<boolean> {
    const deadline = Date.now() + deadlineMs
    const before = await this.read()
    const typed = await this.server.http.post('/computer', { action: 'type_text', text: word }, deadlineMs)
    if (typed.status !== 200) return false
    while (Date.now() < deadline) {
      const now = await this.read()
      if (now.length >= before.length + word.length && now.slice(before.length).includes(word)) return true
      await delay(50)
    }
    return false
  }

  read (): Promise<string> { return readFile(this.file, 'utf8').catch(() => '') }

  /** The file once it has stopped growing for `quietMs` (or at the deadline). */
  async settled (quietMs = 700, deadlineMs = 15_000): Promise<string> {
    const deadline = Date.now() + deadlineMs
    let last = await this.read()
    let since = Date.now()
    while (Date.now() < deadline) {
      await delay(100)
      const now = await this.read()
      if (now.length !== last.length) { last = now; since = Date.now() } else if (Date.now() - since >= quietMs) break
    }
    return last
  }

  /** A random point well inside the xterm (clicks and moves must not leave the application). */
  point (random: () => number): [number, number] {
    const m = 30
    return [this.area.x + m + Math.floor(random() * (this.area.width - 2 * m)), this.area.y + m + Math.floor(random() * (this.area.height - 2 * m))]
  }
}

// ---------------------------------------------------------------- small things

/** mulberry32: a seeded PRNG, so that a run can be repeated exactly. */
export function prng (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export interface Check { phase: string, name: string, ok: boolean, detail: string }

export class Checks {
  readonly list: Check[] = []
  add (phase: string, name: string, ok: boolean, detail = ''): boolean {
    this.list.push({ phase, name, ok, detail })
    return ok
  }

  get failed () { return this.list.filter((c) => !c.ok) }
}

export const workdir = () => mkdtemp(join(tmpdir(), 'cg-stress-'))

export async function until<T> (probe: () => Promise<T | undefined | false>, deadlineMs: number, intervalMs = 50): Promise<T | undefined> {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) return undefined
    await delay(intervalMs)
  }
}
