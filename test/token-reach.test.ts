/**
 * The start-up check of what the shell's commands could read of the token (src/shell/token-reach.ts):
 * a table of servers (root or not, dumpable or not, a token file or not) and what each reaches,
 * then a real process of a second user under a readable node and under an execute-only one.
 */
import t from 'tap'
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { tokenInReach, tokenReachWarning } from '../src/shell/token-reach.ts'
import { tasksOf } from '../src/shell/user.ts'
import { desktopHome } from './helpers/tools.ts'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('..', import.meta.url))

const ENVIRON = `the environment this server started with and its memory (/proc/${process.pid}/environ, /proc/${process.pid}/mem)`

const CASES: Array<{ name: string, uid: number, tokenFile?: string, environOwner: number, reach: string[] }> = [
  { name: 'root: commands run as the desktop\'s user, who reads none of root\'s', uid: 0, tokenFile: '/run/secrets/token', environOwner: 0, reach: [] },
  { name: 'its own user, dumpable, the token in the environment', uid: 1000, environOwner: 1000, reach: [ENVIRON] },
  { name: 'its own user, dumpable, a token file', uid: 1000, tokenFile: '/home/me/token', environOwner: 1000, reach: [ENVIRON, 'the token file /home/me/token'] },
  { name: 'its own user, not dumpable (node execute-only), the token in the environment', uid: 1000, environOwner: 0, reach: [] },
  { name: 'its own user, not dumpable, a token file', uid: 1000, tokenFile: '/home/node/token', environOwner: 0, reach: ['the token file /home/node/token'] },
]

for (const { name, uid, tokenFile, environOwner, reach } of CASES) {
  t.test(name, async (t) => {
    t.strictSame(tokenInReach({ uid, tokenFile, environOwner: () => environOwner }), reach)
  })
}

t.test('the warning names who, what and the ways out, never a token', async (t) => {
  t.equal(tokenReachWarning(1000, [ENVIRON, 'the token file /home/me/token']),
    `--shell runs commands as this server's own user (uid 1000), who can read the token: ${ENVIRON}, and the token file /home/me/token. ` +
    "To keep it from them, run the server as another user than the desktop's: as root with --home a directory of the desktop's user " +
    '(commands then run as that user), or, for the environment and memory, with a node binary of root\'s that its user may execute ' +
    'but not read (chmod 0711), as the image does, and the token in API_TOKEN rather than a file')
})

/**
 * Run as a second local user (setpriv), by this Node and by an execute-only copy of it (root's,
 * mode 0711, as the image installs node): the check reports the environment in reach under the
 * first alone, and under the second the kernel has made the process's /proc files root's, so
 * that user's own `cat` of its environ is refused. Root only (useradd, setpriv).
 */
t.test('a server of another user, with a readable node and with an execute-only one', async (t) => {
  t.equal(process.getuid?.(), 0, 'this test runs as root (useradd, setpriv): run it in the image or as root')
  const { user } = desktopHome(t)
  const bin = mkdtempSync(join(tmpdir(), 'token-reach-'))
  chmodSync(bin, 0o755)
  t.teardown(() => rmSync(bin, { recursive: true, force: true }))
  const executeOnly = join(bin, 'node')
  copyFileSync(process.execPath, executeOnly)
  chmodSync(executeOnly, 0o711)
  // The child reports its pid and what it reaches, then a `cat` of its own environ run as the same user.
  const script = "import { tokenInReach } from './src/shell/token-reach.ts'; import { spawnSync } from 'node:child_process'; " +
    'const cat = spawnSync("cat", [`/proc/${process.pid}/environ`], { encoding: "latin1" }); ' +
    'console.log(JSON.stringify({ pid: process.pid, reach: tokenInReach({ uid: process.getuid() }), catStatus: cat.status, catSawToken: cat.stdout.includes("API_TOKEN=") }))'
  for (const [name, node, reachable] of [['readable node', process.execPath, true], ['execute-only node', executeOnly, false]] as const) {
    // Executed by a process already of that user (sh), as the bin's `env -S` executes node: setpriv's
    // own execve, right after it changed user, left the process dumpable on this kernel even so.
    const { stdout } = await run('setpriv', ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', '--', 'sh', '-c', 'exec "$0" "$@"', node, '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT, env: { PATH: process.env.PATH, API_TOKEN: 'reach-test-token-0123456789' }, timeout: 60_000,
    })
    const { pid, ...seen } = JSON.parse(stdout) as { pid: number }
    t.strictSame(seen, reachable
      ? { reach: [`the environment this server started with and its memory (/proc/${pid}/environ, /proc/${pid}/mem)`], catStatus: 0, catSawToken: true }
      : { reach: [], catStatus: 1, catSawToken: false }, name)
  }
})

/**
 * The real server, run as a second user with --shell (the fake driver: no X needed): with the
 * token in its environment and a readable node it logs the warning, naming its own pid; with
 * a token file it names the file too. Never the token.
 */
t.test('the server says so at start', async (t) => {
  const { user, home } = desktopHome(t)
  const token = `reach-${randomBytes(12).toString('hex')}`
  const file = join(home, 'token')
  writeFileSync(file, `${token}\n`, { mode: 0o600 })
  chownSync(file, user.uid, user.gid)
  for (const [name, env, args, names] of [
    ['API_TOKEN', { API_TOKEN: token }, [], []],
    ['--token-file', {}, ['--token-file', file], [`the token file ${file}`]],
  ] as const) {
    const server = spawn('setpriv', ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', '--', 'sh', '-c', 'exec "$0" "$@"',
      process.execPath, '--import', 'tsx', 'src/runtime/server.ts', '--driver', 'fake', '--port', '0', '--shell', '--home', home, ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH, HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    })
    t.teardown(() => { server.kill('SIGKILL') })
    let out = ''
    server.stdout.on('data', (chunk) => { out += chunk })
    server.stderr.on('data', (chunk) => { out += chunk })
    const exited = once(server, 'exit')
    for (const deadline = Date.now() + 60_000; !out.includes('Server listening') && server.exitCode === null && Date.now() < deadline;) await delay(100)
    server.kill('SIGKILL')
    await exited
    // Its user is removed after the test: none of its processes may be left (the server's children die with it).
    for (const deadline = Date.now() + 10_000; await tasksOf(user.uid) > 0 && Date.now() < deadline;) await delay(100)
    const warnings = out.split('\n').filter((line) => line.includes('can read the token')).map((line) => { const { level, msg } = JSON.parse(line) as { level: number, msg: string }; return { level, msg } })
    t.strictSame(warnings, [{ level: 40, msg: tokenReachWarning(user.uid, [`the environment this server started with and its memory (/proc/${server.pid}/environ, /proc/${server.pid}/mem)`, ...names]) }], `${name}: one warning (${out.slice(-500)})`)
    t.notOk(out.includes(token), `${name}: the log holds no token`)
  }
})
