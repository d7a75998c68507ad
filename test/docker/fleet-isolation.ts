/**
 * Isolation between two desktops of the fleet (fleet/) on a real Docker engine, and a desktop's
 * Chromium driven through the fleet by puppeteer-core, with the desktop image test/docker/images.ts
 * built in the same run (npm run test:image runs this file after fleet-scrapybara.ts; nothing is
 * built here; FLEET_TEST_IMAGE names another tag). One fleet process, --max 2, two desktops made
 * at once (CI has 2 cores): a with `browser: chromium`, b with the default Firefox.
 *
 * - each container as it is run: uid 1000, read-only root, every capability dropped (none in
 *   effect), no-new-privileges, pids/memory/CPU limits, its home volume its only mount, no
 *   Docker socket inside;
 * - each desktop's token refused by the other (direct URL → 401), and by the fleet;
 * - a's files, clipboard, recordings and live view invisible to b, through the fleet and direct;
 * - the Docker socket never reached through the API: hostile ids and paths ('..', percent-encoded
 *   slashes, an absolute URL, a Host naming the socket) answer 4xx with the fleet's or a desktop's
 *   own error body, never the engine's;
 * - a hostile create is a 400;
 * - puppeteer-core connects through the fleet (the discovery's webSocketDebuggerUrl, the fleet's
 *   key as a header) to a's Chromium and reads a page's title; Scrapybara's browser routes answer
 *   for a and refuse b (Firefox);
 * - the Scrapybara Python SDK, unchanged, from packages/python/.venv (made by
 *   `bash scripts/test-python.sh --setup`): start_ubuntu → computer (a click, a screenshot) → stop.
 *
 * Everything the fleet makes carries computer-gateway.fleet=<this run's fleet id>, and every
 * container and volume with it is removed on every path; nothing else in the engine is touched.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { request as httpRequest } from 'node:http'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import puppeteer from 'puppeteer-core'
import t from 'tap'
import { freePort } from '../helpers/net.ts'
import { run, testFleet } from './engine.ts'
import { DEFAULT_IMAGE } from '../../fleet/config.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const IMAGE = process.env.FLEET_TEST_IMAGE ?? DEFAULT_IMAGE
const { id: FLEET_ID, owned, fleets: children } = testFleet()
const KEY = randomBytes(24).toString('hex')
const PYTHON = new URL('../../packages/python/.venv/bin/python', import.meta.url).pathname


/** A request exactly as written (no URL normalising, any Host): what a hostile client can send. */
function raw (port: number, path: string, headers: Record<string, string>): Promise<{ status: number, body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method: 'GET', path, headers, timeout: 30_000 }, (response) => {
      let body = ''
      response.on('data', (chunk) => { body += chunk })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    request.on('timeout', () => request.destroy(new Error('no answer within 30 s')))
    request.on('error', reject)
    request.end()
  })
}

t.test('two desktops of the fleet on Docker: hardened containers, tokens, files, clipboard, recordings, live view, the socket, DevTools through the fleet, the Python SDK', { timeout: 20 * 60_000 }, async (t) => {
  const inspected = await run('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE])
  if (!t.equal(inspected.code, 0, `${IMAGE} exists (built by test/docker/images.ts in this run): ${inspected.stderr}`)) return

  const port = await freePort()
  const fleet = spawn(process.execPath, ['--import', 'tsx', 'fleet/main.ts', '--fleet-id', FLEET_ID, '--image', IMAGE, '--warm', '0', '--max', '2', '--port', String(port), '--cpus', '1', '--memory', '1536', '--pids', '512', '--on-exit', 'end'], {
    cwd: ROOT,
    env: { ...process.env, API_TOKEN: KEY, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(fleet)
  let log = ''
  fleet.stdout!.on('data', (chunk) => { log += chunk })
  fleet.stderr!.on('data', (chunk) => { log += chunk })
  const base = `http://127.0.0.1:${port}`
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined && { 'content-type': typeof body === 'string' ? 'application/octet-stream' : 'application/json' }) },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    })
    const text = await response.text()
    let parsed: any = text
    try { parsed = JSON.parse(text) } catch {}
    return { status: response.status, headers: response.headers, body: parsed }
  }
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 240_000) => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return true
      if (fleet.exitCode !== null) break
      await delay(500)
    }
    t.fail(`${what}: not within ${timeoutMs / 1000} s (exit ${fleet.exitCode}; log: ${log.slice(-3000)})`)
    return false
  }
  if (!await until('the fleet answers', async () => (await fetch(`${base}/health`)).status === 200, 60_000)) return

  // A hostile create is refused before the engine is asked for anything.
  const hostile = await call('POST', '/desktops', { screen: '99999x99999', ttl_seconds: 10 * 365 * 86400 })
  t.equal(hostile.status, 400, `a hostile create: 400 (${JSON.stringify(hostile.body)})`)
  t.strictSame((await owned()).containers, [], 'nothing started for it')

  const [made, other] = await Promise.all([call('POST', '/desktops', { browser: 'chromium', labels: { who: 'a' } }), call('POST', '/desktops', { labels: { who: 'b' } })])
  t.equal(made.status, 201, `a created (${JSON.stringify(made.body)})`)
  t.equal(other.status, 201, `b created (${JSON.stringify(other.body)})`)
  const a = made.body as { id: string, url: string, token: string, browser: string }
  const b = other.body as { id: string, url: string, token: string, browser: string }
  t.match([a.browser, b.browser], ['chromium', 'firefox'])
  if (!await until('both desktops run', async () => (await call('GET', `/desktops/${a.id}`)).body.status === 'running' && (await call('GET', `/desktops/${b.id}`)).body.status === 'running')) return

  // The containers as they run, each one's home its only mount.
  for (const desktop of [a, b]) {
    const name = `cg-fleet-${FLEET_ID}-${desktop.id}`
    const info = JSON.parse((await run('docker', ['inspect', name])).stdout)[0]
    t.match(info.HostConfig, {
      ReadonlyRootfs: true, CapDrop: ['ALL'], CapAdd: null, Privileged: false, SecurityOpt: ['no-new-privileges:true'],
      PidsLimit: 512, Memory: 1536 * 1024 * 1024, NanoCpus: 1e9, NetworkMode: 'default', PidMode: '', IpcMode: 'private', Devices: null, Binds: [`${name}-home:/home/node`],
    }, `${desktop.id}: read-only root, no capability, limits, no host namespaces or devices`)
    t.equal(info.Config.User, '1000', `${desktop.id}: runs as uid 1000`)
    t.strictSame(info.Mounts.map((m: { Type: string, Name?: string, Destination: string, RW: boolean }) => [m.Type, m.Name, m.Destination, m.RW]), [['volume', `${name}-home`, '/home/node', true]], `${desktop.id}: its home volume its only mount`)
    t.strictSame(Object.keys(info.HostConfig.Tmpfs ?? {}), ['/tmp'], `${desktop.id}: tmpfs /tmp, nothing of the host`)
    const inside = await run('docker', ['exec', name, 'sh', '-c', 'id -u; grep ^CapEff /proc/self/status; ls /var/run/docker.sock /run/docker.sock 2>&1 | wc -l; touch /usr/x 2>&1 | grep -c "Read-only"'])
    t.strictSame(inside.stdout.split('\n').map((line) => line.trim()), ['1000', 'CapEff:\t0000000000000000', '2', '1'], `${desktop.id}: uid 1000, no capability in effect, no socket inside, the root read-only (${inside.stderr})`)
  }

  // Tokens: each desktop's own only.
  const action = (url: string, token: string) => fetch(`${url}/computer`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"action":"get_cursor_position"}' })
  t.equal((await action(b.url, a.token)).status, 401, "a's token refused by b, directly")
  t.equal((await action(a.url, b.token)).status, 401, "b's token refused by a, directly")
  t.equal((await action(a.url, a.token)).status, 200, "a's own token taken")
  t.equal((await call('GET', '/desktops', undefined, { authorization: `Bearer ${a.token}` })).status, 401, "a desktop's token is no key to the fleet")

  // Files: a's file is not b's, through the fleet or directly.
  const marker = `only-a-${randomBytes(6).toString('hex')}`
  t.equal((await call('PUT', `/desktops/${a.id}/files/secret.txt`, marker)).status, 201, 'a file written in a')
  t.equal((await call('GET', `/desktops/${a.id}/files/secret.txt`)).body, marker, 'and read back from a')
  t.equal((await call('GET', `/desktops/${b.id}/files/secret.txt`)).status, 404, 'b has no such file (through the fleet)')
  t.equal((await fetch(`${b.url}/files/secret.txt`, { headers: { authorization: `Bearer ${b.token}` } })).status, 404, 'nor directly')
  t.equal((await fetch(`${a.url}/files/secret.txt`, { headers: { authorization: `Bearer ${b.token}` } })).status, 401, "a's file with b's token: 401")
  const listing = await call('GET', `/desktops/${b.id}/files/`)
  t.notOk(JSON.stringify(listing.body).includes('secret.txt'), `b's home lists nothing of a's (${listing.status})`)

  // Clipboard: a's value is not b's.
  t.equal((await call('POST', `/desktops/${a.id}/computer`, { action: 'set_clipboard', text: marker })).status, 200, 'a clipboard value set on a')
  t.match((await call('POST', `/desktops/${a.id}/computer`, { action: 'get_clipboard' })).body, { clipboard: { text: marker } }, 'and read back on a')
  const clip = await call('POST', `/desktops/${b.id}/computer`, { action: 'get_clipboard' })
  t.equal(clip.status, 200)
  t.notOk(JSON.stringify(clip.body).includes(marker), "b's clipboard holds nothing of a's")

  // Recordings: each desktop answers for its own (the fleet runs them without --record); a's with b's token is refused.
  const recordingsB = await call('GET', `/desktops/${b.id}/recordings`)
  const directB = await fetch(`${b.url}/recordings`, { headers: { authorization: `Bearer ${b.token}` } })
  t.strictSame([recordingsB.status, recordingsB.body], [directB.status, await directB.json()], "b's recordings through the fleet are b's own answer")
  t.equal((await fetch(`${a.url}/recordings`, { headers: { authorization: `Bearer ${b.token}` } })).status, 401, "a's recordings with b's token: 401")

  // Live view: a's session opens a's view only.
  const session = await fetch(`${base}/desktops/${a.id}/live/session`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } })
  t.equal(session.status, 204, "a live session on a with the fleet's key")
  const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0]!
  t.equal((await fetch(`${base}/desktops/${a.id}/live/state`, { headers: { cookie } })).status === 401, false, "a's cookie opens a's view")
  t.equal((await fetch(`${base}/desktops/${b.id}/live/state`, { headers: { cookie } })).status, 401, "a's cookie opens nothing of b through the fleet")
  t.equal((await fetch(`${b.url}/live/state`, { headers: { cookie } })).status, 401, 'nor directly')

  // The Docker socket: never reached through the API, whatever the path or Host says.
  const key = { authorization: `Bearer ${KEY}` }
  const paths = [
    [`/desktops/${a.id}/../../v1.41/containers/json`, key],
    [`/desktops/${a.id}/computer/../../../v1.41/info`, key],
    [`/desktops/${a.id}/files/..%2F..%2F..%2Fv1.41%2Fcontainers%2Fjson`, key],
    [`/desktops/${a.id}/files/%2e%2e/%2e%2e/v1.41/containers/json`, key],
    [`/desktops/${a.id}/files//var/run/docker.sock`, key],
    ['/desktops/..%2F..%2Fv1.41%2Fcontainers%2Fjson/computer', key],
    ['/desktops/unix:%2Fvar%2Frun%2Fdocker.sock/health', key],
    ['/v1.41/containers/json', key],
    ['/containers/json', key],
    ['/_ping', key],
    ['http://unix:/var/run/docker.sock:/v1.41/containers/json', key],
    [`http://localhost:2375/desktops/${a.id}/files/x`, key],
    ['/desktops', { ...key, host: 'unix:/var/run/docker.sock' }],
    [`/desktops/${a.id}/health`, { ...key, host: '/var/run/docker.sock' }],
  ] as Array<[string, Record<string, string>]>
  for (const [path, headers] of paths) {
    const answer = await raw(port, path, headers)
    let body: Record<string, unknown> = {}
    try { body = JSON.parse(answer.body) } catch {}
    t.ok(answer.status >= 400 && answer.status < 500, `${path} (Host ${headers.host ?? 'the fleet'}): ${answer.status} ${answer.body.slice(0, 160)}`)
    t.match(body, { statusCode: answer.status, code: /^(ERR|FST)_/, error: String, message: String }, '  answered by the fleet or a desktop, in their error body, not by the engine')
  }

  // a's Chromium through the fleet: the discovery names the fleet's socket, puppeteer-core drives it with the fleet's key.
  const version = await call('GET', `/desktops/${a.id}/browser/cdp/json/version`)
  t.equal(version.status, 200, `discovery (${JSON.stringify(version.body).slice(0, 200)})`)
  t.match(version.body, { Browser: /Chrom/, webSocketDebuggerUrl: `ws://127.0.0.1:${port}/desktops/${a.id}/browser/cdp` }, "its WebSocket through the fleet, not the desktop's own address")
  const title = `fleet-title-${randomBytes(4).toString('hex')}`
  const browser = await puppeteer.connect({ browserWSEndpoint: version.body.webSocketDebuggerUrl, headers: { authorization: `Bearer ${KEY}` }, defaultViewport: null, protocolTimeout: 60_000 })
  let urls: string[] = []
  try {
    const page = await browser.newPage()
    await page.goto(`data:text/html,<title>${title}</title><h1>through the fleet</h1>`)
    t.equal(await page.title(), title, "puppeteer-core reads the page's title through the fleet")
    urls = (await browser.pages()).map((p) => p.url())
  } finally {
    await browser.disconnect()
  }
  t.match((await call('GET', `/desktops/${a.id}/browser`)).body, { browser: 'chromium', devtools: true }, "GET …/browser: a's own status")
  const current = await call('GET', `/v1/instance/${a.id}/browser/current_url`, undefined, { 'x-api-key': KEY })
  t.equal(current.status, 200, `current_url (${JSON.stringify(current.body)})`)
  t.ok(urls.includes(current.body.current_url), `the current URL is one of the browser's pages (${current.body.current_url})`)
  t.match(await call('GET', `/desktops/${b.id}/browser/cdp/json/version`), { status: 409, body: { code: 'ERR_BROWSER_NO_DEVTOOLS' } }, "b's Firefox: no DevTools, says the desktop")
  const crossed = await fetch(`${a.url}/browser/cdp/json/version`, { headers: { authorization: `Bearer ${b.token}` } })
  t.equal(crossed.status, 401, "a's DevTools with b's token: 401")

  // The Scrapybara Python SDK, unchanged: start_ubuntu → computer → stop, in place of b.
  t.equal((await call('DELETE', `/desktops/${b.id}`)).status, 204, 'b ended, to make room')
  if (!t.ok(existsSync(PYTHON), `${PYTHON} exists (bash scripts/test-python.sh --setup makes it)`)) return
  const python = await run(PYTHON, [new URL('./scrapybara-python.py', import.meta.url).pathname], { timeoutMs: 300_000, env: { FLEET_URL: base, FLEET_KEY: KEY } })
  t.equal(python.code, 0, `the Python SDK's run (${python.stderr.slice(-2000)})`)
  const lines = python.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
  const started = lines[0] as { id: string, status: string }
  t.strictSame(lines, [
    { id: started.id, status: 'running' },
    { clicked: null, cursor: true },
    { screenshot: [1280, 800] },
    { stopped: 'terminated' },
  ], 'start_ubuntu (running), a click (its cursor where it clicked), a 1280x800 PNG screenshot, stop')
  t.notOk((await owned()).containers.some((line) => line.split(' ')[1] === started.id), "the Python instance's container is gone")

  fleet.kill('SIGTERM')
  const [code] = await Promise.race([once(fleet, 'exit'), delay(60_000).then(() => ['timeout'])])
  t.equal(code, 0, `the fleet exited cleanly (${log.slice(-2000)})`)
  t.strictSame(await owned(), { containers: [], volumes: [] }, 'nothing of the fleet left in the engine')
})
