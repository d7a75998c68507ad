/**
 * DevTools calls in a recording, for real: the server with --browser chromium (Debian's
 * Chromium) and --record; Puppeteer connects through /browser/cdp naming an episode in
 * X-Recording-Id, opens a page, types into it, and sends one call the browser refuses. The
 * episode read back holds one step per call the client made (as many as GET /browser counted),
 * each whole: method, target session, sizes, timing (matched by type), the browser's error;
 * never a call's parameters or result: neither the typed text nor the page's address is
 * anywhere in the recording's files. A bad episode name is refused before the upgrade, and a
 * session without the header records nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import puppeteer from 'puppeteer-core'
import t from 'tap'
import { startFullServer } from './helpers/full-desktop.ts'
import { requireProgram } from './helpers/processes.ts'
import { errorBody } from './helpers/error-body.ts'
import { upgrade } from './helpers/ws-upgrade.ts'

for (const program of ['xfce4-session', 'xfwm4', 'dbus-run-session', 'chromium']) requireProgram(program, 'the full desktop with Chromium (npm run setup)')
t.setTimeout(240_000)

const EPISODE = 'cdp-calls'
const TYPED = `typed-${randomBytes(6).toString('hex')}`
const MARKER = `page-${randomBytes(6).toString('hex')}`
const PAGE = 'data:text/html,' + encodeURIComponent(`<!doctype html><title>${MARKER}</title><input id=name autofocus>`)

/** Every file's text under `dir`. */
function allText (dir: string): string {
  return readdirSync(dir).map((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? allText(path) : readFileSync(path, 'latin1')
  }).join('\n')
}

/** A step with its timing and counting fields as their types: what the whole-record comparison holds fixed. */
function shape (step: Record<string, any>) {
  return {
    ...step,
    index: typeof step.index,
    started_at: typeof step.started_at === 'string' && !Number.isNaN(Date.parse(step.started_at)) ? 'date-time' : step.started_at,
    ms: typeof step.ms,
    payload: { ...step.payload, id: typeof step.payload.id, bytes: typeof step.payload.bytes, session_id: step.payload.session_id === null ? null : typeof step.payload.session_id },
    response: { ...step.response, bytes: typeof step.response.bytes },
  }
}

t.test('each DevTools call of a session that names an episode is a step of it, without its contents', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cdp-recording-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const server = await startFullServer(t, ['--browser', 'chromium', '--record', '--record-dir', dir, '--record-fps', '0'])
  const endpoint = `${server.url.replace('http', 'ws')}/browser/cdp`

  t.strictSame(await upgrade(endpoint, { 'X-Recording-Id': '../etc' }), {
    status: 400,
    body: errorBody(400, 'ERR_INVALID_RECORDING_ID', "X-Recording-Id must be 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit (got '../etc')"),
  }, 'a bad episode name is refused before the upgrade')

  // A session without the header: it records nothing.
  const plain = await puppeteer.connect({ browserWSEndpoint: endpoint, defaultViewport: null })
  await plain.version()
  await plain.disconnect()
  for (const deadline = Date.now() + 5000; (await server.get('/browser')).body.current !== null && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 100))

  const browser = await puppeteer.connect({ browserWSEndpoint: endpoint, headers: { 'X-Recording-Id': EPISODE }, defaultViewport: null })
  let connected = true
  t.teardown(() => connected ? browser.disconnect() : undefined)
  const page = await browser.newPage()
  await page.goto(PAGE)
  await page.type('#name', TYPED)
  t.equal(await page.$eval('#name', (input) => (input as HTMLInputElement).value), TYPED, 'typed through CDP')
  const cdp = await page.createCDPSession()
  await t.rejects(cdp.send('Nope.nothing' as never), /'Nope.nothing' wasn't found/, 'the browser refuses an unknown method')
  await page.close()
  await browser.disconnect()
  connected = false

  // The close reaches the server a moment after disconnect(); its steps are written after.
  let status = await server.get('/browser')
  for (const deadline = Date.now() + 5000; status.body.current !== null && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    status = await server.get('/browser')
  }
  const session = (status.body.recent as Array<Record<string, number>>)[0]!
  t.equal(session.id, 2, 'the recorded session is the second')
  let recording = await server.get(`/recordings/${EPISODE}`)
  for (const deadline = Date.now() + 10_000; (recording.body.steps as unknown[] | undefined)?.length !== session.messages_in && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    recording = await server.get(`/recordings/${EPISODE}`)
  }
  t.equal(recording.status, 200)
  const steps = recording.body.steps as Array<Record<string, any>>
  t.equal(steps.length, session.messages_in, `one step per call the client made (${session.messages_in})`)
  t.strictSame(steps.map((step) => step.index), steps.map((_, index) => index), 'numbered in order')
  t.strictSame(((await server.get('/recordings')).body.recordings as Array<{ id: string }>).map((summary) => summary.id), [EPISODE], 'the session without the header recorded nothing')

  const methods = steps.map((step) => step.payload.method as string)
  for (const method of ['Target.createTarget', 'Page.navigate', 'Input.dispatchKeyEvent', 'Runtime.callFunctionOn', 'Nope.nothing', 'Target.closeTarget']) {
    t.ok(methods.includes(method), `${method} is recorded`)
  }
  const refused = steps.find((step) => step.payload.method === 'Nope.nothing')!
  t.strictSame(shape(refused), {
    index: 'number',
    method: 'CDP',
    route: '/browser/cdp',
    url: '/browser/cdp',
    payload: { connection: 2, id: 'number', method: 'Nope.nothing', session_id: 'string', target_id: null, bytes: 'number' },
    runs: [],
    status: 502,
    response: { bytes: 'number', error: { code: -32601, message: "'Nope.nothing' wasn't found" }, unanswered: null },
    error: null,
    started_at: 'date-time',
    ms: 'number',
    video_offset_ms: null,
    images: [],
  }, 'a refused call, whole: its method, its page\'s session, the browser\'s error')
  const created = steps.find((step) => step.payload.method === 'Target.createTarget')!
  t.strictSame(shape(created), {
    index: 'number',
    method: 'CDP',
    route: '/browser/cdp',
    url: '/browser/cdp',
    payload: { connection: 2, id: 'number', method: 'Target.createTarget', session_id: null, target_id: null, bytes: 'number' },
    runs: [],
    status: 200,
    response: { bytes: 'number', error: null, unanswered: null },
    error: null,
    started_at: 'date-time',
    ms: 'number',
    video_offset_ms: null,
    images: [],
  }, 'an answered call at the browser level, whole')
  const closed = steps.find((step) => step.payload.method === 'Target.closeTarget')!
  t.match(closed.payload, { target_id: /^[0-9A-F]{32}$/ }, 'a Target call keeps the target it names')
  t.ok(steps.every((step) => step.payload.bytes > 0 && (step.status === 504 || step.response.bytes > 0) && step.ms >= 0), 'every call has its sizes and its time')
  const text = allText(dir)
  t.notOk(text.includes(TYPED), 'the typed text is nowhere in the recording')
  t.notOk(text.includes(MARKER), 'nor the page\'s address or title')
})
