/**
 * The nut driver: the X-driver conformance suite (test/helpers/driver-conformance.ts) on a
 * real Xvfb of this file's own, and what is the nut driver's own: a worker process, which a
 * dead display never starts, an X server dying under it ends (503s, without taking this
 * process down), and close() ends by PID.
 */
import t from 'tap'
import { NutDriver } from '../drivers/nut/nut-driver.ts'
import { driverConformance } from './helpers/driver-conformance.ts'
import { doomedDriver, until } from './helpers/desktop.ts'
import { running } from './helpers/process-table.ts'

driverConformance({
  name: 'nut',
  create: (display) => new NutDriver({ display }),
  order: 'rgba',
  deadDisplay: async (t, dead) => { t.equal(dead.pid, undefined, 'no worker was started') },
  beforeClose: async (_t, other) => {
    await other.prepare()
    const pid = other.pid!
    return (t) => { t.notOk(running(pid), `the worker ${pid} is gone`) }
  },
})

t.test('when the X server dies, calls reject with DesktopUnavailable and this process lives on', async (t) => {
  const { own, doomed, exits } = await doomedDriver(t, (display) => new NutDriver({ display }))
  const workerPid = doomed.pid!

  const inFlight = Array.from({ length: 20 }, (_, i) => doomed.moveMouse({ x: i, y: i }).then(() => 'ok', (error: Error & { code?: string }) => error.code))
  process.kill(own.pid, 'SIGKILL')
  await own.exited
  for (const outcome of await Promise.all(inFlight)) t.ok(['ok', 'ERR_DESKTOP_UNAVAILABLE'].includes(outcome!), `in flight: ${outcome}`)

  await t.rejects(doomed.moveMouse({ x: 1, y: 1 }), { code: 'ERR_DESKTOP_UNAVAILABLE', statusCode: 503 })
  t.ok(await until(() => exits.length === 1), 'onExit heard it')
  // The worker's own X connections end it (code 3), or on a loaded machine the driver does once
  // its own reader lost X and the worker's grace ran out; nut-js is not loaded for input, so
  // Xlib's exit(1) is never what ends it.
  t.match(exits[0], new RegExp(`^the X server on ${own.display} went away \\((driver process exited with code 3|the X connection closed)\\)`))
  t.equal(doomed.ready(), false)
  t.notOk(running(workerPid), 'the worker is gone')
  await t.rejects(doomed.cursorPosition(), { code: 'ERR_DESKTOP_UNAVAILABLE' })
  await doomed.close()
  await doomed.close()
  await t.rejects(doomed.start(), { code: 'ERR_DESKTOP_UNAVAILABLE', message: /was closed/ })
})

t.test('X that stops answering under a move (sent from this process): it rejects at the call deadline and the driver ends', async (t) => {
  const { own, doomed, exits } = await doomedDriver(t, (display) => new NutDriver({ display, callTimeoutMs: 1000 }))
  const workerPid = doomed.pid!
  // A stopped X server stays stopped if the test fails half-way: its teardown kills it, and SIGCONT lets that land.
  t.teardown(() => { try { process.kill(own.pid, 'SIGCONT') } catch {} })
  await doomed.moveMouse({ x: 5, y: 5 })
  process.kill(own.pid, 'SIGSTOP')
  const started = performance.now()
  await t.rejects(doomed.moveMouse({ x: 6, y: 6 }), { code: 'ERR_DESKTOP_UNAVAILABLE', message: /did not answer input within 1000 ms and was stopped/ })
  const took = performance.now() - started
  t.ok(took >= 950 && took < 5000, `rejected after ${Math.round(took)} ms`)
  t.ok(await until(() => exits.length === 1), 'onExit heard it')
  t.match(exits[0], /did not answer input within 1000 ms and was stopped/)
  t.equal(doomed.ready(), false)
  t.ok(await until(() => !running(workerPid)), 'the worker is gone')
  await t.rejects(doomed.moveMouse({ x: 1, y: 1 }), { code: 'ERR_DESKTOP_UNAVAILABLE' })
})
