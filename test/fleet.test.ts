/**
 * The fleet's control plane (fleet/) over the in-memory backend: validation of every create
 * and path, the key, the warm pool and --max, forwarding with the desktop's own token, TTLs,
 * deaths, adoption by a new fleet, and both ways of closing. The same over Docker:
 * test/docker/fleet.ts.
 */
import t from 'tap'
import { errorBody } from './helpers/error-body.ts'
import { KEY, startFleet, until } from './helpers/fleet.ts'
import { MemoryBackend, NO_CONTROL, type Echo } from './helpers/memory-backend.ts'
import { Fleet } from '../fleet/fleet.ts'
import { healthReady } from '../fleet/probe.ts'

const invalid = (message: string) => errorBody(400, 'ERR_INVALID_DESKTOP_REQUEST', message)
const LABEL_HINT = "up to 16 labels: keys lowercase letters, digits, '.', '_', '-' (≤ 63), values printable ASCII (≤ 256)"
const TTL_HINT = 'seconds after which the fleet ends the desktop (default 3600)'
const notFound = (id: string) => errorBody(404, 'ERR_DESKTOP_NOT_FOUND', `no desktop ${id} in this fleet (GET /desktops lists them)`)

t.test('a hostile create is a 400 that says what to change; nothing is started', async (t) => {
  const { call, backend } = await startFleet(t)
  const cases: Array<[unknown, ReturnType<typeof errorBody>]> = [
    [{ screen: '99999x99999' }, invalid("screen must NOT have more than 9 characters (WIDTHxHEIGHT, width 320..3840, height 320..2160; default: the fleet's --screen (a create with it is served from the warm pool))")],
    [{ screen: '5000x800' }, invalid("screen must be WIDTHxHEIGHT with width 320..3840 and height 320..2160, e.g. 1280x800 (got '5000x800')")],
    [{ screen: '10x10' }, invalid("screen must be WIDTHxHEIGHT with width 320..3840 and height 320..2160, e.g. 1280x800 (got '10x10')")],
    [{ screen: '1280×800' }, invalid("screen must be WIDTHxHEIGHT with width 320..3840 and height 320..2160, e.g. 1280x800 (got '1280×800')")],
    [{ ttl_seconds: 10 * 365 * 86400 }, invalid(`ttl_seconds must be <= 86400 (${TTL_HINT})`)],
    [{ ttl_seconds: 5 }, invalid(`ttl_seconds must be >= 60 (${TTL_HINT})`)],
    [{ ttl_seconds: 1.5 }, invalid(`ttl_seconds must be integer (${TTL_HINT})`)],
    [{ ttl_seconds: '60' }, invalid(`ttl_seconds must be integer (${TTL_HINT})`)],
    [{ labels: { 'Bad Key': 'x' } }, invalid("labels: the key 'Bad Key' is not allowed: keys are 1..63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit")],
    [{ labels: { a: 'line\nbreak' } }, invalid("labels 'a': a value must be printable ASCII (no control characters or line breaks), at most 256 characters")],
    [{ labels: { a: 'é' } }, invalid("labels 'a': a value must be printable ASCII (no control characters or line breaks), at most 256 characters")],
    [{ labels: { a: 'x'.repeat(257) } }, invalid("labels 'a': a value must be printable ASCII (no control characters or line breaks), at most 256 characters")],
    [{ labels: { a: 1 } }, invalid("labels 'a': a value must be printable ASCII (no control characters or line breaks), at most 256 characters")],
    [{ labels: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, invalid(`labels must NOT have more than 16 properties (${LABEL_HINT})`)],
    [{ labels: ['a'] }, invalid(`labels must be object (${LABEL_HINT})`)],
    [{ extra: 1 }, invalid("unknown field 'extra': a create takes screen, ttl_seconds, labels, desktop, browser, autostart")],
    [[1], invalid('the body must be a JSON object with the fields screen, ttl_seconds, labels, desktop, browser, autostart')],
    ['"text"', invalid('the body must be a JSON object with the fields screen, ttl_seconds, labels, desktop, browser, autostart')],
    ['{nope', errorBody(400, 'FST_ERR_CTP_INVALID_JSON_BODY', "Body is not valid JSON but content-type is set to 'application/json'")],
  ]
  for (const [body, expected] of cases) {
    const response = await call('POST', '/desktops', body, { 'content-type': 'application/json' })
    t.equal(response.statusCode, 400, JSON.stringify(body).slice(0, 60))
    t.strictSame(response.json(), expected, JSON.stringify(body).slice(0, 60))
  }
  t.strictSame(backend.calls, [], 'the engine was asked for nothing')
})

t.test('paths: a malformed id is a 400, an unknown one a 404, an unknown route a 404; the key is required', async (t) => {
  const { call, app } = await startFleet(t)
  const bad = invalid('the desktop id in the path must be 16 lowercase hex digits, as POST /desktops answered it')
  const cases: Array<[string, string, ReturnType<typeof errorBody>]> = [
    ['GET', '/desktops/..%2Fetc', bad],
    ['GET', '/desktops/0123456789ABCDEF', bad],
    ['DELETE', '/desktops/x', bad],
    ['POST', '/desktops/XYZ/computer', bad],
    ['GET', '/desktops/0123456789abcdef', notFound('0123456789abcdef')],
    ['DELETE', '/desktops/0123456789abcdef', notFound('0123456789abcdef')],
    ['POST', '/desktops/0123456789abcdef/computer', notFound('0123456789abcdef')],
    ['GET', '/desktops/0123456789abcdef/files/a/b', notFound('0123456789abcdef')],
    ['GET', '/desktops/0123456789abcdef/unknown', errorBody(404, 'ERR_NOT_FOUND', 'no route GET /desktops/0123456789abcdef/unknown on this fleet (GET /openapi.json lists them)')],
  ]
  for (const [method, url, expected] of cases) {
    const response = await call(method, url)
    t.strictSame([response.statusCode, response.json()], [expected.statusCode, expected], `${method} ${url}`)
  }
  for (const headers of [{}, { authorization: 'Bearer nope' }, { 'x-api-key': KEY }]) {
    const response = await app.inject({ method: 'GET', url: '/desktops', headers })
    t.equal(response.statusCode, 401, JSON.stringify(headers))
  }
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200, '/health needs no key')
  const rebound = await app.inject({ method: 'POST', url: '/desktops', headers: { authorization: `Bearer ${KEY}`, host: 'evil.example' } })
  t.strictSame([rebound.statusCode, rebound.json().code], [403, 'ERR_FORBIDDEN_HOST'], 'a DNS name pointed at the fleet is refused')
  const page = await app.inject({ method: 'POST', url: '/desktops', headers: { authorization: `Bearer ${KEY}`, origin: 'https://evil.example' } })
  t.strictSame([page.statusCode, page.json().code], [403, 'ERR_FORBIDDEN_ORIGIN'], "another site's page is refused")
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> }
  t.strictSame(Object.keys(doc.paths).filter((path) => !path.startsWith('/desktops/{id}/') && !path.startsWith('/v1/')), ['/health', '/desktops', '/desktops/{id}'], 'the OpenAPI document lists the lifecycle routes')
  t.strictSame(Object.keys(doc.paths['/desktops']!), ['post', 'get'])
  t.ok(doc.paths['/desktops/{id}/computer'], 'and the forwarded ones')
})

t.test('the warm pool: claimed by a create, refilled, bounded by --max with 429 and Retry-After', async (t) => {
  const { call, backend, fleet } = await startFleet(t, { warm: 1, max: 2 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  t.strictSame(fleet.health(), { ready: true, warm: { ready: 1, starting: 0, wanted: 1 }, desktops: 0, max: 2 })
  const [warmId] = [...backend.held.keys()]

  const created = await call('POST', '/desktops', { labels: { agent: 'a-1' }, ttl_seconds: 600 })
  t.equal(created.statusCode, 201)
  const desktop = created.json()
  const held = backend.held.get(warmId!)!
  t.strictSame(desktop, {
    id: warmId,
    status: 'running',
    screen: '1280x800',
    created_at: new Date(held.facts.createdAt).toISOString(),
    expires_at: '2026-11-28T12:10:00.000Z',
    labels: { agent: 'a-1' },
    desktop: 'full',
    autostart: [],
    browser: 'firefox',
    url: held.url,
    token: held.facts.token,
  }, 'the warm desktop, claimed, with its direct URL and its own token')
  t.strictSame(held.claim, { claimedAt: Date.UTC(2026, 10, 28, 12), expiresAt: Date.UTC(2026, 10, 28, 12, 10), labels: { agent: 'a-1' } }, 'its claim written to the engine')
  await until(t, 'the pool refills', () => fleet.health().ready)
  t.strictSame(backend.calls.map((c) => c.split(' ')[0]), ['create', 'claim', 'create'], 'claimed, not created; then one refill')
  t.strictSame((await call('GET', '/desktops')).json(), { desktops: [{ ...desktop, control: NO_CONTROL }] }, 'only handed-out desktops are listed, each with its control lease')
  t.strictSame((await call('GET', `/desktops/${warmId}`)).json(), desktop)

  // Full: one handed out, one warm. Another create with the pool's screen claims the warm one;
  // the refill cannot start (max), and the next create is refused.
  const second = await call('POST', '/desktops', {})
  t.equal(second.statusCode, 201)
  t.equal(fleet.health().warm.ready + fleet.health().warm.starting, 0, 'no refill beyond --max')
  for (const body of [{}, { screen: '1024x768' }]) {
    const refused = await call('POST', '/desktops', body)
    t.equal(refused.statusCode, 429)
    t.equal(refused.headers['retry-after'], '5')
    t.strictSame(refused.json(), errorBody(429, 'ERR_FLEET_FULL', 'the fleet holds its maximum of 2 desktops (--max); end one (DELETE /desktops/{id}) or retry in 5 s'))
  }
  // Ending one makes room: the pool refills first.
  t.equal((await call('DELETE', `/desktops/${warmId}`)).statusCode, 204)
  t.strictSame((await call('GET', `/desktops/${warmId}`)).json(), notFound(warmId!), 'an ended desktop is gone')
  t.notOk(backend.held.has(warmId!), 'and removed from the engine')
  await until(t, 'the pool refills after a delete', () => fleet.health().ready)
})

t.test('a desktop\'s routes are forwarded with its own token; one desktop\'s token is refused by another', async (t) => {
  const { call, backend } = await startFleet(t)
  const a = (await call('POST', '/desktops', {})).json()
  const b = (await call('POST', '/desktops', { screen: '1024x768' })).json()
  await until(t, 'both run', async () => (await call('GET', `/desktops/${a.id}`)).json().status === 'running' && (await call('GET', `/desktops/${b.id}`)).json().status === 'running')

  const forwarded = async (method: string, path: string, payload?: string, contentType?: string) => {
    const response = await call(method, `/desktops/${a.id}${path}`, payload, { 'x-api-key': KEY, ...(contentType && { 'content-type': contentType }) })
    return { status: response.statusCode, echo: response.json() as Echo }
  }
  const body = '{"action":"click_mouse","button":"left","coordinates":[5,5]}'
  t.strictSame(await forwarded('POST', '/computer?screenshot=after', body, 'application/json'), {
    status: 200,
    echo: { method: 'POST', url: '/computer?screenshot=after', authorization: `Bearer ${a.token}`, contentType: 'application/json', body, desktop: a.id },
  }, 'the body as sent, the fleet\'s key replaced by the desktop\'s token')
  t.strictSame(await forwarded('PUT', '/files/docs/a%20b.txt', 'bytes\u0000\u00ff', 'application/octet-stream'), {
    status: 200,
    echo: { method: 'PUT', url: '/files/docs/a%20b.txt', authorization: `Bearer ${a.token}`, contentType: 'application/octet-stream', body: 'bytes\u0000\u00ff', desktop: a.id },
  }, 'an upload passes unparsed')
  for (const path of ['/computer/anthropic', '/computer/openai/translate', '/adapters', '/accessibility', '/health', '/files', '/mcp', '/recordings/r1/video']) {
    const { status, echo } = await forwarded('GET', path)
    t.equal(status, 200, path)
    t.equal(path === '/health' ? 'health' : echo.url, path === '/health' ? 'health' : path, path)
  }
  const encoded = (await call('GET', `/desktops/${[...a.id].map((c: string) => `%${c.charCodeAt(0).toString(16)}`).join('')}/computer/x?y=1`)).json() as Echo
  t.strictSame([encoded.desktop, encoded.url], [a.id, '/computer/x?y=1'], 'a percent-encoded id reaches the same desktop and path')
  const direct = await fetch(`${b.url}/computer`, { method: 'POST', headers: { authorization: `Bearer ${a.token}` } })
  t.strictSame([direct.status, await direct.json()], [401, { code: 'ERR_UNAUTHORIZED', desktop: b.id }], 'a\'s token at b: refused')
  t.not(a.token, b.token)
  t.equal(backend.held.size, 2)
})

t.test('a starting desktop answers 503 with Retry-After until ready; one never ready ends', async (t) => {
  const backend = new MemoryBackend()
  backend.readyAtStart = false
  const logged: Array<[string, string]> = []
  const { call, clock, fleet } = await startFleet(t, { backend, startTimeoutMs: 30_000, log: (message, _fields, level = 'info') => { logged.push([level, message]) } })
  const desktop = (await call('POST', '/desktops', {})).json()
  t.equal(desktop.status, 'starting')
  const early = await call('POST', `/desktops/${desktop.id}/computer`, {})
  t.equal(early.headers['retry-after'], '2')
  t.strictSame(early.json(), errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', `desktop ${desktop.id} is starting; retry shortly (GET /desktops/${desktop.id} says when it is running)`))
  backend.setReady(desktop.id, true)
  await until(t, 'running', async () => (await call('GET', `/desktops/${desktop.id}`)).json().status === 'running')

  const never = (await call('POST', '/desktops', {})).json()
  clock.now += 31_000
  await until(t, 'ended after the start timeout', async () => (await call('GET', `/desktops/${never.id}`)).json().status === 'terminated')
  t.equal((await call('GET', `/desktops/${never.id}`)).json().reason, 'its server was not ready within 30 s')
  t.notOk(backend.held.has(never.id), 'removed from the engine')
  t.equal(fleet.list().length, 1)
  t.strictSame(logged.filter(([level]) => level !== 'info'), [['error', 'a desktop ended before it was ready: the image or the engine cannot run one as asked']],
    'a desktop that never became ready is an error in the log (an operator must see it), once')
})

t.test('TTL: a desktop past its TTL ends, is reported, and is never served again', async (t) => {
  const { call, clock, backend, fleet } = await startFleet(t)
  const desktop = (await call('POST', '/desktops', { ttl_seconds: 60 })).json()
  await until(t, 'running', async () => (await call('GET', `/desktops/${desktop.id}`)).json().status === 'running')
  clock.now += 59_000
  await fleet.sweep()
  t.equal((await call('GET', `/desktops/${desktop.id}`)).json().status, 'running', 'not before its time')
  clock.now += 1_000
  await fleet.sweep()
  const { url: _url, token: _token, ...facts } = desktop
  t.strictSame((await call('GET', `/desktops/${desktop.id}`)).json(), { ...facts, status: 'terminated', reason: 'its TTL passed' })
  t.strictSame((await call('POST', `/desktops/${desktop.id}/computer`, {})).json(), errorBody(410, 'ERR_DESKTOP_ENDED', `desktop ${desktop.id} ended (its TTL passed); create another with POST /desktops`))
  t.notOk(backend.held.has(desktop.id), 'removed from the engine')
  t.strictSame((await call('GET', '/desktops')).json(), { desktops: [] })
  t.equal((await call('DELETE', `/desktops/${desktop.id}`)).statusCode, 204, 'deleting an ended one forgets it')
  t.equal((await call('GET', `/desktops/${desktop.id}`)).statusCode, 404)
})

t.test('a desktop whose process dies is reported terminated, never served, and the pool refills', async (t) => {
  const { call, backend, fleet } = await startFleet(t, { warm: 1, max: 3 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const desktop = (await call('POST', '/desktops', {})).json()
  await until(t, 'the pool is ready again', () => fleet.health().ready)

  await backend.kill(desktop.id)
  await until(t, 'reported', async () => (await call('GET', `/desktops/${desktop.id}`)).json().status === 'terminated')
  t.equal((await call('GET', `/desktops/${desktop.id}`)).json().reason, 'its container exited')
  t.equal((await call('GET', `/desktops/${desktop.id}/health`)).statusCode, 410, 'never served')
  t.notOk(backend.held.has(desktop.id), 'its remains removed')

  // The warm one dies without an event reaching the fleet: the sweep finds it.
  const [warm] = [...backend.held.keys()]
  await backend.kill(warm!, { silently: true })
  t.equal(fleet.health().warm.ready, 1, 'unnoticed until the sweep')
  await fleet.sweep()
  t.notOk(backend.held.has(warm!), 'the sweep removed it')
  await until(t, 'a new warm desktop', () => fleet.health().ready && !backend.held.has(warm!))

  // An engine that does not answer ends nothing.
  backend.failList = true
  await fleet.sweep()
  t.equal(fleet.health().warm.ready, 1)
})

t.test('a new fleet adopts what runs: same ids, tokens and pool; ends what expired or exited', async (t) => {
  const backend = new MemoryBackend()
  const first = await startFleet(t, { backend, warm: 1, max: 4 })
  await until(t, 'the pool is ready', () => first.fleet.health().ready)
  const kept = (await first.call('POST', '/desktops', { ttl_seconds: 3600, labels: { run: '1' } })).json()
  const expiring = (await first.call('POST', '/desktops', { ttl_seconds: 60, screen: '800x600' })).json()
  const dying = (await first.call('POST', '/desktops', { screen: '800x600' })).json()
  await until(t, 'the pool is ready again', () => first.fleet.health().ready)
  const [warm] = [...backend.held.values()].filter((h) => !h.claim).map((h) => h.facts.id)
  // The first fleet dies without a word (SIGKILL): nothing of it runs any more.
  await first.fleet.close(false)
  await first.app.close()
  await backend.kill(dying.id, { silently: true })

  const second = await startFleet(t, { backend, warm: 1, max: 4 })
  second.clock.now = first.clock.now + 61_000
  await second.fleet.sweep()
  await until(t, 'the adopted desktop runs', async () => (await second.call('GET', `/desktops/${kept.id}`)).json().status === 'running')
  t.strictSame((await second.call('GET', `/desktops/${kept.id}`)).json(), kept, 'same id, token, URL, labels and TTL')
  t.strictSame((await second.call('GET', `/desktops/${expiring.id}`)).json().reason, 'its TTL passed')
  t.strictSame((await second.call('GET', `/desktops/${dying.id}`)).json().reason, 'its container exited')
  t.strictSame([...backend.held.keys()].sort(), [kept.id, warm].sort(), 'the same pool; nothing else left')
  const echo = (await second.call('GET', `/desktops/${kept.id}/computer/anthropic`)).json() as Echo
  t.equal(echo.authorization, `Bearer ${kept.token}`, 'served with its own token')
  const claimed = (await second.call('POST', '/desktops', {})).json()
  t.equal(claimed.id, warm, 'the adopted warm desktop is claimed')
})

t.test('a pool desktop of another screen than the pool\'s is ended on adoption', async (t) => {
  const backend = new MemoryBackend()
  const first = await startFleet(t, { backend, warm: 1, max: 2, screen: { width: 800, height: 600 } })
  await until(t, 'the pool is ready', () => first.fleet.health().ready)
  const [old] = [...backend.held.keys()]
  await first.fleet.close(false)
  const second = await startFleet(t, { backend, warm: 1, max: 2 })
  await until(t, 'a new pool', () => second.fleet.health().ready)
  t.notOk(backend.held.has(old!))
  t.equal(backend.held.size, 1)
})

t.test('close: leave keeps every desktop, end removes every one and fails loudly if one stays', async (t) => {
  const { call, backend, fleet } = await startFleet(t, { warm: 1, max: 3 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  await call('POST', '/desktops', {})
  await until(t, 'the pool is ready again', () => fleet.health().ready)
  await fleet.close(false)
  t.equal(backend.held.size, 2, 'leave: both still run')
  await fleet.sweep()
  t.equal(backend.held.size, 2, 'a closed fleet sweeps nothing')

  const again = new Fleet({ backend, warm: 1, max: 3, screen: { width: 1280, height: 800 }, probe: healthReady, startTimeoutMs: 60_000, sweepMs: 3_600_000, now: () => Date.UTC(2026, 10, 28, 12) })
  await again.start()
  const original = backend.remove.bind(backend)
  let first = true
  backend.remove = async (id) => {
    if (first) { first = false; throw new Error('the engine refused') }
    return original(id)
  }
  await t.rejects(again.close(true), { message: '1 of 2 desktops could not be removed: Error: the engine refused' })
  t.equal(backend.held.size, 1, 'the one that failed is named and still there')
  backend.remove = original
})

t.test('an engine that cannot start a desktop: 503 on create, the pool retried at the next sweep', async (t) => {
  const backend = new MemoryBackend()
  backend.failCreate = true
  const { call, fleet } = await startFleet(t, { backend, warm: 1, max: 2 })
  const refused = await call('POST', '/desktops', {})
  t.strictSame(refused.json(), errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', 'the engine could not start a desktop: the engine refused the create'))
  t.equal(fleet.health().warm.starting + fleet.health().warm.ready, 0)
  backend.failCreate = false
  await fleet.sweep()
  await until(t, 'the pool fills', () => fleet.health().ready)
  t.equal((await call('POST', '/desktops')).statusCode, 201, 'a create with no body at all')
})

t.test('a claim the engine does not record: 503, that desktop is ended and replaced; a claim is write-once', async (t) => {
  const { call, backend, fleet } = await startFleet(t, { warm: 1, max: 2 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const [warm] = [...backend.held.keys()]
  const original = backend.claim.bind(backend)
  backend.claim = async () => { throw new Error('no space left') }
  t.strictSame((await call('POST', '/desktops', {})).json(), errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', 'the engine could not record the claim of a desktop: no space left; retry'))
  backend.claim = original
  await until(t, 'a new warm desktop', () => fleet.health().ready && !backend.held.has(warm!))
  const desktop = (await call('POST', '/desktops', {})).json()
  await t.rejects(backend.claim(desktop.id, { claimedAt: 0, expiresAt: 1, labels: {} }), { message: `desktop ${desktop.id} is already claimed` })
})

t.test('close with end while the engine creates a desktop: that one is removed too', async (t) => {
  const backend = new MemoryBackend()
  let release = () => {}
  backend.gate = new Promise((resolve) => { release = resolve })
  const { call, fleet } = await startFleet(t, { backend, warm: 0, max: 2 })
  const creating = call('POST', '/desktops', {})
  await until(t, 'the create reached the engine', () => backend.calls.length === 1)
  const closing = fleet.close(true)
  release()
  await closing
  t.strictSame((await creating).json(), errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', 'the fleet is shutting down'))
  t.equal(backend.held.size, 0, 'nothing left in the engine')
})

t.test('a fleet with warm above max, or max below 1, is refused', async (t) => {
  const backend = new MemoryBackend()
  const base = { backend, screen: { width: 1280, height: 800 }, probe: healthReady, startTimeoutMs: 1, sweepMs: 1 }
  t.throws(() => new Fleet({ ...base, warm: 3, max: 2 }), /max must be/)
  t.throws(() => new Fleet({ ...base, warm: 0, max: 0 }), /max must be/)
  t.throws(() => new Fleet({ ...base, warm: -1, max: 2 }), /warm must be/)
})
