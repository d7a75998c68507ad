/**
 * The token out of reach of the desktop's own programs, in the desktop image as the fleet runs
 * it (uid 1000, read-only root, an in-memory /tmp, every capability dropped, no-new-privileges,
 * the token in API_TOKEN: fleet/backends/docker/desktop-env.ts gives each desktop its token
 * the same way) with --shell and --files on. A --shell command, as the desktop's user, tries
 * every way to the token (test/docker/token-probes.py): /proc/PID/environ and /proc/PID/mem at
 * the environment's address, of the server and of PID 1 (tini, whose environment is the
 * container's), `ps` of every process, its own environment, and every readable file under
 * /tmp, /home, /run, /var, /etc and /app. Each must fail or show nothing, while the same probes
 * read the needle from a process of that user that holds it (so they can fail). The node binary
 * and tini are execute-only, and the server still works: a click lands in a real X client, a
 * screenshot decodes, a bash session keeps its state, a file goes in and comes back; its log
 * holds no start-up warning that the token is in reach, and no token.
 *
 * The same uid's tasks outside the container count too: the kernel checks RLIMIT_NPROC against
 * every task of uid 1000, the host's and other containers' (the fleet's other desktops)
 * included, which the server's /proc does not show. With a process of uid 1000 on the host
 * holding 600 threads, a command still forks (and its `ulimit -u` is above every task of the
 * machine), and a fork bomb still meets its limit and its timeout.
 *
 * The image is test/docker/images.ts's desktop (npm run test:image builds it first;
 * FLEET_TEST_IMAGE names another tag). The container carries this run's label and is removed
 * on every path.
 */
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'
import sharp from 'sharp'
import t from 'tap'
import { DEFAULT_IMAGE } from '../../fleet/config.ts'
import { clickProbe } from './click-probe.ts'
import { run } from './engine.ts'

const IMAGE = process.env.FLEET_TEST_IMAGE ?? DEFAULT_IMAGE
const NAME = `cg-token-jail-${process.pid}-${randomBytes(3).toString('hex')}`
const LABEL = `computer-gateway.test=${NAME}`
const TOKEN = `jail-${randomBytes(20).toString('hex')}`
/** A part of the token only the token holds: what the probes look for. */
const NEEDLE = TOKEN.slice(-24)

const SHUT = { read: false, error: 'EACCES' }
const OPEN = { read: true, token: true }

t.teardown(async () => { await run('docker', ['rm', '-f', '-v', NAME]) })
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { execFile('docker', ['rm', '-f', '-v', NAME], () => process.exit(1)) })

t.test('the server\'s token is out of reach of a --shell command, and the server works', { timeout: 10 * 60_000 }, async (t) => {
  const inspected = await run('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE])
  if (!t.equal(inspected.code, 0, `${IMAGE} exists (built by test/docker/images.ts in this run): ${inspected.stderr}`)) return
  const started = await run('docker', ['run', '-d', '--name', NAME, '--label', LABEL, '-p', '127.0.0.1::8000', '--user', '1000',
    '--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--shm-size', '1g',
    '-e', `API_TOKEN=${TOKEN}`, '-e', 'SHELL_TOOL=1', '-e', 'FILES=1', '-e', 'DESKTOP_HOME=/home/node', '-e', 'DESKTOP=minimal', IMAGE])
  if (!t.equal(started.code, 0, `the container started: ${started.stderr}`)) return
  const base = `http://${(await run('docker', ['port', NAME, '8000/tcp'])).stdout.split('\n')[0]}`
  const call = (method: string, path: string, body?: unknown, type = 'application/json') => fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined && { 'content-type': type }) },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(150_000),
  })
  const act = async (body: unknown) => {
    const answer = await call('POST', '/computer', body)
    return { status: answer.status, body: await answer.json() as Record<string, any> }
  }

  let health: Record<string, any> = {}
  for (const deadline = Date.now() + 120_000; Date.now() < deadline && !health.ready; await delay(500)) {
    health = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) }).then((r) => r.json() as Promise<Record<string, any>>, () => ({}))
  }
  if (!t.ok(health.ready, `/health ready within 120 s (${JSON.stringify(health)}; ${(await run('docker', ['logs', '--tail', '30', NAME])).stdout})`)) return

  t.equal((await run('docker', ['exec', NAME, 'stat', '-c', '%U %a', '/usr/local/bin/node', '/usr/bin/tini'])).stdout, 'root 711\nroot 711', 'node and tini are root\'s and execute-only')

  const script = (await readFile(new URL('./token-probes.py', import.meta.url), 'utf8')).replace('@REVERSED@', [...NEEDLE].reverse().join(''))
  const probed = await act({ action: 'run_command', command: `python3 - <<'PROBES'\n${script}PROBES\n`, timeout: 120 })
  t.equal(probed.status, 200, `the probes ran (${JSON.stringify(probed.body).slice(0, 500)})`)
  const result = probed.body.command_result as { exit_code: number, stdout: string, stderr: string }
  t.equal(result.exit_code, 0, `the probes exited 0 (${result.stderr.slice(-1000)})`)
  t.strictSame(JSON.parse(result.stdout || '{}'), {
    'server found': true,
    targets: {
      init: { environ: SHUT, mem: SHUT },
      server: { environ: SHUT, mem: SHUT },
      control: { environ: OPEN, mem: OPEN },
    },
    'ps shows it': false,
    'env shows it': false,
    'files holding it': [],
  }, 'environ and mem of the server and of PID 1 refused, while a process of the user\'s own shows the needle both ways; in no command line, environment or file')

  // The server, not dumpable, still does all it did.
  const probe = await clickProbe(NAME, health.display as string, async () => {
    t.equal((await act({ action: 'click_mouse', button: 'left', coordinates: [500, 400] })).status, 200, 'click_mouse answered')
  })
  t.strictSame(JSON.parse(probe.line || '{}'), { button: 1, x: 500, y: 400 }, `a real X client (its window at 400,300, 200×200) saw the click (${probe.stderr})`)
  const shot = await act({ action: 'take_screenshot' })
  t.match(await sharp(Buffer.from(shot.body.base64_image ?? '', 'base64')).metadata(), { format: 'png', width: 1280, height: 800 }, 'a screenshot decodes at the screen\'s size')
  t.equal((await act({ action: 'bash', command: 'cd /tmp && X=kept' })).body.command_result.exit_code, 0, 'a bash session started')
  t.equal((await act({ action: 'bash', command: 'echo "$X in $PWD"' })).body.command_result.stdout, 'kept in /tmp\n', 'the bash session kept its state')
  t.equal((await call('PUT', '/files/notes/jail.txt', 'written through /files', 'application/octet-stream')).status, 201, 'a file uploaded')
  t.equal(await (await call('GET', '/files/notes/jail.txt')).text(), 'written through /files', 'and read back')

  // uid 1000's tasks outside the container: a host process of that uid holding 600 threads
  // (more than a command's allowance), ended by PID on every path.
  const holder = spawn('setpriv', ['--reuid', '1000', '--regid', '1000', '--clear-groups', '--', '/usr/bin/python3', '-c',
    'import sys, threading\nstop = threading.Event()\nfor _ in range(600): threading.Thread(target=stop.wait, daemon=True).start()\nprint("holding", flush=True)\nsys.stdin.read()'],
  { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => { holder.kill('SIGKILL') })
  const holding = await new Promise<boolean>((resolve) => {
    holder.stdout.once('data', (chunk) => resolve(String(chunk).startsWith('holding')))
    holder.once('exit', () => resolve(false))
  })
  if (!t.ok(holding, 'a host process of uid 1000 holds 600 threads')) return
  const machineTasks = Number(/\/(\d+) /.exec(await readFile('/proc/loadavg', 'utf8'))?.[1])
  const forked = await act({ action: 'run_command', command: 'ulimit -u; (true &); ls / | wc -l' })
  const [limit, entries] = (forked.body.command_result?.stdout ?? '').split('\n').map(Number)
  t.strictSame({ exit_code: forked.body.command_result?.exit_code, stderr: forked.body.command_result?.stderr, listed: entries! > 5 }, { exit_code: 0, stderr: '', listed: true }, 'a command forks, pipes and lists while uid 1000 runs 600 threads outside the container')
  t.ok(limit! > machineTasks, `its RLIMIT_NPROC (${limit}) is above every task of the machine (${machineTasks}): the hidden ones are counted`)
  const bomb = await act({ action: 'run_command', command: 'bomb() { bomb | bomb & }; bomb; sleep 30', timeout: 3 })
  t.strictSame({ timedOut: bomb.body.command_result?.timed_out, refused: String(bomb.body.command_result?.stderr).includes('Resource temporarily unavailable') }, { timedOut: true, refused: true }, 'a fork bomb still meets its limit and its timeout')
  t.equal((await act({ action: 'run_command', command: 'echo after' })).body.command_result?.stdout, 'after\n', 'and the shell works after it')
  holder.kill('SIGKILL')

  const logs = await run('docker', ['logs', NAME])
  const log = logs.stdout + logs.stderr
  t.notMatch(log, /can read the token/, 'no start-up warning: the server found its /proc files out of its user\'s reach')
  t.notOk(log.includes(NEEDLE), 'the log holds no token')
})
