/**
 * The Scrapybara v1 instance API and pause/resume of the fleet (fleet/) on a real Docker engine,
 * with the desktop image test/docker/images.ts built in the same run (npm run test:image runs
 * this file after fleet.ts; nothing is built here). The `scrapybara` SDK from npm, unchanged,
 * pointed at the fleet with its base URL and key: startUbuntu claims the one warm desktop →
 * computer (a click that lands in a real X client inside its container) and a screenshot of the
 * session → pause (the container frozen by the engine: its CPU use ~0 over a second as the
 * engine's stats measure it, its own server answering nothing, an action refused with the 409)
 * → the fleet SIGKILLed and started again, which adopts the instance paused (the engine says so)
 * → resume through the new fleet (acting again) → getInstances → stop (its container gone).
 * The fleet runs with --shell: bash and edit through the SDK run inside the desktop's container,
 * as do the file tool (a round trip as text and as base64, replace, grep; `..` and a link out
 * refused) and code.execute (a variable kept from one call to the next, a timeout), through the
 * TypeScript SDK and the Python SDK (packages/python/.venv, scrapybara-python-file.py).
 *
 * One desktop only (CI has 2 cores). Everything the fleet makes carries
 * computer-gateway.fleet=<this run's fleet id>, and every container and volume with it is
 * removed on every path; nothing else in the engine is touched.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import Docker from 'dockerode'
import sharp from 'sharp'
import t from 'tap'
import { ScrapybaraClient, ScrapybaraError, UbuntuInstance } from 'scrapybara'
import { freePort } from '../helpers/net.ts'
import { clickProbe } from './click-probe.ts'
import { pollFleet, run, testFleet } from './engine.ts'
import { DEFAULT_IMAGE } from '../../fleet/config.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const { id: FLEET_ID, owned, sweep, fleets, endFleet } = testFleet()
const KEY = randomBytes(24).toString('hex')
const docker = new Docker()
/** The image under test: the one images.ts built in this run, or another with this code (FLEET_TEST_IMAGE). */
const IMAGE = process.env.FLEET_TEST_IMAGE ?? DEFAULT_IMAGE
/** The Scrapybara Python SDK's (packages/python/.venv, made by npm run test:python). */
const PYTHON = new URL('../../packages/python/.venv/bin/python', import.meta.url).pathname


/** CPU time the container used over about a second: the engine's one-shot stats carry the sample before (precpu) and the one a second later. */
async function cpuOverASecond (container: string): Promise<{ ns: number, seconds: number }> {
  const stats = await docker.getContainer(container).stats({ stream: false }) as unknown as {
    read: string, preread: string, cpu_stats: { cpu_usage: { total_usage: number } }, precpu_stats: { cpu_usage: { total_usage: number } }
  }
  return { ns: stats.cpu_stats.cpu_usage.total_usage - stats.precpu_stats.cpu_usage.total_usage, seconds: (Date.parse(stats.read) - Date.parse(stats.preread)) / 1000 }
}

t.test('the Scrapybara SDK against the fleet on Docker: start, computer, screenshot, pause (no CPU, refused), adoption paused, resume, list, stop', { timeout: 15 * 60_000 }, async (t) => {
  const inspected = await run('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE])
  if (!t.equal(inspected.code, 0, `${IMAGE} exists (built by test/docker/images.ts in this run): ${inspected.stderr}`)) return

  const port = await freePort()
  let log = ''
  /** The fleet as a process of its own (fleet/main.ts through tsx), on the same port and fleet id each time. */
  const start = () => {
    const fleet = spawn(process.execPath, ['--import', 'tsx', 'fleet/main.ts', '--fleet-id', FLEET_ID, '--image', IMAGE, '--warm', '1', '--max', '1', '--port', String(port), '--cpus', '1', '--on-exit', 'end', '--shell'], {
      cwd: ROOT,
      env: { ...process.env, API_TOKEN: KEY, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    fleets.add(fleet)
    fleet.stdout!.on('data', (chunk) => { log += chunk })
    fleet.stderr!.on('data', (chunk) => { log += chunk })
    return fleet
  }
  let child = start()
  const base = `http://127.0.0.1:${port}`
  const until = (what: string, check: () => Promise<boolean>, timeoutMs?: number) => pollFleet(t, { child: () => child, log: () => log }, what, check, timeoutMs)
  if (!await until('the pool ready', async () => (await (await fetch(`${base}/health`)).json() as { ready: boolean }).ready)) return

  const client = new ScrapybaraClient({ apiKey: KEY, environment: base })
  const instance = await client.startUbuntu({ timeoutHours: 1 })
  t.type(instance, UbuntuInstance)
  t.equal(instance.status, 'running', 'the warm desktop, claimed: running at once')
  const { id } = instance
  const container = `cg-fleet-${FLEET_ID}-${id}`
  const own = await (await fetch(`${base}/desktops/${id}`, { headers: { authorization: `Bearer ${KEY}` } })).json() as { url: string }

  // A click through the SDK lands in a real X client of that desktop; a screenshot of the session decodes.
  const health = await (await fetch(`${base}/desktops/${id}/health`, { headers: { authorization: `Bearer ${KEY}` } })).json() as { display: string }
  const probed = await clickProbe(container, health.display, async () => {
    t.match(await instance.computer({ action: 'click_mouse', button: 'left', coordinates: [500, 400] }), { error: null }, 'a click through the SDK')
  })
  t.equal(probed.code, 0, `the probe saw a click (${probed.stderr})`)
  t.strictSame(JSON.parse(probed.line || '{}'), { button: 1, x: 500, y: 400 }, 'a left press at (500, 400) in a real X client of that desktop')
  const shot = await instance.screenshot()
  t.match(await sharp(Buffer.from(shot.base64Image, 'base64')).metadata(), { format: 'png', width: 1280, height: 800 }, 'a screenshot of the session decodes at 1280x800')

  // The fleet's --shell: the editor writes into the desktop's home, bash runs as its user there.
  t.strictSame(await instance.edit({ command: 'create', path: 'hi.sh', fileText: 'echo "hi from $(id -un) in $PWD"\n' }), { output: 'File created successfully at: hi.sh' }, 'edit through the SDK')
  t.strictSame(await instance.bash({ command: 'echo hi' }), { output: 'hi\n' }, 'bash through the SDK')
  t.strictSame(await instance.bash({ command: 'bash hi.sh' }), { output: 'hi from node in /home/node\n' }, "the edited script, run as the desktop's user in its home")

  // The file tool, run by the desktop over its home: a round trip as text and as bytes, replace, grep; `..` and a link out refused.
  t.strictSame(await instance.bash({ command: 'ln -s /etc out && echo linked' }), { output: 'linked\n' }, 'a link out of the home, made by a program there')
  const bytes = Buffer.from([0, 1, 2, 200, 255])
  const files: Array<[string, () => Promise<unknown>, unknown]> = [
    ['write', () => instance.file({ command: 'write', path: 'ts/a.txt', content: 'one\ntwo\n' }), { output: 'wrote 8 bytes to ts/a.txt' }],
    ['read it back, by its absolute path', () => instance.file({ command: 'read', path: '/home/node/ts/a.txt' }), { output: 'one\ntwo\n' }],
    ['write bytes in base64', () => instance.file({ command: 'write', path: 'ts/b.bin', content: bytes.toString('base64'), encoding: 'base64' }), { output: 'wrote 5 bytes to ts/b.bin' }],
    ['read them as base64', () => instance.file({ command: 'read', path: 'ts/b.bin', encoding: 'base64' }), { output: bytes.toString('base64') }],
    ['replace', () => instance.file({ command: 'replace', path: 'ts/a.txt', oldStr: 'two', newStr: 'three', allOccurrences: true }), { output: 'replaced 1 occurrence in ts/a.txt' }],
    ['grep', () => instance.file({ command: 'grep', path: 'ts', pattern: 'th?ree', recursive: true }), { output: 'ts/a.txt:2:three' }],
  ]
  for (const [what, call, expected] of files) t.strictSame(await call(), expected, `file through the SDK: ${what}`)
  t.equal((await instance.bash({ command: 'stat -c %U ts/a.txt' })).output, 'node\n', "the file is the desktop user's")
  const fileRefused = async (call: Promise<unknown>) => {
    const error = await call.then(() => undefined, (e: unknown) => e)
    return error instanceof ScrapybaraError ? [error.statusCode, (error.body as { code: string }).code] : error
  }
  t.strictSame(await fileRefused(instance.file({ command: 'read', path: '../../etc/passwd' }, { maxRetries: 0 })), [403, 'ERR_PATH_FORBIDDEN'], "file: '..' refused")
  t.strictSame(await fileRefused(instance.file({ command: 'read', path: 'out/passwd' }, { maxRetries: 0 })), [403, 'ERR_PATH_FORBIDDEN'], 'file: a link out refused')

  // code.execute: a python3 kernel on the desktop keeps its variables; a timeout ends it and says so.
  t.strictSame(await instance.code.execute({ code: 'import os\nx = 41' }), { output: '', error: null, status: 'ok', kernel_name: 'python3', truncated: false }, 'code: a variable set')
  t.strictSame(await instance.code.execute({ code: 'x += 1\nprint(x, os.getcwd())' }), { output: '42 /home/node\n', error: null, status: 'ok', kernel_name: 'python3', truncated: false }, 'code: kept to the next call, run in the home')
  t.strictSame(await instance.code.execute({ code: 'import time\ntime.sleep(30)', timeout: 1 }), {
    output: '', error: 'timed out: the command did not return within 1 s, so the python3 kernel and everything it started were killed; the next command starts a new kernel', status: 'ended', kernel_name: 'python3', truncated: false,
  }, 'code: a timeout ends the kernel, and says so')

  // The Python SDK, unchanged, on the same instance.
  const python = await run(PYTHON, [new URL('./scrapybara-python-file.py', import.meta.url).pathname], { timeoutMs: 300_000, env: { FLEET_URL: base, FLEET_KEY: KEY, INSTANCE_ID: id } })
  t.equal(python.code, 0, `the Python SDK's run (${python.stderr.slice(-2000)})`)
  t.strictSame(python.stdout.trim().split('\n').map((line) => JSON.parse(line)), [
    { write: { output: 'wrote 11 bytes to py/notes.txt' } },
    { read: { output: 'alpha\nbeta\n' } },
    { 'write base64': { output: 'wrote 4 bytes to py/raw.bin' } },
    { 'read base64': true },
    { replace: { output: 'replaced 1 occurrence in py/notes.txt' } },
    { grep: { output: 'py/notes.txt:1:alpha\npy/notes.txt:2:gamma' } },
    { dotdot: { status: 403, code: 'ERR_PATH_FORBIDDEN' } },
    { 'link out': { status: 403, code: 'ERR_PATH_FORBIDDEN' } },
    { code: { output: '', error: null, status: 'ok', kernel_name: 'python3', truncated: false } },
    { 'code again': { output: '42\n', error: null, status: 'ok', kernel_name: 'python3', truncated: false } },
    { 'code timeout': { output: '', error: 'timed out: the command did not return within 1 s, so the python3 kernel and everything it started were killed; the next command starts a new kernel', status: 'ended', kernel_name: 'python3', truncated: false } },
  ], "the Python SDK's file and code.execute: each answer")

  // Paused: frozen by the engine, no CPU, nothing answered, the action refused.
  t.strictSame(await instance.pause(), { status: 'paused' }, 'pause')
  t.equal((await run('docker', ['inspect', '-f', '{{.State.Status}}', container])).stdout, 'paused', 'the engine holds the container paused')
  const cpu = await cpuOverASecond(container)
  t.ok(cpu.seconds >= 0.5, `the engine's stats span ${cpu.seconds} s`)
  t.ok(cpu.ns < 1e6, `no CPU while paused: ${cpu.ns} ns over ${cpu.seconds} s`)
  const direct = await fetch(`${own.url}/health`, { signal: AbortSignal.timeout(1500) }).then((r) => `answered ${r.status}`, (e: Error) => e.name)
  t.equal(direct, 'TimeoutError', "its own server answers nothing, even asked directly")
  const refused = await instance.computer({ action: 'get_cursor_position' }, { maxRetries: 0 }).then(() => undefined, (e: unknown) => e)
  t.type(refused, ScrapybaraError)
  t.strictSame([(refused as ScrapybaraError).statusCode, (refused as ScrapybaraError).body], [409, {
    statusCode: 409, code: 'ERR_DESKTOP_PAUSED', error: 'Conflict', message: `desktop ${id} is paused: nothing reaches it until it is resumed (POST /v1/instance/${id}/resume)`,
  }], 'an action on the paused instance: 409 naming resume')
  t.match(await client.get(id), { id, status: 'paused' }, 'get shows it paused')

  // The fleet dies without a word; a new one finds the instance paused, as the engine holds it.
  child.kill('SIGKILL')
  await once(child, 'exit')
  child = start()
  if (!await until('the new fleet answers', async () => (await fetch(`${base}/health`)).status === 200, 60_000)) return
  t.match(await client.get(id), { id, status: 'paused' }, 'adopted paused by the new fleet')
  t.equal((await run('docker', ['inspect', '-f', '{{.State.Status}}', container])).stdout, 'paused', 'still frozen')

  // Resumed: answers once the desktop acts again.
  t.match(await instance.resume(), { id, status: 'running', instanceType: 'ubuntu', resolution: [1280, 800] }, 'resumed through the new fleet')
  t.equal((await run('docker', ['inspect', '-f', '{{.State.Status}}', container])).stdout, 'running', 'the container thawed')
  t.match(await instance.computer({ action: 'get_cursor_position' }), { output: /\b500\b.*\b400\b/ }, 'acting again: the cursor where the click left it')

  t.strictSame((await client.getInstances()).map((i) => [i.id, i.status]), [[id, 'running']], 'getInstances')
  t.strictSame(await instance.stop(), { status: 'terminated' }, 'stop')
  t.notOk((await owned()).containers.some((line) => line.split(' ')[1] === id), "the instance's container is gone")
  t.equal((await run('docker', ['inspect', container])).code, 1, 'the engine knows it no more')
  t.strictSame(await client.getInstances(), [], 'and it is no longer listed')

  await endFleet(t, child, () => log)
})
