/**
 * The fleet (fleet/) on a real Docker engine, with the desktop image test/docker/images.ts
 * built in the same run (npm run test:image runs this file after it; nothing is built here).
 * The fleet runs as its own process with --warm 1 --max 2: a create claims the warm desktop, a
 * click through /desktops/{id}/computer lands in a real X client inside its container, a
 * screenshot decodes; two desktops are isolated (one's token refused by the other); a third
 * create answers 429; a reset leaves nothing of the episode (a file in the home, the clipboard)
 * and removes the old container; b's live view greets through the fleet's WebSocket; the fleet SIGKILLed and started again adopts both with the same ids and
 * tokens; a desktop's container killed is reported terminated and the pool refills; SIGTERM
 * with --on-exit end removes everything.
 *
 * Everything the fleet makes carries computer-gateway.fleet=<this run's fleet id>, and every
 * container and volume with it is removed on every path; nothing else in the engine is touched.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import sharp from 'sharp'
import t, { type Test } from 'tap'
import { parse } from 'yaml'
import WebSocket from 'ws'
import { freePort } from '../helpers/net.ts'
import { clickProbe } from './click-probe.ts'
import { pollFleet, run, testFleet } from './engine.ts'
import { DEFAULT_IMAGE } from '../../fleet/config.ts'
import { DockerBackend } from '../../fleet/backends/docker/docker-backend.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const { id: FLEET_ID, owned, sweep, fleets } = testFleet()
const KEY = randomBytes(24).toString('hex')
// The tag images.ts builds and runs: deploy/compose.yaml's desktop image.
const compose = parse(await readFile(new URL('../../deploy/compose.yaml', import.meta.url), 'utf8'), { merge: true }) as { services: Record<string, { image: string }> }
const IMAGE = Object.values(compose.services)[0]!.image


/** The fleet as a process of its own (fleet/main.ts through tsx: the same code the bin runs compiled). */
async function startFleet (t: Test, port: number, extra: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'fleet/main.ts', '--fleet-id', FLEET_ID, '--image', IMAGE, '--warm', '1', '--max', '2', '--port', String(port), '--cpus', '1', ...extra], {
    cwd: ROOT,
    env: { ...process.env, API_TOKEN: KEY, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  fleets.add(child)
  let log = ''
  child.stdout!.on('data', (chunk) => { log += chunk })
  child.stderr!.on('data', (chunk) => { log += chunk })
  const base = `http://127.0.0.1:${port}`
  const call = async (method: string, path: string, body?: unknown, token = KEY) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
  }
  const until = (what: string, check: () => Promise<boolean>, timeoutMs?: number) => pollFleet(t, { child: () => child, log: () => log }, what, check, timeoutMs)
  const ready = () => until('the pool ready', async () => (await call('GET', '/health')).body?.ready === true)
  return { child, call, until, ready, log: () => log }
}

const running = (call: Awaited<ReturnType<typeof startFleet>>['call'], id: string) => async () => (await call('GET', `/desktops/${id}`)).body?.status === 'running'

t.test('the fleet on the Docker engine: pool, forwarding, isolation, --max, adoption, deaths, ending', { timeout: 20 * 60_000 }, async (t) => {
  t.equal(DEFAULT_IMAGE, IMAGE, "the fleet's default --image is the desktop image the image tests build")
  const inspected = await run('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE])
  if (!t.equal(inspected.code, 0, `${IMAGE} exists (built by test/docker/images.ts in this run): ${inspected.stderr}`)) return

  const port = await freePort()
  const first = await startFleet(t, port)
  if (!await first.ready()) return
  const [warm] = (await owned()).containers
  const warmId = warm!.split(' ')[1]

  // A create claims the warm desktop and is ready to act at once.
  const created = await first.call('POST', '/desktops', { labels: { agent: 'one' }, ttl_seconds: 3600 })
  t.equal(created.status, 201, 'created')
  let a = created.body
  t.match(a, { id: warmId, status: 'running', screen: '1280x800', labels: { agent: 'one' }, url: /^http:\/\/127\.0\.0\.1:\d+$/, token: /^[\w-]{32}$/ }, 'the warm desktop, claimed')

  const health = await first.call('GET', `/desktops/${a.id}/health`)
  let container = `cg-fleet-${FLEET_ID}-${a.id}`
  const probed = await clickProbe(container, health.body.display, async () => {
    const clicked = await first.call('POST', `/desktops/${a.id}/computer`, { action: 'click_mouse', button: 'left', coordinates: [500, 400] })
    t.equal(clicked.status, 200, `a click through the fleet (${JSON.stringify(clicked.body)})`)
  })
  t.equal(probed.code, 0, `the probe saw a click (${probed.stderr})`)
  t.strictSame(JSON.parse(probed.line || '{}'), { button: 1, x: 500, y: 400 }, 'a left press at (500, 400) in a real X client of that desktop')
  const shot = await first.call('POST', `/desktops/${a.id}/computer`, { action: 'take_screenshot' })
  t.match(await sharp(Buffer.from(shot.body.base64_image ?? '', 'base64')).metadata(), { format: 'png', width: 1280, height: 800 }, 'a screenshot through the fleet decodes at 1280x800')

  // The container as the image tests run it, and as nobody else reaches it.
  const hostConfig = JSON.parse((await run('docker', ['inspect', '-f', '{{json .HostConfig}}', container])).stdout)
  t.match(hostConfig, { ReadonlyRootfs: true, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges:true'], NanoCpus: 1e9, PidsLimit: 1024, Memory: 2048 * 1024 * 1024, PortBindings: { '8000/tcp': [{ HostIp: '127.0.0.1' }] } }, 'hardened, limited, published on loopback only')
  t.equal((await run('docker', ['exec', container, 'id', '-u'])).stdout, '1000', 'runs as uid 1000')
  // The engine keeps the image's timings beside NONE; the test is what runs, and NONE runs nothing.
  t.strictSame(JSON.parse((await run('docker', ['inspect', '-f', '{{json .Config.Healthcheck}}', container])).stdout).Test, ['NONE'], 'no exec of Docker\'s health check in it: the fleet probes /health itself')

  // A claim is written once: the engine refuses a second one (the fleet never makes it).
  const engine = new DockerBackend({ fleetId: FLEET_ID, image: IMAGE, cpus: 1, memoryBytes: 512e6, pids: 100 })
  await t.rejects(engine.claim(a.id, { claimedAt: 0, expiresAt: 1, labels: {} }), { message: `desktop ${a.id} is already claimed` }, 'a second claim refused by the engine')
  t.match(await engine.inspect(a.id), { facts: { id: a.id, token: a.token }, claim: { labels: { agent: 'one' } }, state: 'running', url: a.url }, 'the engine holds its facts and claim')

  // Reset: a file in the home and a clipboard value, then a fresh desktop from the pool under
  // the same id; nothing of them survives, and the old container and its home are gone.
  const marker = `episode-${randomBytes(6).toString('hex')}`
  const base = `http://127.0.0.1:${port}`
  const written = await fetch(`${base}/desktops/${a.id}/files/episode.txt`, { method: 'PUT', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/octet-stream' }, body: marker })
  t.equal(written.status, 201, `a file written in the home (${await written.text()})`)
  t.equal((await first.call('POST', `/desktops/${a.id}/computer`, { action: 'set_clipboard', text: marker })).status, 200, 'a clipboard value set')
  t.match((await first.call('POST', `/desktops/${a.id}/computer`, { action: 'get_clipboard' })).body, { clipboard: { text: marker } }, 'and read back before the reset')
  if (!await first.ready()) return
  const fresh = (await owned()).containers.map((line) => line.split(' ')[1]).find((id) => id !== a.id)
  const reset = await first.call('POST', `/desktops/${a.id}/reset`)
  t.equal(reset.status, 200, `reset (${JSON.stringify(reset.body)})`)
  t.match(reset.body, { id: a.id, status: 'running', labels: { agent: 'one' }, expires_at: a.expires_at, url: /^http:\/\/127\.0\.0\.1:\d+$/ }, 'the same id, TTL and labels, running at once')
  t.not(reset.body.token, a.token, 'the fresh desktop\'s own token')
  t.not((await run('docker', ['inspect', container])).code, 0, 'the old container is removed')
  t.not((await run('docker', ['volume', 'inspect', `${container}-home`])).code, 0, 'and its home volume')
  const file = await fetch(`${base}/desktops/${a.id}/files/episode.txt`, { headers: { authorization: `Bearer ${KEY}` } })
  t.equal(file.status, 404, `the file is gone (${await file.text()})`)
  const clipboard = await first.call('POST', `/desktops/${a.id}/computer`, { action: 'get_clipboard' })
  t.match(clipboard.body, { clipboard: { kind: 'empty' } }, 'the fresh clipboard is empty')
  t.notOk(JSON.stringify(clipboard.body).includes(marker), `the clipboard value is gone (${clipboard.status} ${JSON.stringify(clipboard.body).slice(0, 200)})`)
  a = reset.body
  container = `cg-fleet-${FLEET_ID}-${fresh}`

  // The pool refills; a second create claims it; a third is over --max.
  if (!await first.ready()) return
  const b = (await first.call('POST', '/desktops', {})).body
  if (!await first.until('the second desktop runs', running(first.call, b.id))) return
  t.not(b.token, a.token, 'each desktop its own token')
  const crossed = await fetch(`${b.url}/computer`, { method: 'POST', headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' }, body: '{"action":"get_cursor_position"}' })
  t.equal(crossed.status, 401, "a's token refused by b")
  const own = await fetch(`${b.url}/computer`, { method: 'POST', headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' }, body: '{"action":"get_cursor_position"}' })
  t.equal(own.status, 200, "b's own token taken directly")
  // b's live view through the fleet: the fleet's key traded for b's cookie, then its WebSocket
  // (bridged by b to its VNC server) with the cookie alone; a's desktop is not opened by it.
  const session = await fetch(`${base}/desktops/${b.id}/live/session`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } })
  t.equal(session.status, 204, 'a live session on b with the fleet\'s key')
  const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0]!
  const first12 = await new Promise<string>((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/desktops/${b.id}/live/websockify`, { headers: { cookie } })
    const timer = setTimeout(() => { socket.terminate(); resolve('no message within 20 s') }, 20_000)
    socket.once('message', (data) => { clearTimeout(timer); socket.terminate(); resolve(String(data)) })
    socket.once('close', (code, reason) => { clearTimeout(timer); resolve(`closed ${code} ${String(reason)}`) })
    socket.once('error', (error) => { clearTimeout(timer); resolve(`error ${error.message}`) })
  })
  t.equal(first12, 'RFB 003.008\n', "b's VNC server greets through the fleet's WebSocket")
  t.equal((await fetch(`${base}/desktops/${a.id}/live`, { headers: { cookie } })).status, 401, "b's cookie opens nothing of a")

  const full = await first.call('POST', '/desktops', {})
  t.equal(full.status, 429, 'a third create: over --max')
  t.equal(full.headers.get('retry-after'), '5', 'with Retry-After')
  t.equal(full.body.code, 'ERR_FLEET_FULL', 'and its code')

  // The fleet dies without a word; a new one adopts both.
  first.child.kill('SIGKILL')
  await once(first.child, 'exit')
  const second = await startFleet(t, port, ['--on-exit', 'end'])
  const listed = async () => (await second.call('GET', '/desktops')).body?.desktops?.map((d: { id: string, token: string, status: string }) => `${d.id} ${d.token} ${d.status}`).sort()
  if (!await second.until('both adopted and running', async () => JSON.stringify(await listed()) === JSON.stringify([`${a.id} ${a.token} running`, `${b.id} ${b.token} running`].sort()))) return
  const again = await second.call('POST', `/desktops/${b.id}/computer`, { action: 'take_screenshot' })
  t.match(await sharp(Buffer.from(again.body.base64_image ?? '', 'base64')).metadata(), { width: 1280, height: 800 }, 'an adopted desktop answers through the new fleet')

  // a's container dies: reported, never served, and the pool refills into its place.
  t.equal((await run('docker', ['kill', container])).code, 0, "a's container killed")
  if (!await second.until('a reported terminated', async () => (await second.call('GET', `/desktops/${a.id}`)).body?.status === 'terminated', 30_000)) return
  t.match((await second.call('GET', `/desktops/${a.id}`)).body, { id: a.id, status: 'terminated', reason: 'its container exited' }, 'reported with its reason')
  t.equal((await second.call('POST', `/desktops/${a.id}/computer`, { action: 'get_cursor_position' })).status, 410, 'never served again')
  if (!await second.ready()) return
  const after = await owned()
  t.equal(after.containers.length, 2, `b and a new warm desktop: ${after.containers.join(', ')}`)
  t.notOk(after.containers.some((line) => line.includes(fresh!)), "a's container is gone")

  // SIGTERM with --on-exit end: every desktop and volume removed, exit 0.
  second.child.kill('SIGTERM')
  const [code] = await Promise.race([once(second.child, 'exit'), delay(60_000).then(() => ['timeout'])])
  t.equal(code, 0, `the fleet exited cleanly (${second.log().slice(-2000)})`)
  t.strictSame(await owned(), { containers: [], volumes: [] }, 'nothing of the fleet left in the engine')
})
