/**
 * Recordings over the fake driver (the logic above the driver; the video and the real
 * desktop are test/e2e-recording.test.ts): which requests become steps and what a step holds,
 * through a unified route, an adapter and MCP; names checked; stop, idle, delete, archive;
 * the size and age limits dropping the oldest; a full disk refusing a new recording while
 * actions go on; nothing of a token or cookie in the store.
 */
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import t from 'tap'
import sharp from 'sharp'
import { build } from './helpers/build.ts'
import { until } from './helpers/desktop.ts'
import { everyByte, recordingStore } from './helpers/recording-store.ts'
import { redactPayload } from '../src/recording/redact.ts'
import type { VideoCapture, VideoSource } from '../src/recording/video-source.ts'

const TOKEN = 'recording-test-token-0123456789'
const COOKIE = 'cg_live=cookie-value-that-must-not-be-kept'
const auth = { authorization: `Bearer ${TOKEN}` }

const GENEROUS = { maxBytes: 64 << 20, maxAgeMs: 3600_000, idleMs: 60_000, minFreeBytes: 0, maxActive: 100, maxPerMinute: 1000 }

type RecordingOptions = Partial<typeof GENEROUS> & { screenshots?: boolean, video?: VideoSource }

async function recordingApp (t: Parameters<typeof recordingStore>[0], recording: RecordingOptions = {}) {
  const dir = await recordingStore(t)
  const built = await build(t, { token: TOKEN, recording: { dir, ...GENEROUS, ...recording } })
  const inject = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const text = typeof payload === 'string'
    const { 'remote-address': remoteAddress, ...rest } = headers
    headers = rest
    const response = await built.app.inject({
      method, url, ...(remoteAddress && { remoteAddress }), headers: { ...auth, ...(payload !== undefined && { 'content-type': text ? 'text/plain' : 'application/json' }), ...headers },
      ...(payload !== undefined && { payload: text ? payload : JSON.stringify(payload) }),
    })
    const type = String(response.headers['content-type'] ?? '')
    return { status: response.statusCode, body: type.includes('json') ? response.json() : response.rawPayload, headers: response.headers }
  }
  return { ...built, dir, inject }
}

t.test('a unified request, an adapter call and an MCP tool call of one episode become its steps', async (t) => {
  const { inject, dir } = await recordingApp(t)
  const rec = { 'x-recording-id': 'episode-1', cookie: COOKIE }
  const unified = await inject('POST', '/computer?screenshot=true', { action: 'click_mouse', button: 'left', coordinates: [10, 20] }, rec)
  t.equal(unified.status, 200)
  const claude = await inject('POST', '/computer/anthropic?tool_version=computer_20250124', { action: 'type', text: 'hello', api_key: 'payload-secret' }, rec)
  t.equal(claude.status, 400, 'a payload that does not fit is refused as usual, and recorded')
  const claudeOk = await inject('POST', '/computer/anthropic?tool_version=computer_20250124', { action: 'key', text: 'ctrl+a' }, rec)
  t.equal(claudeOk.status, 200, JSON.stringify(claudeOk.body))
  const mcp = await inject('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'take_screenshot', arguments: {} } },
    { ...rec, accept: 'application/json, text/event-stream' })
  t.equal(mcp.status, 200, JSON.stringify(mcp.body).slice(0, 200))
  const unrecorded = await inject('POST', '/computer', { action: 'get_cursor_position' })
  t.equal(unrecorded.status, 200, 'a request without the header is not part of any episode')

  const { status, body } = await inject('GET', '/recordings/episode-1')
  t.equal(status, 200)
  t.match(body, { id: 'episode-1', state: 'recording', stop_reason: null, video: false, video_started_at: null, video_error: null })
  t.equal(body.steps.length, 4, 'four steps: the request without the header is not one')
  const [first, refused, key, tool] = body.steps
  t.match(first, {
    index: 0, method: 'POST', route: '/computer', url: '/computer?screenshot=true', status: 200, error: null, video_offset_ms: null,
    payload: { action: 'click_mouse', button: 'left', coordinates: [10, 20] },
    runs: [{ actions: [{ action: 'click_mouse', button: 'left', coordinates: [10, 20] }], failed_index: null, error: null }],
    images: ['0000-0.png'],
  })
  t.match(first.response, { output: 'clicked left at (10, 20)', error: null, base64_image: /^\[\d+ characters of base64 not kept\]$/, cursor_position: [10, 20] },
    'the answer as sent is kept, its image left to the images')
  t.strictSame(key.response, redactPayload(claudeOk.body), 'an adapter\'s native answer is kept as sent, images left out')
  t.match(JSON.stringify(claudeOk.body), /"type":"tool_result"/)
  t.equal(tool.response, null, 'an MCP answer bypasses onSend and is not kept (its runs are)')
  t.equal(first.runs[0].results[0].image, '0000-0.png', 'the screenshot the request took is a file, named in the result')
  t.notOk('base64_image' in first.runs[0].results[0], 'and not kept inline')
  t.match(refused, { route: '/computer/anthropic', status: 400, error: { code: 'ERR_INVALID_PAYLOAD' }, runs: [], payload: { action: 'type', text: 'hello', api_key: '[redacted]' } })
  t.match(key, { route: '/computer/anthropic', status: 200, payload: { action: 'key', text: 'ctrl+a' }, runs: [{ actions: [{ action: 'press_key', keys: ['ctrl+a'] }] }] })
  t.match(tool, { route: '/mcp', status: 200, payload: { method: 'tools/call', params: { name: 'take_screenshot' } }, runs: [{ actions: [{ action: 'take_screenshot' }] }], images: ['0003-0.png'] })
  for (const step of body.steps) t.ok(step.ms > 0 && Date.parse(step.started_at) > 0, `step ${step.index} has its timings`)

  const image = await inject('GET', '/recordings/episode-1/images/0000-0.png')
  t.equal(image.status, 200)
  t.equal(image.headers['content-type'], 'image/png')
  t.strictSame([...(image.body as Buffer).subarray(1, 4)], [...Buffer.from('PNG')], 'the screenshot is a PNG')

  const store = await everyByte(dir)
  for (const secret of [TOKEN, 'cookie-value-that-must-not-be-kept', 'payload-secret']) t.notOk(store.includes(secret), `the store holds nothing of ${secret.slice(0, 12)}…`)
  t.notOk(/authorization/i.test(store), 'nor any Authorization header')
})

t.test('a bad name is refused with 400 before anything runs; recording routes refuse bad names too', async (t) => {
  const { inject, driver } = await recordingApp(t)
  for (const id of ['../etc', 'a b', '-dash-first', 'x'.repeat(65), 'session']) {
    const before = driver.calls.length
    const { status, body } = await inject('POST', '/computer', { action: 'click_mouse', button: 'left', coordinates: [1, 1] }, { 'x-recording-id': id })
    t.equal(status, 400, `'${id.slice(0, 20)}' is refused`)
    t.equal(body.code, 'ERR_INVALID_RECORDING_ID')
    t.match(body.message, /X-Recording-Id must be 1–64 letters, digits/)
    t.equal(driver.calls.length, before, 'and nothing reached the driver')
  }
  const bad = await inject('GET', '/recordings/a%20b')
  t.equal(bad.status, 400)
  const missing = await inject('GET', '/recordings/nobody')
  t.match(missing, { status: 404, body: { code: 'ERR_RECORDING_NOT_FOUND', message: "no recording 'nobody' (GET /recordings lists them)" } })
})

t.test('stop ends an episode, its name is then refused; idle ends one; delete removes it', async (t) => {
  const { inject } = await recordingApp(t, { idleMs: 300 })
  const act = (id: string) => inject('POST', '/computer', { action: 'move_mouse', coordinates: [5, 5] }, { 'x-recording-id': id })
  t.equal((await act('one')).status, 200)
  const stopped = await inject('POST', '/recordings/one/stop')
  t.match(stopped, { status: 200, body: { id: 'one', state: 'stopped', stop_reason: 'stopped', steps: 1 } })
  const again = await act('one')
  t.equal(again.status, 409)
  t.match(again.body, { code: 'ERR_RECORDING_ENDED', message: "recording 'one' has ended (stopped); name a new episode in X-Recording-Id, or DELETE /recordings/one first" })

  t.equal((await act('two')).status, 200)
  t.ok(await until(async () => (await inject('GET', '/recordings/two')).body.state === 'stopped', 3000), 'an episode without requests ends by itself')
  t.match((await inject('GET', '/recordings/two')).body, { stop_reason: 'idle', steps: [{ index: 0 }] })

  const list = await inject('GET', '/recordings')
  t.equal(list.status, 200)
  t.strictSame(list.body.recordings.map((r: { id: string }) => r.id).sort(), ['one', 'two'])
  t.equal(list.body.max_bytes, GENEROUS.maxBytes)
  t.ok(list.body.bytes > 0)
  t.equal((await inject('DELETE', '/recordings/one')).status, 204)
  t.equal((await inject('GET', '/recordings/one')).status, 404)
  t.equal((await inject('DELETE', '/recordings/one')).status, 404)
  t.equal((await act('one')).status, 200, 'a deleted name may be used again')
})

t.test('the archive holds the steps, the images and (here no) video, as tar', async (t) => {
  const { inject } = await recordingApp(t, { screenshots: true })
  const clicked = await inject('POST', '/computer', { action: 'click_mouse', button: 'left', coordinates: [3, 4] }, { 'x-recording-id': 'arch' })
  t.equal(clicked.body.base64_image, null, 'the client gets no image it did not ask for')
  await inject('POST', '/computer', { action: 'take_screenshot' }, { 'x-recording-id': 'arch' })
  const batch = await inject('POST', '/computer/batch', { actions: [{ action: 'move_mouse', coordinates: [1, 1] }, { action: 'move_mouse', coordinates: [2, 2], screenshot: true }] }, { 'x-recording-id': 'arch' })
  t.strictSame(batch.body.results.map((r: { base64_image: string | null }) => r.base64_image !== null), [false, true], 'nor in a batch, where it keeps those it asked for')
  const detail = (await inject('GET', '/recordings/arch')).body
  t.strictSame(detail.steps.map((s: { images: string[] }) => s.images), [['0000-0-after.png'], ['0001-0.png'], ['0002-0-after.png', '0002-1.png']],
    '--record-screenshots adds one after each action that took none, and none after one that did')
  t.match(detail.steps[2].runs[0].results, [{ image: null, after: '0002-0-after.png' }, { image: '0002-1.png' }])
  const { status, body, headers } = await inject('GET', '/recordings/arch/archive')
  t.equal(status, 200)
  t.equal(headers['content-type'], 'application/x-tar')
  const files = untar(body as Buffer)
  t.strictSame(files.map((f) => f.name), ['arch/recording.json', 'arch/images/0000-0-after.png', 'arch/images/0001-0.png', 'arch/images/0002-0-after.png', 'arch/images/0002-1.png'])
  t.strictSame(JSON.parse(files[0]!.data.toString()), detail, 'recording.json is GET /recordings/{id}')
  t.equal(files[2]!.data.subarray(1, 4).toString(), 'PNG')
})

t.test('the size limit drops the oldest episodes first; the age limit drops the old', async (t) => {
  // The fake desktop is one colour: an episode of one screenshot is ~1.3 KB (its PNG is indexed).
  const { inject } = await recordingApp(t, { maxBytes: 20_000 })
  const shoot = (id: string) => inject('POST', '/computer?screenshot=true', { action: 'move_mouse', coordinates: [1, 1] }, { 'x-recording-id': id })
  for (const id of ['a', 'b']) {
    t.equal((await shoot(id)).status, 200)
    await inject('POST', `/recordings/${id}/stop`)
  }
  const sizes = (await inject('GET', '/recordings')).body
  t.strictSame(sizes.recordings.map((r: { id: string }) => r.id), ['b', 'a'])
  const each = sizes.recordings[0].bytes
  t.ok(each > 1_000 && each * 2 < 20_000, `an episode of one screenshot takes ${each} bytes`)
  // Enough episodes to pass the limit: the oldest go, the newest stay.
  const more = Math.ceil(20_000 / each)
  for (let i = 0; i < more; i++) {
    t.equal((await shoot(`c${i}`)).status, 200)
    await inject('POST', `/recordings/c${i}/stop`)
  }
  await shoot('last')
  const after = (await inject('GET', '/recordings')).body
  const ids = after.recordings.map((r: { id: string }) => r.id)
  t.notOk(ids.includes('a'), `the oldest is dropped (${ids.join(',')})`)
  t.ok(ids.includes('last') && ids.includes(`c${more - 1}`), 'the newest are kept')
  t.ok(after.bytes <= 20_000 + each, `the store stays near its limit (${after.bytes} bytes)`)

  await t.test('age', async (t) => {
    const { inject } = await recordingApp(t, { maxAgeMs: 200 })
    await inject('POST', '/computer', { action: 'move_mouse', coordinates: [1, 1] }, { 'x-recording-id': 'old' })
    await inject('POST', '/recordings/old/stop')
    await delay(300)
    await inject('POST', '/computer', { action: 'move_mouse', coordinates: [1, 1] }, { 'x-recording-id': 'new' })
    const ids = (await inject('GET', '/recordings')).body.recordings.map((r: { id: string }) => r.id)
    t.strictSame(ids, ['new'], 'an ended episode past the age limit is dropped when the next starts')
  })
})

t.test('a full disk refuses a new recording with 507 and runs nothing of it; actions without it go on', async (t) => {
  const { inject, driver, app } = await recordingApp(t, { minFreeBytes: Number.MAX_SAFE_INTEGER })
  const before = driver.calls.length
  const refused = await inject('POST', '/computer', { action: 'click_mouse', button: 'left', coordinates: [1, 1] }, { 'x-recording-id': 'full' })
  t.equal(refused.status, 507)
  t.equal(refused.body.code, 'ERR_RECORDING_STORE_FULL')
  t.match(refused.body.message, /^no new recording: the recordings' disk \(.+\) has [\d.]+ MB free, below --record-min-free-mb \([\d.]+ MB\)\. Delete recordings/)
  t.equal(driver.calls.length, before, 'nothing ran')
  t.strictSame(app.executor.held(), { keys: [], buttons: [] }, 'nothing is held')
  t.equal((await inject('POST', '/computer', { action: 'click_mouse', button: 'left', coordinates: [1, 1] })).status, 200, 'a request without X-Recording-Id runs')
  t.strictSame((await inject('GET', '/recordings')).body.recordings, [])
})

/** A video source whose captures only count themselves: how many run now, how many were ever started. */
function countingVideo () {
  const counts = { running: 0, started: 0 }
  const source: VideoSource = {
    extension: 'mp4',
    mediaType: 'video/mp4',
    start: async (): Promise<VideoCapture> => {
      counts.running++
      counts.started++
      let end!: (reason: string | null) => void
      const ended = new Promise<string | null>((resolve) => { end = resolve })
      let stopped = false
      return {
        startedAt: Date.now(),
        ended,
        stop: async () => {
          if (stopped) return
          stopped = true
          counts.running--
          end(null)
        },
      }
    },
  }
  return { source, counts }
}

const click = { action: 'click_mouse', button: 'left', coordinates: [1, 1] }

t.test('beyond --record-max-active a new episode is refused with 429 and Retry-After before anything runs; /health counts the encoders', async (t) => {
  const { source, counts } = countingVideo()
  const { inject, driver } = await recordingApp(t, { maxActive: 3, idleMs: 30_000, video: source })
  const idle = driver.calls.length
  t.equal((await inject('POST', '/computer', click)).status, 200)
  const perClick = driver.calls.length - idle
  const before = driver.calls.length
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => inject('POST', '/computer', click, { 'x-recording-id': `parallel-${i}` })))
  const started = answers.filter((answer) => answer.status === 200)
  const refused = answers.filter((answer) => answer.status !== 200)
  t.equal(started.length, 3, 'exactly the cap started')
  t.equal(counts.started, 3, 'and only their encoders')
  t.equal(driver.calls.length - before, 3 * perClick, 'the refused ran nothing')
  t.strictSame(new Set(refused.map((answer) => answer.status)), new Set([429]))
  t.strictSame(refused[0]!.body, {
    statusCode: 429,
    code: 'ERR_RECORDING_LIMIT',
    error: 'Too Many Requests',
    message: 'no new recording: 3 are recording, the most --record-max-active allows (3). End one (POST /recordings/{id}/stop), or wait: one without requests ends after --record-idle (30 s). ' +
      'Requests without X-Recording-Id, or naming an episode that records, run as usual',
  })
  t.equal(refused[0]!.headers['retry-after'], '30', 'Retry-After: when the longest idle one ends by itself')
  const health = await inject('GET', '/health')
  t.strictSame(health.body.recording, { active: 3, encoders: 3, max_active: 3 })

  t.equal((await inject('POST', '/computer', click, { 'x-recording-id': 'parallel-0' })).status, 200, 'an episode that records goes on')
  t.equal((await inject('POST', '/computer', click)).status, 200, 'a request without the header runs')
  const ended = started.length && (await inject('GET', '/recordings')).body.recordings.find((r: { state: string }) => r.state === 'recording').id
  t.equal((await inject('POST', `/recordings/${ended}/stop`)).status, 200)
  t.strictSame((await inject('GET', '/health')).body.recording, { active: 2, encoders: 2, max_active: 3 }, 'its encoder is gone')
  t.equal(counts.running, 2)
  t.equal((await inject('POST', '/computer', click, { 'x-recording-id': 'after-one-ended' })).status, 200, 'a new one starts once one ended')
})

t.test('beyond --record-max-per-minute a client is refused with 429 until the minute has passed; another client is not', async (t) => {
  const { inject, driver } = await recordingApp(t, { maxActive: 10, maxPerMinute: 2 })
  for (const id of ['first', 'second']) t.equal((await inject('POST', '/computer', click, { 'x-recording-id': id })).status, 200)
  const before = driver.calls.length
  const refused = await inject('POST', '/computer', click, { 'x-recording-id': 'third' })
  t.equal(refused.status, 429)
  t.equal(driver.calls.length, before, 'nothing ran')
  const wait = Number(refused.headers['retry-after'])
  t.ok(wait >= 59 && wait <= 60, `Retry-After ${wait}: when the first start leaves the minute`)
  t.strictSame(refused.body, {
    statusCode: 429,
    code: 'ERR_RECORDING_LIMIT',
    error: 'Too Many Requests',
    message: `no new recording: this client (127.0.0.1) started 2 in the last minute, the most --record-max-per-minute allows; retry in ${wait} s, or keep naming the same episode in X-Recording-Id`,
  })
  t.equal((await inject('POST', '/computer', click, { 'x-recording-id': 'first' })).status, 200, 'its episodes go on')
  t.equal((await inject('POST', '/computer', click, { 'x-recording-id': 'other', 'remote-address': '127.0.0.2' })).status, 200, 'another client address starts one')
  t.strictSame((await inject('GET', '/health')).body.recording, { active: 3, encoders: 0, max_active: 10 }, 'no video source: no encoders')
})

t.test('without --record: the header is ignored and /recordings says how to turn it on', async (t) => {
  const { app } = await build(t)
  const acted = await app.inject({ method: 'POST', url: '/computer', payload: { action: 'move_mouse', coordinates: [1, 1] }, headers: { 'x-recording-id': 'bad name' } })
  t.equal(acted.statusCode, 200)
  const list = await app.inject({ method: 'GET', url: '/recordings' })
  t.equal(list.statusCode, 404)
  t.equal(list.json().message, 'this server does not record: start it with --record (RECORD=1); X-Recording-Id is ignored without it')
})

t.test('reads take the token or the replay page\'s session; stop and delete the token only', async (t) => {
  const { app, inject } = await recordingApp(t)
  await inject('POST', '/computer', { action: 'move_mouse', coordinates: [1, 1] }, { 'x-recording-id': 'private' })
  const anonymous = await app.inject({ method: 'GET', url: '/recordings/private' })
  t.equal(anonymous.statusCode, 401)
  const page = await app.inject({ method: 'GET', url: '/recordings/private/replay' })
  t.equal(page.statusCode, 401)
  t.match(page.body, /id="signin"/, 'the page asks for the token')
  t.match(page.headers['content-security-policy'], /frame-ancestors 'none'/)
  const session = await app.inject({ method: 'POST', url: '/recordings/session', headers: auth })
  t.equal(session.statusCode, 204)
  const cookie = String(session.headers['set-cookie']).split(';')[0]!
  t.match(cookie, /^cg_replay=/)
  t.equal((await app.inject({ method: 'GET', url: '/recordings/private', headers: { cookie } })).statusCode, 200)
  t.match((await app.inject({ method: 'GET', url: '/recordings/private/replay', headers: { cookie } })).body, /id="timeline"/)
  t.equal((await app.inject({ method: 'POST', url: '/recordings/private/stop', headers: { cookie } })).statusCode, 401, 'the cookie does not stop')
  t.equal((await app.inject({ method: 'DELETE', url: '/recordings/private', headers: { cookie } })).statusCode, 401, 'nor delete')
})

/** The files of a ustar archive. */
function untar (archive: Buffer): Array<{ name: string, data: Buffer }> {
  const files: Array<{ name: string, data: Buffer }> = []
  for (let at = 0; at + 512 <= archive.length;) {
    const header = archive.subarray(at, at + 512)
    if (header.every((byte) => byte === 0)) break
    const name = header.subarray(0, 100).toString().replace(/\0.*$/s, '')
    const size = parseInt(header.subarray(124, 136).toString().replace(/\0.*$/s, ''), 8)
    let sum = 0
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!
    if (sum !== parseInt(header.subarray(148, 156).toString(), 8)) throw new Error(`bad checksum for ${name}`)
    files.push({ name, data: archive.subarray(at + 512, at + 512 + size) })
    at += 512 + Math.ceil(size / 512) * 512
  }
  return files
}

t.test('the --record flags: off by default; on, each with its default; bad values stop the server', async (t) => {
  const { loadConfig } = await import('../src/runtime/config.ts')
  t.equal(loadConfig([], {}).recording, undefined)
  t.strictSame(loadConfig(['--record'], {}).recording, {
    dir: 'recordings', maxBytes: 2048 * 1024 * 1024, maxAgeMs: 168 * 3600_000, idleMs: 300_000, minFreeBytes: 256 * 1024 * 1024, maxActive: 4, maxPerMinute: 10, fps: 5, screenshots: false,
  })
  t.match(loadConfig([], { RECORD: '1', RECORD_MAX_ACTIVE: '2', RECORD_MAX_PER_MINUTE: '30' }).recording, { maxActive: 2, maxPerMinute: 30 })
  t.throws(() => loadConfig(['--record', '--record-max-active', '0'], {}), { message: "--record-max-active must be a positive integer (got '0')" })
  t.match(loadConfig([], { RECORD: '1', RECORD_DIR: '/data/rec', RECORD_FPS: '0', RECORD_SCREENSHOTS: 'true', RECORD_MAX_MB: '0.5' }).recording,
    { dir: '/data/rec', fps: 0, screenshots: true, maxBytes: 524288 })
  t.throws(() => loadConfig(['--record', '--record-fps', '60'], {}), { message: "--record-fps must be 0..30 (got '60')" })
  t.throws(() => loadConfig(['--record', '--record-max-mb', '0'], {}), { message: "--record-max-mb must be a positive number (got '0')" })
  t.throws(() => loadConfig(['--record', '--record-min-free-mb=-1'], {}), { message: "--record-min-free-mb must be a number, 0 or more (got '-1')" })
})

t.test('the replay page of an unknown episode is a 404 in JSON', async (t) => {
  const { app } = await recordingApp(t)
  const session = await app.inject({ method: 'POST', url: '/recordings/session', headers: auth })
  const cookie = String(session.headers['set-cookie']).split(';')[0]!
  const response = await app.inject({ method: 'GET', url: '/recordings/nobody/replay', headers: { cookie } })
  const { statusCode: status, headers } = response
  const body = response.json()
  t.equal(status, 404)
  t.match(headers['content-type'], /application\/json/)
  t.strictSame(body, { statusCode: 404, code: 'ERR_RECORDING_NOT_FOUND', error: 'Not Found', message: "no recording 'nobody' (GET /recordings lists them)" })
})

t.test('an image in a payload is left out however short; text that only starts like one is kept', async (t) => {
  const png = (await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } }).png({ palette: true }).toBuffer()).toString('base64')
  const jpeg = (await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } }).jpeg().toBuffer()).toString('base64')
  t.ok(png.length < 4096 && jpeg.length < 4096, 'both short')
  t.strictSame(redactPayload({ png, jpeg, url: `data:image/png;base64,${png}`, said: 'iVBORw0KGgo is how a PNG starts in base64.', plain: 'hello' }), {
    png: `[${png.length} characters of base64 not kept]`,
    jpeg: `[${jpeg.length} characters of base64 not kept]`,
    url: `[${png.length + 22} characters of base64 not kept]`,
    said: 'iVBORw0KGgo is how a PNG starts in base64.',
    plain: 'hello',
  })
})
