/**
 * The operator's ways in, through the compiled server as users run it: `npm start` stopped by
 * its own PID (what a supervisor, `timeout` or a script does) ends the server and its whole
 * desktop; `computer-gateway exec` puts a program on the server's private desktop for the
 * user who started it, and refuses another user with a message and a non-zero exit.
 */
import t from 'tap'
import { execFile, execFileSync, spawn } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { until } from './helpers/desktop.ts'
import { descendants, running } from './helpers/process-table.ts'
import { requireProgram } from './helpers/processes.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/computer-gateway.js')
/** close-with-grace's delay in src/runtime/server.ts, plus a margin for a loaded machine. */
const GONE_MS = 13_000

if (!['server', 'exec', 'instances'].every((file) => existsSync(join(ROOT, `dist/src/runtime/${file}.js`)))) {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
}
requireProgram('xterm', 'the program exec starts')
requireProgram('setpriv', 'running exec as another user')

interface Run { code: number | null, stdout: string, stderr: string }
const run = (file: string, args: string[], env: NodeJS.ProcessEnv) => new Promise<Run>((resolve) => {
  execFile(file, args, { cwd: ROOT, env, timeout: 20_000 }, (error, stdout, stderr) =>
    resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }))
})

/** `npm start` as an operator types it, on a fresh private runtime directory; everything it starts is killed by PID at teardown. */
async function npmStart (t: { teardown: (fn: () => unknown) => void }) {
  const runtime = mkdtempSync(join(tmpdir(), 'cg-runtime-'))
  const seen = new Map<number, string>()
  t.teardown(() => {
    for (const pid of seen.keys()) if (running(pid)) { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
    rmSync(runtime, { recursive: true, force: true })
  })
  const env: NodeJS.ProcessEnv = { ...process.env, SCREEN: '1024x768x24', LOG_LEVEL: 'info', COMPUTER_GATEWAY_RUNTIME_DIR: runtime }
  for (const name of ['ALLOW_APPS', 'DISPLAY', 'XAUTHORITY', 'API_TOKEN', 'PORT', 'HOST']) delete env[name]
  const npm = spawn('npm', ['start', '--', '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] })
  seen.set(npm.pid!, 'npm')
  const exited = new Promise<{ code: number | null, signal: string | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })))
  // What the runtime directory held the moment the listening line was read.
  let atListening: string[] = []
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: npm.stdout! }).on('line', (line) => {
      const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
      if (match) {
        atListening = readdirSync(runtime)
        resolve(match[1]!)
      }
    })
    void exited.then(() => reject(new Error('npm start exited at start')))
  })
  for (const [pid, command] of descendants(npm.pid!)) seen.set(pid, command)
  const act = async (payload: object) => {
    const response = await fetch(`${url}/computer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) })
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  }
  return { npm, exited, seen, runtime, env, act, atListening }
}

t.test('SIGTERM to npm start\'s own PID ends the server and every process of its desktop', async (t) => {
  const { npm, exited, seen } = await npmStart(t)
  const commands = [...seen.values()]
  for (const name of ['bin/computer-gateway.js', 'Xvfb', 'jwm', 'nut-worker']) t.ok(commands.some((command) => command.includes(name)), `${name} was running`)
  t.notOk(commands.some((command) => /^(\/bin\/)?sh /.test(command)), 'no shell between npm and the server')
  npm.kill('SIGTERM')
  const exit = await exited
  t.comment(`npm exited ${JSON.stringify(exit)}`)
  await until(() => [...seen.keys()].every((pid) => !running(pid)), GONE_MS)
  t.strictSame([...seen].filter(([pid]) => running(pid)).map(([pid, command]) => `${pid} ${command}`), [], `none of the ${seen.size} processes is left`)
})

t.test('exec starts a program on the private desktop for the server\'s user, and refuses any other', async (t) => {
  const { runtime, env, act, atListening } = await npmStart(t)
  const [file] = atListening
  t.match(file, /^\d+\.json$/, 'the server had published itself when it said it was listening')
  t.equal(statSync(runtime).mode & 0o777, 0o700, 'in a directory of its user alone')
  t.equal(statSync(join(runtime, file!)).mode & 0o777, 0o600, 'in a file of its user alone')

  const started = await run(BIN, ['exec', '--detach', '--', 'xterm', '-T', 'started-by-exec'], env)
  t.equal(started.code, 0, started.stderr)
  const pid = Number(started.stdout.trim())
  t.ok(pid > 0, `it printed the program's PID (${started.stdout.trim()})`)
  t.teardown(() => { if (running(pid)) process.kill(pid, 'SIGKILL') })
  const titles = async () => ((await act({ action: 'list_windows' })).body.windows as Array<{ title: string }>).map((w) => w.title)
  t.ok(await until(async () => (await titles()).includes('started-by-exec'), 10_000), 'its window is listed by list_windows')
  t.strictSame(await titles(), ['started-by-exec'], 'the one window on the desktop')

  const foreground = await run(BIN, ['exec', 'sh', '-c', 'echo "$DISPLAY"; exit 3'], env)
  const { display } = JSON.parse(readFileSync(join(runtime, file!), 'utf8')) as { display: string }
  t.match(display, /^:\d+$/)
  t.strictSame(foreground, { code: 3, stdout: `${display}\n`, stderr: '' },
    'in the foreground: its output here, its exit status ours')

  // Another user: the runtime directory (and the cookie it names) are not theirs to read.
  // env -u: tap puts its own NODE_OPTIONS into every child, and c8 its NODE_V8_COVERAGE; both make
  // the child write into this checkout at exit, which is not nobody's to write.
  // This node may live where only its owner can reach it (npx's cache in root's home): the other
  // user runs a copy of it from a directory anyone can read.
  const nodeDir = mkdtempSync(join(tmpdir(), 'cg-node-'))
  t.teardown(() => rmSync(nodeDir, { recursive: true, force: true }))
  chmodSync(nodeDir, 0o755)
  const node = join(nodeDir, 'node')
  copyFileSync(process.execPath, node)
  chmodSync(node, 0o755)
  const nobody = ['--reuid=65534', '--regid=65534', '--clear-groups', '--', 'env', '-u', 'NODE_OPTIONS', '-u', 'NODE_V8_COVERAGE', node, BIN, 'exec', '--', 'xterm', '-T', 'intruder']
  const refused = await run('setpriv', nobody, env)
  t.equal(refused.code, 1, 'a non-zero exit')
  t.match(refused.stderr, /^computer-gateway exec: .*belongs to another user: run this as the user who started the server\n$/, 'a message saying why and what to do')
  const own = await run('setpriv', nobody, { ...env, COMPUTER_GATEWAY_RUNTIME_DIR: join(tmpdir(), 'cg-nobody-has-none') })
  t.equal(own.code, 1)
  t.match(own.stderr, /no running computer-gateway server of this user \(uid 65534\) found/, 'nobody\'s own directory lists no server')
  t.notOk((await titles()).includes('intruder'), 'nothing was started')
  rmSync(join(tmpdir(), 'cg-nobody-has-none'), { recursive: true, force: true })

  const usage = await run(BIN, ['exec'], env)
  t.strictSame({ code: usage.code, stderr: usage.stderr.split('\n')[0] }, { code: 2, stderr: 'computer-gateway exec: no program given' }, 'no program: usage, exit 2')
  const missing = await run(BIN, ['exec', '--', 'no-such-program-here'], env)
  t.strictSame(missing, { code: 127, stdout: '', stderr: 'computer-gateway exec: cannot start no-such-program-here: not found\n' })
})
