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
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { freePort } from '../helpers/net.ts'
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
  const pytest = await run(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/fleet_osworld.py'], {
    timeoutMs: 10 * 60_000,
    env: { COMPUTER_GATEWAY_FLEET_URL: base, COMPUTER_GATEWAY_FLEET_KEY: KEY},
    cwd: PACKAGE,
  })
  t.equal(pytest.code, 0, `pytest tests/fleet_osworld.py passed (${pytest.stdout.slice(-4000)}\n${pytest.stderr.slice(-2000)})`)
  t.match(pytest.stdout, /\b1 passed\b/, `one test, passed, in ${Math.round((Date.now() - started) / 1000)} s`)
  t.comment(`pytest: ${Math.round((Date.now() - started) / 1000)} s`)

  const listed = await (await fetch(`${base}/desktops`, { headers: { authorization: `Bearer ${KEY}` } })).json()
  t.strictSame(listed, { desktops: [] }, 'no desktop handed out is left')

  await endFleet(t, child, () => log)
})
