/**
 * The API token never reaches a process the server starts: the real server, compiled, started
 * as operators start it (the bin, `npm start`), with the token given each way (--token VALUE,
 * --token-file, API_TOKEN, --token - on stdin), made to start what it can (its Xvfb, window
 * manager and input worker; launch_app's application; an xclip owner for set_clipboard; an
 * ffmpeg for a recording), then every process below it is read: the token is in no
 * /proc/PID/cmdline and no /proc/PID/environ. With --token VALUE the server warns (without the
 * value) and overwrites the value in its own command line.
 */
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { execFileSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { until } from './helpers/desktop.ts'
import { descendants, running } from './helpers/process-table.ts'
import { requireProgram, spawnOwned } from './helpers/processes.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/computer-gateway.js')
if (!existsSync(join(ROOT, 'dist/src/runtime/token.js'))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
for (const program of ['xterm', 'xclip', 'ffmpeg']) requireProgram(program, 'a child the server starts')

const WARNING = '--token VALUE puts the token on the command line, where every local user can read it (ps, /proc/PID/cmdline): ' +
  'use --token-file PATH, API_TOKEN, or --token - (reads stdin) instead'

interface Way { name: string, start: (token: string, scratch: string) => { command: string, args: string[], env: NodeJS.ProcessEnv, stdin?: string } }
const WAYS: Way[] = [
  { name: '--token VALUE (the bin)', start: (token) => ({ command: BIN, args: ['--token', token], env: {} }) },
  {
    name: '--token-file (the bin)',
    start: (token, scratch) => {
      const file = join(scratch, 'token')
      writeFileSync(file, `${token}\n`, { mode: 0o600 })
      return { command: BIN, args: ['--token-file', file], env: {} }
    },
  },
  { name: 'API_TOKEN (npm start)', start: (token) => ({ command: 'npm', args: ['start', '--'], env: { API_TOKEN: token } }) },
  { name: '--token - (the bin, stdin)', start: (token) => ({ command: BIN, args: ['--token', '-'], env: {}, stdin: `${token}\n` }) },
]

/** Every process below `root` now, with its command line and environment as the kernel shows them. */
function readBelow (root: number): Array<{ pid: number, cmdline: string, environ: string }> {
  return [...descendants(root).keys()].map((pid) => {
    const read = (name: string) => { try { return readFileSync(`/proc/${pid}/${name}`, 'latin1') } catch { return '' } }
    return { pid, cmdline: read('cmdline'), environ: read('environ') }
  })
}

for (const way of WAYS) {
  t.test(`the token given by ${way.name} is in no command line or environment of what the server started`, async (t) => {
    const token = randomBytes(24).toString('hex')
    const scratch = mkdtempSync(join(tmpdir(), 'cg-token-secrecy-'))
    chmodSync(scratch, 0o700)
    const seen = new Set<number>()
    t.teardown(() => {
      for (const pid of seen) if (running(pid)) { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
      rmSync(scratch, { recursive: true, force: true })
    })
    const { command, args, env: extra, stdin } = way.start(token, scratch)
    const env: NodeJS.ProcessEnv = { ...process.env, SCREEN: '1024x768x24', LOG_LEVEL: 'info', COMPUTER_GATEWAY_RUNTIME_DIR: join(scratch, 'runtime'), HOME: scratch, ...extra }
    for (const name of ['ALLOW_APPS', 'DISPLAY', 'XAUTHORITY', 'PORT', 'HOST', 'API_TOKEN_FILE', ...(extra.API_TOKEN ? [] : ['API_TOKEN'])]) delete env[name]
    const flags = ['--port', '0', '--record', '--record-dir', join(scratch, 'recordings'), '--clipboard', '--allow-app', 'xterm=xterm -T launched']
    const server: ChildProcess = spawnOwned(t, command, [...args, ...flags], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'inherit'] })
    server.stdin!.end(stdin ?? '')
    const lines: string[] = []
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: server.stdout! }).on('line', (line) => {
        lines.push(line)
        const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
        if (match) resolve(match[1]!)
      })
      server.once('exit', (code) => reject(new Error(`the server exited at start (${code}): ${lines.join('\n')}`)))
    })
    const act = async (payload: object, headers: Record<string, string> = {}) => {
      const response = await fetch(`${url}/computer`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers }, body: JSON.stringify(payload) })
      return { status: response.status, body: await response.json() as Record<string, unknown> }
    }
    t.equal((await fetch(`${url}/computer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"wait","duration":0}' })).status, 401, 'the token is required')
    t.equal((await act({ action: 'launch_app', app: 'xterm' })).status, 200, 'launch_app started its application')
    t.equal((await act({ action: 'set_clipboard', text: 'held by an xclip owner' })).status, 200, 'set_clipboard started an owner')
    t.equal((await act({ action: 'move_mouse', coordinates: [5, 5] }, { 'x-recording-id': 'secrecy' })).status, 200, 'a recording started its encoder')

    // The server: the process spawned (the bin), or npm's child (npm start; npm itself holds what the operator gave it).
    const serverPid = command === 'npm' ? [...descendants(server.pid!)].find(([, line]) => line.includes('bin/computer-gateway.js'))![0] : server.pid!
    let below: ReturnType<typeof readBelow> = []
    const want = ['Xvfb', 'jwm', 'nut-worker', 'xterm', 'xclip', 'x11grab']
    t.ok(await until(() => {
      below = readBelow(serverPid)
      return want.every((name) => below.some(({ cmdline }) => cmdline.includes(name)))
    }, 10_000), `every kind of child is running: ${want.join(', ')}`)
    for (const { pid } of below) seen.add(pid)
    t.comment(`${below.length} processes below the server`)
    const leaks = below.filter(({ cmdline, environ }) => cmdline.includes(token) || environ.includes(token)).map(({ pid, cmdline }) => `${pid} ${cmdline.replaceAll('\0', ' ')}`)
    t.strictSame(leaks, [], 'the token is in no command line and no environment of them')
    t.notOk(below.some(({ environ }) => /(^|\0)API_TOKEN(_FILE)?=/.test(environ)), 'nor is API_TOKEN or API_TOKEN_FILE set in any')

    seen.add(serverPid)
    t.notOk(readFileSync(`/proc/${serverPid}/cmdline`, 'latin1').includes(token), 'nor is it in the server\'s own command line, once it runs')
    const warnings = lines.filter((line) => line.includes('--token VALUE puts the token'))
    t.strictSame(warnings.map((line) => (JSON.parse(line) as { level: number, msg: string })).map(({ level, msg }) => ({ level, msg })),
      way.name.startsWith('--token VALUE') ? [{ level: 40, msg: WARNING }] : [], way.name.startsWith('--token VALUE') ? 'one warning, without the value' : 'no warning')
    t.notOk(lines.some((line) => line.includes(token)), 'the log never holds the token')
  })
}
