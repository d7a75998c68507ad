/**
 * deploy/fleet.compose.yaml brought up as the docs say (docker-compose, the socket's group from
 * the socket), with an override of its own for the port, the fleet id and a pool of one, and a
 * project directory of its own for the key's env file: the fleet in its container reaches the
 * engine, fills its pool, and a create through its API answers an action. The desktop image
 * must exist already (npm run test:image builds it): `up --no-build` never builds or retags it.
 *
 * Everything carries this run's project name or fleet id, and is removed on every path.
 */
import { readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import t from 'tap'
import { parse, stringify } from 'yaml'
import { freePort } from '../helpers/net.ts'
import { run } from './engine.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const FILE = join(ROOT, 'deploy/fleet.compose.yaml')
const FLEET_ID = `tc-${process.pid}-${randomBytes(3).toString('hex')}`
const PROJECT = `cg-fleet-compose-${process.pid}`
const KEY = randomBytes(24).toString('hex')
const IMAGE = (parse(readFileSync(FILE, 'utf8')) as { services: { fleet: { image: string } } }).services.fleet.image


t.test('the fleet compose file runs the fleet with a warm pool, and a create through it acts', { timeout: 10 * 60_000 }, async (t) => {
  const compose = await run('docker-compose', ['version', '--short'])
  if (!t.equal(compose.code, 0, `docker-compose runs (${compose.stderr.trim()})`)) return
  if (!t.equal((await run('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE])).code, 0, `${IMAGE} exists (npm run test:image builds it)`)) return

  const dir = await mkdtemp(join(tmpdir(), 'cg-fleet-compose-'))
  const port = await freePort()
  const gid = String((await stat('/var/run/docker.sock')).gid)
  const args = ['-p', PROJECT, '--project-directory', dir, '-f', FILE, '-f', join(dir, 'override.yaml')]
  t.teardown(async () => {
    await run('docker-compose', [...args, 'down', '--timeout', '10'], { env: { DOCKER_GID: gid }, timeoutMs: 180_000 })
    // The fleet leaves its desktops running when it stops (FLEET_ON_EXIT leave): they are this run's to remove.
    const containers = (await run('docker', ['ps', '-aq', '--filter', `label=computer-gateway.fleet=${FLEET_ID}`])).stdout.split('\n').filter(Boolean)
    if (containers.length) await run('docker', ['rm', '-f', '-v', ...containers])
    const volumes = (await run('docker', ['volume', 'ls', '-q', '--filter', `label=computer-gateway.fleet=${FLEET_ID}`])).stdout.split('\n').filter(Boolean)
    if (volumes.length) await run('docker', ['volume', 'rm', '-f', ...volumes])
    await rm(dir, { recursive: true, force: true })
  })
  await writeFile(join(dir, 'fleet.env'), `API_TOKEN=${KEY}\n`, { mode: 0o600 })
  await writeFile(join(dir, 'override.yaml'), stringify({ services: { fleet: { environment: { PORT: String(port), FLEET_ID, FLEET_WARM: '1', FLEET_MAX: '2', FLEET_CPUS: '1' } } } }))

  const up = await run('docker-compose', [...args, 'up', '-d', '--no-build'], { env: { DOCKER_GID: gid }, timeoutMs: 180_000 })
  if (!t.equal(up.code, 0, `up (${up.stderr.slice(-2000)})`)) return
  const base = `http://127.0.0.1:${port}`
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    })
    return { status: response.status, body: await response.json().catch(() => undefined) }
  }
  const logs = async () => (await run('docker-compose', [...args, 'logs', '--no-color', '--tail', '50'], { env: { DOCKER_GID: gid }, timeoutMs: 180_000 })).stdout.slice(-3000)
  const deadline = Date.now() + 180_000
  let health: { status: number, body?: { ready?: boolean } } = { status: 0 }
  while (Date.now() < deadline) {
    health = await call('GET', '/health').catch(() => ({ status: 0 }))
    if (health.body?.ready) break
    await delay(1000)
  }
  if (!t.match(health, { status: 200, body: { ready: true, warm: { ready: 1, wanted: 1 }, max: 2 } }, `the pool is ready (log: ${health.body?.ready ? '' : await logs()})`)) return

  const created = await call('POST', '/desktops', {})
  t.match(created, { status: 201, body: { status: 'running', url: /^http:\/\/127\.0\.0\.1:\d+$/ } }, 'a desktop from the pool')
  const acted = await call('POST', `/desktops/${created.body.id}/computer`, { action: 'get_cursor_position' })
  t.match(acted, { status: 200, body: { cursor_position: [Number, Number] } }, 'an action through the fleet in its container')
  t.equal((await fetch(`${base}/desktops`)).status, 401, 'the key is required')

  const id = (await run('docker-compose', [...args, 'ps', '-q', 'fleet'], { env: { DOCKER_GID: gid }, timeoutMs: 180_000 })).stdout
  const inspected = JSON.parse((await run('docker', ['inspect', '-f', '{{json .HostConfig}}', id])).stdout) as Record<string, unknown>
  t.match(inspected, { NetworkMode: 'host', ReadonlyRootfs: true, CapDrop: ['ALL'], GroupAdd: [gid], Binds: ['/var/run/docker.sock:/var/run/docker.sock:ro'] }, 'host network, hardened, the socket and its group')
  t.equal((await run('docker', ['exec', id, 'id', '-u'])).stdout, '1000', 'the fleet runs as uid 1000')
  const mounts = JSON.parse((await run('docker', ['inspect', '-f', '{{json .Mounts}}', id])).stdout) as Array<{ Type: string, Destination: string }>
  t.strictSame(mounts.filter((mount) => mount.Type === 'volume'), [], 'no volume: its home is a tmpfs, so `down` leaves none behind')
})
