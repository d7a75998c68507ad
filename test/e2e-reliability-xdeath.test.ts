/**
 * The X server killed under a busy desktop with an application focused: an xterm copying
 * what is typed to a file, ten clients sending mixed actions (moves, clicks, typing, keys,
 * scrolls, batches, a screenshot now and then). Every request gets an answer — 200, or 503
 * with Retry-After — well within the deadline of any call (nothing waits on the dead X
 * server), /health says not ready while the desktop is down and ready after, the queue drains
 * to nothing, and typing into a new xterm works again.
 */
import t from 'tap'
import pino from 'pino'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { buildApp } from '../src/http/app.ts'
import { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { until } from './helpers/desktop.ts'

const CLIENTS = 10
/**
 * No answer may take this long: below the nut driver's call timeout (10 s), so an answer in
 * time means the request failed over when X died rather than after a deadline ran out.
 */
const ANSWER_MS = 8000

const silent = pino({ level: 'silent' })

const recorder = (file: string) => ['xterm', '-T', 'sink', '-e', 'sh', '-c', `stty -echo; exec cat > '${file}'`]

t.test('kill -9 of Xvfb under mixed load with an xterm focused', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'reliability-xdeath-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const before = join(dir, 'before.txt')
  const after = join(dir, 'after.txt')
  const desktop = new SupervisedDesktop({ screen: '1024x768x24', log: silent })
  const app = await buildApp({ driver: desktop, logger: silent, desktop, apps: { before: recorder(before), after: recorder(after) }, launchTimeoutMs: 15_000 })
  // Closing the app closes the desktop: launched xterms, jwm, workers and Xvfb, by PID.
  t.teardown(() => app.close())
  await app.ready()
  const act = async (payload: object, url = '/computer') => app.inject({ method: 'POST', url, payload })

  const launched = await act({ action: 'launch_app', app: 'before' })
  t.equal(launched.statusCode, 200, launched.body)
  t.equal((await act({ action: 'set_window_geometry', window: { title: 'sink' }, x: 0, y: 0, width: 600, height: 400 })).statusCode, 200)
  t.equal((await act({ action: 'type_text', text: 'ready\n' })).statusCode, 200)
  t.ok(await until(async () => (await readFile(before, 'utf8').catch(() => '')) === 'ready\n', 5000), 'the xterm copies what is typed')

  const mixed = (n: number): [object, string] => {
    if (n % 20 === 19) return [{ action: 'take_screenshot' }, '/computer']
    const point = [40 + (n * 37) % 500, 40 + (n * 53) % 300]
    switch (n % 7) {
      case 0: return [{ action: 'move_mouse', coordinates: point }, '/computer']
      case 1: return [{ action: 'click_mouse', button: 'left', coordinates: point }, '/computer']
      case 2: return [{ action: 'type_text', text: `line ${n} ünïcödé\n` }, '/computer']
      case 3: return [{ action: 'press_key', keys: ['shift', 'a'] }, '/computer']
      case 4: return [{ action: 'scroll', coordinates: point, delta_y: 3 }, '/computer']
      case 5: return [{ actions: [{ action: 'move_mouse', coordinates: point }, { action: 'type_text', text: 'x' }, { action: 'press_key', keys: ['Return'] }] }, '/computer/batch']
      default: return [{ action: 'get_cursor_position' }, '/computer']
    }
  }

  const answers: Array<{ status: number | 'none', ms: number, retryAfter?: string }> = []
  let stop = false
  let sent = 0
  const client = async () => {
    while (!stop) {
      const [payload, url] = mixed(sent++)
      const started = performance.now()
      // A request that gets no answer is recorded as such, not waited for by the test.
      const gaveUp = new AbortController()
      const response = await Promise.race([act(payload, url), delay(ANSWER_MS * 3, undefined, { signal: gaveUp.signal }).catch(() => undefined)])
      gaveUp.abort()
      const ms = performance.now() - started
      if (!response) { answers.push({ status: 'none', ms }); continue }
      answers.push({ status: response.statusCode, ms, ...(response.headers['retry-after'] !== undefined && { retryAfter: String(response.headers['retry-after']) }) })
      if (response.statusCode === 503) await delay(50)
    }
  }
  const clients = Array.from({ length: CLIENTS }, client)
  await delay(1500)
  const xvfbPid = desktop.xvfbPid!
  const health = async () => (await app.inject({ url: '/health' })).json() as { ready: boolean, queue: number, oldest_wait_ms: number }
  t.equal((await health()).ready, true)
  process.kill(xvfbPid, 'SIGKILL')
  const killedAt = performance.now()
  t.ok(await until(async () => !(await health()).ready, 1000), 'not ready within a second of X dying')
  const back = await until(async () => desktop.restarts === 1 && (await health()).ready, 20_000)
  t.ok(back, `ready again (${Math.round(performance.now() - killedAt)} ms after the kill)`)
  t.not(desktop.xvfbPid, xvfbPid, 'a new Xvfb')
  await delay(1000)
  stop = true
  await Promise.all(clients)

  const statuses = new Map<string, number>()
  for (const { status } of answers) statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1)
  t.comment(`${answers.length} requests: ${[...statuses].map(([status, count]) => `${count} × ${status}`).join(', ')}; slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms`)
  t.equal(answers.filter((a) => a.status === 'none').length, 0, 'every request got an answer')
  t.strictSame(answers.filter((a) => a.status !== 200 && a.status !== 503), [], 'each answer is 200 or 503')
  t.strictSame(answers.filter((a) => a.status === 503 && a.retryAfter !== '2'), [], 'every 503 says when to retry')
  t.ok((statuses.get('503') ?? 0) > 0, 'some requests met the dead X server')
  t.strictSame(answers.filter((a) => a.ms > ANSWER_MS).map((a) => Math.round(a.ms)), [], `no answer took over ${ANSWER_MS} ms`)

  t.ok(await until(async () => (await health()).queue === 0, 5000), 'the queue drained')
  t.match(await health(), { ready: true, queue: 0, oldest_wait_ms: 0 })

  // The xterm died with its X server; a new one gets typed into.
  const relaunched = await act({ action: 'launch_app', app: 'after' })
  t.equal(relaunched.statusCode, 200, relaunched.body)
  t.equal((await act({ action: 'type_text', text: 'typing works again ✓\n' })).statusCode, 200)
  t.ok(await until(async () => (await readFile(after, 'utf8').catch(() => '')) === 'typing works again ✓\n', 5000), 'typed into the new xterm')
})
