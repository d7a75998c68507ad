/**
 * The nut driver's worker, not the X server, goes wrong: a worker that hangs (SIGSTOP) is
 * killed after the call timeout of a call it is sent (keys: moves and clicks go out from the
 * server's own X connection) and replaced like a dead one; a worker killed outright is
 * replaced without restarting the X server, so the user's windows stay; no spare worker is
 * kept while the desktop is well, and one that dies before the restart uses it is loaded again.
 */
import t from 'tap'
import pino from 'pino'
import { Writable } from 'node:stream'
import { buildApp } from '../src/http/app.ts'
import { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { cursorFromX, until, xdotool } from './helpers/desktop.ts'
import { running } from './helpers/process-table.ts'

/** A logger that keeps what it is told, for the test to read. */
function recordingLogger () {
  const lines: Array<{ msg: string, [key: string]: unknown }> = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done() } })
  return { log: pino({ level: 'info' }, stream), lines }
}


async function open (t: { teardown: (fn: () => unknown) => void }) {
  const { log, lines } = recordingLogger()
  const desktop = new SupervisedDesktop({ screen: '1024x768x24', log })
  const app = await buildApp({ driver: desktop, logger: pino({ level: 'silent' }), desktop, apps: { term: ['xterm', '-T', 'kept'] }, launchTimeoutMs: 15_000 })
  t.teardown(() => app.close())
  await app.ready()
  const move = (x: number, y = 20) => app.inject({ method: 'POST', url: '/computer', payload: { action: 'move_mouse', coordinates: [x, y] } })
  const key = () => app.inject({ method: 'POST', url: '/computer', payload: { action: 'press_key', keys: ['shift'] } })
  return { desktop, app, lines, move, key }
}

t.test('a hung worker is killed after the call timeout and replaced; X and its windows stay', async (t) => {
  const { desktop, app, lines, move, key } = await open(t)
  t.equal((await app.inject({ method: 'POST', url: '/computer', payload: { action: 'launch_app', app: 'term' } })).statusCode, 200)
  const xvfb = desktop.xvfbPid!
  const worker = desktop.driverPid!
  // A stopped worker stays stopped if the test fails half-way: end it at teardown.
  t.teardown(() => { if (running(worker)) process.kill(worker, 'SIGKILL') })
  process.kill(worker, 'SIGSTOP')
  const started = performance.now()
  const hung = await key()
  t.equal(hung.statusCode, 503, 'the hung call answers 503')
  t.equal(hung.headers['retry-after'], '2')
  // A key press is an input plan: one message to the worker.
  t.match(hung.json().message, /the nut driver on :\d+ did not answer input within \d+ ms and was stopped/)
  t.comment(`the hung call answered after ${Math.round(performance.now() - started)} ms`)
  t.ok(await until(async () => (await key()).statusCode === 200, 15_000), 'keys work again')
  t.equal((await move(150)).statusCode, 200)
  t.strictSame(await cursorFromX(desktop.display!), [150, 20], 'on the same display')
  t.ok(desktop.driverPid !== undefined && desktop.driverPid !== worker, 'a new worker')
  t.equal(desktop.xvfbPid, xvfb, 'the X server was not restarted')
  t.ok(await xdotool(desktop.display!, 'search', '--name', '^kept$'), 'the window is still there')
  t.match((await app.inject({ url: '/health' })).json(), { status: 'ok', ready: true })
  t.ok(lines.some((line) => line.msg === 'driver restarted; the X server kept running'), 'logged as a driver restart')
})

t.test('a worker killed outright is replaced without restarting X, and no spare worker is kept', async (t) => {
  const { desktop, move, key } = await open(t)
  t.equal((await move(10)).statusCode, 200)
  const xvfb = desktop.xvfbPid!
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(desktop.sparePid, undefined, 'no spare while the desktop is well')

  const worker = desktop.driverPid!
  process.kill(worker, 'SIGKILL')
  // A move may still go out from the server's connection before the worker's exit is read.
  t.ok(await until(() => desktop.restarts === 1 && desktop.ready(), 15_000), 'the driver is replaced')
  t.equal((await move(60)).statusCode, 200, 'input works again')
  t.equal((await key()).statusCode, 200, 'keys too')
  t.ok(desktop.driverPid !== undefined && desktop.driverPid !== worker, 'a new worker')
  t.equal(desktop.xvfbPid, xvfb, 'the same X server')
  t.equal(desktop.restarts, 1)
  t.equal(desktop.sparePid, undefined, 'and none left after')
})

t.test('a spare killed while X restarts: the restart loads another worker', async (t) => {
  const { desktop, move } = await open(t)
  t.equal((await move(10)).statusCode, 200)
  process.kill(desktop.xvfbPid!, 'SIGKILL')
  // The spare is loaded from the moment X is lost until the new X server is up (≥ 0.3 s).
  t.ok(await until(() => desktop.sparePid !== undefined, 5000), 'a spare is prepared when the desktop is lost')
  const spare = desktop.sparePid!
  process.kill(spare, 'SIGKILL')
  t.ok(await until(async () => (await move(70)).statusCode === 200, 15_000), 'input works again')
  t.ok(desktop.driverPid !== undefined && desktop.driverPid !== spare, 'on a worker started after the spare died')
  t.equal(desktop.restarts, 1)
  t.equal(desktop.sparePid, undefined, 'and no spare is left')
})
