/**
 * OSWorld's DesktopEnv on the fleet (fleet/) on a real Docker engine, with the desktop image
 * test/docker/images.ts built in the same run (npm run test:image runs this file; nothing is built
 * here). The fleet runs every desktop with --osworld and --shell, one warm: its container
 * publishes the guest protocol's port on loopback beside its own, and the desktop's view names it
 * (`osworld_url`). Then packages/python/tests/fleet_osworld.py (from packages/python/.venv-osworld,
 * desktop-env installed from PyPI with all it declares, made by scripts/osworld-venv.sh) constructs
 * OSWorld's installed DesktopEnv through
 * computer_gateway.osworld's provider and runs tasks of the OSWorld-format set, each scored 1.0 by
 * OSWorld's metrics, a reset between them giving a fresh desktop, close() ending it.
 *
 * Everything the fleet makes carries computer-gateway.fleet=<this run's fleet id>, and every
 * container and volume with it is removed on every path; nothing else in the engine is touched.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { freePort } from '../helpers/net.ts'
import { percentile } from '../../bench/percentile.ts'
import { pollFleet, run, testFleet } from './engine.ts'
import { DEFAULT_IMAGE } from '../../fleet/config.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const PACKAGE = new URL('../../packages/python/', import.meta.url).pathname
/** OSWorld's harness installed from PyPI with everything it declares (scripts/osworld-venv.sh, which test:image runs first). */
const PYTHON = `${PACKAGE}.venv-osworld/bin/python`
const { id: FLEET_ID, owned, fleets, endFleet } = testFleet('osw')
const KEY = randomBytes(24).toString('hex')
/** The image under test: the one images.ts built in this run, or another with this code (FLEET_TEST_IMAGE). */
const IMAGE = process.env.FLEET_TEST_IMAGE ?? DEFAULT_IMAGE

t.test("OSWorld's DesktopEnv on fleet desktops: the guest published on loopback, tasks scored 1.0, reset, close", { timeout: 15 * 60_000 }, async (t) => {
  const inspected = await run('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE])
  if (!t.equal(inspected.code, 0, `${IMAGE} exists (built by test/docker/images.ts in this run): ${inspected.stderr}`)) return
  if (!t.ok(existsSync(PYTHON), `${PYTHON} exists (bash scripts/osworld-venv.sh makes it)`)) return

  const port = await freePort()
  let log = ''
  const child = spawn(process.execPath, ['--import', 'tsx', 'fleet/main.ts', '--fleet-id', FLEET_ID, '--image', IMAGE, '--warm', '1', '--max', '2', '--port', String(port), '--on-exit', 'end', '--osworld', '--shell'], {
    cwd: ROOT,
    env: { ...process.env, API_TOKEN: KEY, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  fleets.add(child)
  child.stdout.on('data', (chunk) => { log += chunk })
  child.stderr.on('data', (chunk) => { log += chunk })
  const base = `http://127.0.0.1:${port}`
  if (!await pollFleet(t, { child: () => child, log: () => log }, 'the pool ready', async () => (await (await fetch(`${base}/health`)).json() as { ready: boolean }).ready)) return

  // The warm desktop's container: the guest's port published on loopback only, beside the desktop's own.
  const [warm] = (await owned()).containers
  const bindings = await run('docker', ['inspect', '-f', '{{json .HostConfig.PortBindings}}', warm!.split(' ')[0]!])
  t.strictSame(JSON.parse(bindings.stdout), { '5000/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }], '8000/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] }, 'both ports on loopback only')

  const started = Date.now()
  const scratch = await mkdtemp(join(tmpdir(), 'fleet-osworld-'))
  t.teardown(() => rm(scratch, { recursive: true, force: true }))
  const timesFile = join(scratch, 'times.json')
  const pytest = await run(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/fleet_osworld.py'], {
    timeoutMs: 10 * 60_000,
    env: { COMPUTER_GATEWAY_FLEET_URL: base, COMPUTER_GATEWAY_FLEET_KEY: KEY, COMPUTER_GATEWAY_OSWORLD_TIMES: timesFile },
    cwd: PACKAGE,
  })
  t.equal(pytest.code, 0, `pytest tests/fleet_osworld.py passed (${pytest.stdout.slice(-4000)}\n${pytest.stderr.slice(-2000)})`)
  t.match(pytest.stdout, /\b1 passed\b/, `one test, passed, in ${Math.round((Date.now() - started) / 1000)} s`)
  t.comment(`pytest: ${Math.round((Date.now() - started) / 1000)} s`)
  // What an OSWorld run waits for here, printed beside the published figures docs/osworld.md gives.
  const times = JSON.parse(await readFile(timesFile, 'utf8')) as { reset_s: number[], step_s: number[] }
  t.ok(times.reset_s.length > 0 && times.step_s.length > 0, 'each reset and step timed')
  const ms = (values: number[], p: number) => Math.round(percentile(values, p) * 1000)
  t.comment(`DesktopEnv on the fleet: reset (a fresh desktop, then the task's setup) p50 ${ms(times.reset_s, 50)} ms, p95 ${ms(times.reset_s, 95)} ms over ${times.reset_s.length}; step less its pause (the action, then a screenshot) p50 ${ms(times.step_s, 50)} ms, p95 ${ms(times.step_s, 95)} ms over ${times.step_s.length}`)

  const listed = await (await fetch(`${base}/desktops`, { headers: { authorization: `Bearer ${KEY}` } })).json()
  t.strictSame(listed, { desktops: [] }, 'no desktop handed out is left')

  await endFleet(t, child, () => log)
})
