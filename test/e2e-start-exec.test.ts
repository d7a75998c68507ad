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
async function npmStart (t: { teardown: (fn: () => unknown) => void }, overrides: NodeJS.ProcessEnv = {}) {
  const runtime = mkdtempSync(join(tmpdir(), 'cg-runtime-'))
  const seen = new Map<number, string>()
  t.teardown(() => {
    for (const pid of seen.keys()) if (running(pid)) { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
    rmSync(runtime, { recursive: true, force: true })
  })
  const env: NodeJS.ProcessEnv = { ...process.env, SCREEN: '1024x768x24', LOG_LEVEL: 'info', COMPUTER_GATEWAY_RUNTIME_DIR: runtime }
  for (const name of ['ALLOW_APPS', 'DISPLAY', 'XAUTHORITY', 'API_TOKEN', 'PORT', 'HOST']) delete env[name]
  Object.assign(env, overrides)
  for (const [name, value] of Object.entries(overrides)) if (value === undefined) delete env[name]
  const lines: string[] = []
  const npm = spawn('npm', ['start', '--', '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] })
  seen.set(npm.pid!, 'npm')
  const exited = new Promise<{ code: number | null, signal: string | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })))
  // What the runtime directory held the moment the listening line was read.
  let atListening: string[] = []
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: npm.stdout! }).on('line', (line) => {
      lines.push(line)
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
  return { npm, exited, seen, runtime, env, act, atListening, lines }
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

  const foreground = await run(BIN, ['exec', 'sh', '-c', 'echo "$DISPLAY${API_TOKEN-}${API_TOKEN_FILE-}"; exit 3'], { ...env, API_TOKEN: 'in-the-shell', API_TOKEN_FILE: '/a/file' })
  const { display } = JSON.parse(readFileSync(join(runtime, file!), 'utf8')) as { display: string }
  t.match(display, /^:\d+$/)
  t.strictSame(foreground, { code: 3, stdout: `${display}\n`, stderr: '' },
    'in the foreground: its output here, its exit status ours; no token of the shell passed on')

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
  t.equal(refused.stderr, `computer-gateway exec: ${runtime} belongs to another user (uid 0), not to you (uid 65534): refused (another user could steer computer-gateway exec to a display of theirs). ` +
    "To reach another user's server, run this as the user who started it; else remove it (as its owner, or root), or set COMPUTER_GATEWAY_RUNTIME_DIR to a directory of your own\n", 'a message saying why and what to do')
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

/** A local user made for one test, removed at its end on every path, with whatever it owns under `root`. */
function localUser (t: { teardown: (fn: () => unknown) => void }, root: string): { uid: number, gid: number, name: string } {
  const name = `cgsq${process.pid % 100000}`
  execFileSync('useradd', ['--no-create-home', '--no-user-group', '--gid', 'nogroup', '--shell', '/usr/sbin/nologin', name], { stdio: 'pipe' })
  t.teardown(() => {
    rmSync(root, { recursive: true, force: true })
    execFileSync('userdel', [name], { stdio: 'pipe' })
  })
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim())) as [number, number]
  return { uid, gid, name }
}

t.test('a runtime folder another user made first: exec refuses it, naming it, and the server does not publish there', async (t) => {
  t.equal(process.getuid!(), 0, 'root, to create the second user')
  requireProgram('useradd', 'creating the second local user')
  // A /tmp of this test's own (sticky, open to all, as /tmp is): the real one's folders belong to other servers.
  const tmp = mkdtempSync(join(tmpdir(), 'cg-shared-tmp-'))
  chmodSync(tmp, 0o1777)
  const squatter = localUser(t, tmp)
  const folder = join(tmp, 'computer-gateway-0')
  // What the other user does: the folder root's exec reads, 0755, naming a display of theirs, with a PID that is alive.
  execFileSync('setpriv', [`--reuid=${squatter.uid}`, `--regid=${squatter.gid}`, '--clear-groups', '--', 'sh', '-c',
    `mkdir -m 0755 "$0" && printf '{"pid":1,"display":":77"}' > "$0/1.json"`, folder])
  t.equal(statSync(folder).uid, squatter.uid)
  const xdg = mkdtempSync(join(tmpdir(), 'cg-xdg-'))
  t.teardown(() => rmSync(xdg, { recursive: true, force: true }))
  const message = `computer-gateway exec: ${folder} belongs to another user (uid ${squatter.uid}), not to you (uid 0): refused (another user could steer computer-gateway exec to a display of theirs). ` +
    "To reach another user's server, run this as the user who started it; else remove it (as its owner, or root), or set COMPUTER_GATEWAY_RUNTIME_DIR to a directory of your own\n"
  const base: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp }
  for (const name of ['COMPUTER_GATEWAY_RUNTIME_DIR', 'XDG_RUNTIME_DIR', 'DISPLAY', 'XAUTHORITY']) delete base[name]
  for (const [label, env] of [['without XDG_RUNTIME_DIR', base], ['with XDG_RUNTIME_DIR', { ...base, XDG_RUNTIME_DIR: xdg }]] as const) {
    const refused = await run(BIN, ['exec', '--', 'sh', '-c', 'echo "ran on $DISPLAY"'], env)
    t.strictSame(refused, { code: 1, stdout: '', stderr: message }, `${label}: nothing run, exit 1, the folder named`)
  }

  const { lines } = await npmStart(t, { TMPDIR: tmp, COMPUTER_GATEWAY_RUNTIME_DIR: undefined, XDG_RUNTIME_DIR: undefined })
  t.strictSame(readdirSync(folder), ['1.json'], 'the server wrote nothing into the squatted folder')
  const logged = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number, msg: string }).filter((entry) => entry.msg.startsWith('NOT published'))
  t.strictSame(logged.map((entry) => ({ level: entry.level, msg: entry.msg })), [{
    level: 50,
    msg: `NOT published for computer-gateway exec, which will not find this desktop: ${message.slice('computer-gateway exec: '.length, -1)}`,
  }], 'one error-level line says exec will not find it, and why')
})
