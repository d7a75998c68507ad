/**
 * Pause and resume on the fleet (fleet/routes/pause.ts, Fleet.pause/resume) over the in-memory
 * backend, whose paused desktops answer nothing until thawed: the state shown and written to the
 * engine, every forwarded route refused with the 409 that names resume, idempotence, resume
 * waiting for the desktop's health within its deadline, TTLs, adoption of a paused desktop, the
 * engine's word followed, and pauses and resumes that never interleave. The same on Docker:
 * test/docker/fleet-scrapybara.ts.
 */
import t, { type Test } from 'tap'
import { errorBody } from './helpers/error-body.ts'
import { startFleet, until, type TestFleet } from './helpers/fleet.ts'
import { MemoryBackend, type Echo } from './helpers/memory-backend.ts'
import { FORWARDED } from '../fleet/app.ts'

const paused = (id: string) => errorBody(409, 'ERR_DESKTOP_PAUSED', `desktop ${id} is paused: nothing reaches it until it is resumed (POST /desktops/${id}/resume)`)

/** A desktop handed out and running. */
async function running (t: Test, fleet: TestFleet, body: unknown = {}) {
  const created = (await fleet.call('POST', '/desktops', body)).json()
  await until(t, 'the desktop runs', async () => (await fleet.call('GET', `/desktops/${created.id}`)).json().status === 'running')
  return (await fleet.call('GET', `/desktops/${created.id}`)).json()
}

t.test('pause: shown, held by the engine, every forwarded route refused with 409; resume: acting again; both idempotent', async (t) => {
  const fleet = await startFleet(t)
  const { call, backend } = fleet
  const desktop = await running(t, fleet, { labels: { agent: 'p' } })
  const { id } = desktop

  const first = await call('POST', `/desktops/${id}/pause`)
  t.strictSame([first.statusCode, first.json()], [200, { ...desktop, status: 'paused' }], 'the desktop, paused')
  t.equal(backend.held.get(id)!.state, 'paused', 'the engine holds it paused')
  t.strictSame((await call('GET', `/desktops/${id}`)).json(), { ...desktop, status: 'paused' }, 'GET shows it')
  t.strictSame((await call('GET', '/desktops')).json(), { desktops: [{ ...desktop, status: 'paused' }] }, 'and the list')
  // An empty body with a JSON content type, as generated clients send it, is no body.
  const again = await call('POST', `/desktops/${id}/pause`, '', { 'content-type': 'application/json' })
  t.strictSame([again.statusCode, again.json()], [200, { ...desktop, status: 'paused' }], 'pausing a paused desktop answers the same')

  const before = backend.received.length
  for (const route of FORWARDED) {
    const path = route.replace('*', 'x/y')
    for (const method of ['GET', 'POST']) {
      const refused = await call(method, `/desktops/${id}/${path}`, method === 'POST' ? { action: 'get_cursor_position' } : undefined)
      t.strictSame([refused.statusCode, refused.json()], [409, paused(id)], `${method} /${path}`)
    }
  }
  t.equal(backend.received.length, before, 'nothing reached the desktop')

  const resumed = await call('POST', `/desktops/${id}/resume`)
  t.strictSame([resumed.statusCode, resumed.json()], [200, desktop], 'resumed: running, as it was')
  t.equal(backend.held.get(id)!.state, 'running', 'the engine thawed it')
  const acted = await call('POST', `/desktops/${id}/computer`, { action: 'get_cursor_position' })
  t.equal(acted.statusCode, 200, 'it acts again')
  t.match(acted.json() as Echo, { url: '/computer', desktop: id, body: '{"action":"get_cursor_position"}' })
  const twice = await call('POST', `/desktops/${id}/resume`)
  t.strictSame([twice.statusCode, twice.json()], [200, desktop], 'resuming a running desktop answers the same')
  t.strictSame(backend.calls.filter((c) => c.startsWith('pause') || c.startsWith('unpause')), [`pause ${id}`, `unpause ${id}`], 'the engine was asked once each')
})

t.test('resume answers once the desktop answers its health probe, and ends one that does not within the deadline', async (t) => {
  const fleet = await startFleet(t, { resumeTimeoutMs: 30_000 })
  const { call, backend, clock } = fleet
  const a = await running(t, fleet)
  await call('POST', `/desktops/${a.id}/pause`)
  backend.setReady(a.id, false)
  let answered = false
  const resuming = call('POST', `/desktops/${a.id}/resume`).then((response) => { answered = true; return response })
  await until(t, 'the engine thawed it', () => backend.held.get(a.id)!.state === 'running')
  t.equal((await call('GET', `/desktops/${a.id}`)).json().status, 'starting', 'starting while its server is not ready')
  t.strictSame((await call('POST', `/desktops/${a.id}/computer`, {})).json(), errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', `desktop ${a.id} is starting; retry shortly (GET /desktops/${a.id} says when it is running)`), 'and not served yet')
  t.notOk(answered, 'resume has not answered')
  backend.setReady(a.id, true)
  const response = await resuming
  t.strictSame([response.statusCode, response.json()], [200, a], 'answered once ready')

  const b = await running(t, fleet)
  await call('POST', `/desktops/${b.id}/pause`)
  backend.setReady(b.id, false)
  const failing = call('POST', `/desktops/${b.id}/resume`)
  await until(t, 'the engine thawed it', () => backend.held.get(b.id)!.state === 'running')
  const queued = call('POST', `/desktops/${b.id}/pause`)
  clock.now += 30_000
  const failed = await failing
  t.strictSame([failed.statusCode, failed.json()], [503, errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', `desktop ${b.id} was resumed but its server did not answer within 30 s of being resumed; it was ended (GET /desktops/${b.id} says so)`)])
  t.strictSame((await call('GET', `/desktops/${b.id}`)).json(), { id: b.id, status: 'terminated', screen: b.screen, created_at: b.created_at, expires_at: b.expires_at, labels: {}, desktop: 'full', autostart: [], browser: 'firefox', reason: 'its server did not answer within 30 s of being resumed' }, 'reported with its reason')
  t.notOk(backend.held.has(b.id), 'and removed from the engine')
  const late = await queued
  t.strictSame([late.statusCode, late.json()], [410, errorBody(410, 'ERR_DESKTOP_ENDED', `desktop ${b.id} ended (its server did not answer within 30 s of being resumed); create another with POST /desktops`)], 'a pause that waited behind it learns that it ended')
})

t.test('refusals: a starting desktop, an unknown id, an ended one, a malformed id, an engine that fails', async (t) => {
  const backend = new MemoryBackend()
  const fleet = await startFleet(t, { backend })
  const { call, clock } = fleet
  backend.readyAtStart = false
  const starting = (await call('POST', '/desktops', {})).json()
  backend.readyAtStart = true
  const ended = await running(t, fleet, { ttl_seconds: 60 })
  clock.now += 61_000
  await fleet.fleet.sweep()
  const live = await running(t, fleet)
  const cases: Array<[string, ReturnType<typeof errorBody>]> = [
    [`/desktops/${starting.id}/pause`, errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', `desktop ${starting.id} is starting; pause it once it runs (GET /desktops/${starting.id} says when)`)],
    ['/desktops/0123456789abcdef/pause', errorBody(404, 'ERR_DESKTOP_NOT_FOUND', 'no desktop 0123456789abcdef in this fleet (GET /desktops lists them)')],
    ['/desktops/0123456789abcdef/resume', errorBody(404, 'ERR_DESKTOP_NOT_FOUND', 'no desktop 0123456789abcdef in this fleet (GET /desktops lists them)')],
    [`/desktops/${ended.id}/pause`, errorBody(410, 'ERR_DESKTOP_ENDED', `desktop ${ended.id} ended (its TTL passed); create another with POST /desktops`)],
    [`/desktops/${ended.id}/resume`, errorBody(410, 'ERR_DESKTOP_ENDED', `desktop ${ended.id} ended (its TTL passed); create another with POST /desktops`)],
    ['/desktops/NOPE/pause', errorBody(400, 'ERR_INVALID_DESKTOP_REQUEST', 'the desktop id in the path must be 16 lowercase hex digits, as POST /desktops answered it')],
  ]
  for (const [url, expected] of cases) {
    const response = await call('POST', url)
    t.strictSame([response.statusCode, response.json()], [expected.statusCode, expected], url)
  }
  backend.failFreezer = true
  const failed = await call('POST', `/desktops/${live.id}/pause`)
  t.strictSame([failed.statusCode, failed.json()], [503, errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', `the engine could not pause desktop ${live.id}: the engine refused the freezer`)], 'an engine that fails')
  t.equal((await call('GET', `/desktops/${live.id}`)).json().status, 'running', 'and the desktop stays running, served')
  t.equal((await call('POST', `/desktops/${live.id}/computer`, {})).statusCode, 200)
})

t.test('the TTL ends a paused desktop', async (t) => {
  const fleet = await startFleet(t)
  const { call, backend, clock } = fleet
  const desktop = await running(t, fleet, { ttl_seconds: 120 })
  await call('POST', `/desktops/${desktop.id}/pause`)
  clock.now += 121_000
  await fleet.fleet.sweep()
  t.strictSame((await call('GET', `/desktops/${desktop.id}`)).json(), { id: desktop.id, status: 'terminated', screen: desktop.screen, created_at: desktop.created_at, expires_at: desktop.expires_at, labels: {}, desktop: 'full', autostart: [], browser: 'firefox', reason: 'its TTL passed' })
  t.notOk(backend.held.has(desktop.id), 'removed from the engine, paused as it was')
})

t.test('a new fleet adopts a paused desktop paused (the engine says so) and resumes it; a paused pool desktop is ended', async (t) => {
  const backend = new MemoryBackend()
  const first = await startFleet(t, { backend, warm: 1 })
  await until(t, 'the pool is ready', () => first.fleet.health().ready)
  const desktop = await running(t, first)
  await first.call('POST', `/desktops/${desktop.id}/pause`)
  await until(t, 'the pool refilled', () => first.fleet.health().ready)
  const pool = [...backend.held.keys()].find((id) => id !== desktop.id)!
  await backend.pause(pool)
  await first.fleet.close(false)

  const second = await startFleet(t, { backend, warm: 1 })
  t.strictSame((await second.call('GET', `/desktops/${desktop.id}`)).json(), { ...desktop, status: 'paused' }, 'adopted paused')
  t.strictSame((await second.call('POST', `/desktops/${desktop.id}/computer`, {})).json(), paused(desktop.id), 'and refused as paused')
  t.notOk(backend.held.has(pool), 'the paused pool desktop was ended')
  const resumed = await second.call('POST', `/desktops/${desktop.id}/resume`)
  t.strictSame([resumed.statusCode, resumed.json()], [200, desktop], 'resumed by the new fleet')
})

t.test("the engine's word is followed when it pauses or thaws a desktop by other means", async (t) => {
  const fleet = await startFleet(t)
  const { call, backend } = fleet
  const desktop = await running(t, fleet)
  await backend.pause(desktop.id)
  await fleet.fleet.sweep()
  t.equal((await call('GET', `/desktops/${desktop.id}`)).json().status, 'paused', 'paused by the engine: shown paused')
  await backend.unpause(desktop.id)
  await fleet.fleet.sweep()
  await until(t, 'running again', async () => (await call('GET', `/desktops/${desktop.id}`)).json().status === 'running')
})

t.test('pauses and resumes of one desktop run one after another', async (t) => {
  const fleet = await startFleet(t)
  const { call, backend } = fleet
  const desktop = await running(t, fleet)
  const answers = await Promise.all(['pause', 'resume', 'pause', 'pause', 'resume'].map((verb) => call('POST', `/desktops/${desktop.id}/${verb}`)))
  t.strictSame(answers.map((a) => `${a.statusCode} ${a.json().status}`), ['200 paused', '200 running', '200 paused', '200 paused', '200 running'], 'each answered in order')
  t.strictSame(backend.calls.filter((c) => /^(un)?pause /.test(c)).map((c) => c.split(' ')[0]), ['pause', 'unpause', 'pause', 'unpause'], 'the engine asked in order, once per change')
})

t.test('the list shows which desktops wait for a person, read from their /health; takeover and release reach the desktop through the fleet', async (t) => {
  const fleet = await startFleet(t)
  const { call, backend } = fleet
  const waiting = await running(t, fleet, { labels: { agent: 'w' } })
  const quiet = await running(t, fleet, { labels: { agent: 'q' } })
  backend.held.get(waiting.id)!.control = { taken_over: false, waiting: 1, oldest_wait_ms: 1234 }
  const listed = (await call('GET', '/desktops')).json().desktops as Array<{ id: string, control: unknown }>
  t.strictSame(Object.fromEntries(listed.map((d) => [d.id, d.control])), {
    [waiting.id]: { taken_over: false, waiting: 1, oldest_wait_ms: 1234 },
    [quiet.id]: { taken_over: false, waiting: 0, oldest_wait_ms: null },
  })
  await call('POST', `/desktops/${quiet.id}/pause`)
  t.strictSame((await call('GET', '/desktops')).json().desktops.find((d: { id: string }) => d.id === quiet.id).control, undefined, 'a paused desktop is not asked')

  for (const [method, path] of [['GET', 'control'], ['POST', 'control/takeover'], ['POST', 'control/release']] as const) {
    const answer = await call(method, `/desktops/${waiting.id}/${path}`, method === 'POST' ? { holder: 'alice' } : undefined)
    t.equal(answer.statusCode, 200, `${method} /${path}`)
    t.match(answer.json() as Echo, { url: `/${path}`, desktop: waiting.id }, `${method} /${path} reached the desktop with its token`)
  }
})
