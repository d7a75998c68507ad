/**
 * The server outlives the X server: kill our Xvfb under load, again and again; every request
 * gets an answer (200, or 503 with Retry-After), the process lives on, and the desktop is
 * back — a new Xvfb, a new driver. How fast is printed, not asserted tightly: timings belong
 * to the bench, and this machine is shared (about 1.1 s alone, up to 2 s under the full suite).
 */
import { execFileSync } from 'node:child_process'
import t from 'tap'
import pino from 'pino'
import { buildApp } from '../src/http/app.ts'
import { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { startXvfb } from '../drivers/x11/xvfb.ts'
import { cursorFromX, holdDisplay, startDesktop, until } from './helpers/desktop.ts'

const KILLS = 10

t.test(`recovers from ${KILLS} X server deaths in a row`, async (t) => {
  const desktop = new SupervisedDesktop({ screen: '1024x768x24', log: pino({ level: 'silent' }) })
  const app = await buildApp({ driver: desktop, logger: pino({ level: 'silent' }), desktop })
  t.teardown(() => app.close())
  await app.ready()
  const move = (x: number) => app.inject({ method: 'POST', url: '/computer', payload: { action: 'move_mouse', coordinates: [x, 10] } })
  const recoveries: number[] = []
  for (let kill = 0; kill < KILLS; kill++) {
    const xvfbPid = Number((await import('node:child_process')).execFileSync('pgrep', ['-f', `Xvfb ${desktop.display} `]).toString().trim().split('\n')[0])
    const inFlight = Array.from({ length: 5 }, (_, i) => move(100 + i))
    process.kill(xvfbPid, 'SIGKILL')
    const killedAt = performance.now()
    for (const response of await Promise.all(inFlight)) {
      t.ok([200, 503].includes(response.statusCode), `answered ${response.statusCode}`)
      if (response.statusCode === 503) t.equal(response.headers['retry-after'], '2')
    }
    let recovered = -1
    while (performance.now() - killedAt < 15_000) {
      const response = await move(200 + kill)
      if (response.statusCode === 200) { recovered = performance.now() - killedAt; break }
      t.equal(response.statusCode, 503)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    t.ok(recovered >= 0 && recovered < 10_000, `back (${Math.round(recovered)} ms)`)
    t.strictSame(await cursorFromX(desktop.display!), [200 + kill, 10], 'the action landed on the new X server')
    recoveries.push(Math.round(recovered))
  }
  t.equal(desktop.restarts, KILLS)
  t.comment(`recovery times (ms): ${recoveries.join(', ')}`)
  const health = await app.inject({ url: '/health' })
  t.match(health.json(), { status: 'ok', ready: true, display: desktop.display })
})

t.test('what was held goes with the X server: a replaced desktop holds nothing', async (t) => {
  const desktop = new SupervisedDesktop({ screen: '1024x768x24', log: pino({ level: 'silent' }) })
  const app = await buildApp({ driver: desktop, logger: pino({ level: 'silent' }), desktop })
  t.teardown(() => app.close())
  await app.ready()
  const hold = await app.inject({ method: 'POST', url: '/computer', payload: { action: 'press_key', keys: ['shift'], press_type: 'down' } })
  t.equal(hold.statusCode, 200)
  const health = async () => (await app.inject({ url: '/health' })).json()
  t.strictSame((await health()).held, { keys: ['shift'], buttons: [] }, 'Shift is held')
  const xvfbPid = Number((await import('node:child_process')).execFileSync('pgrep', ['-f', `Xvfb ${desktop.display} `]).toString().trim().split('\n')[0])
  process.kill(xvfbPid, 'SIGKILL')
  // No action in between (a failing one would also drop what was held): only the restart.
  const killedAt = performance.now()
  while (desktop.restarts === 0 && performance.now() - killedAt < 15_000) await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(desktop.restarts, 1, 'the desktop was replaced')
  const after = await health()
  t.equal(after.ready, true)
  t.strictSame(after.held, { keys: [], buttons: [] }, 'the new desktop holds nothing, and says so')
})

t.test('an X server that is down for a while on a display we were given: failed attempts leave no worker behind', async (t) => {
  // Not our Xvfb: the desktop waits for someone to start X again on the display, attempt after
  // attempt, and each attempt starts a driver (the first takes the spare prepared when X was lost) that fails.
  const xvfb = await startDesktop(t, '1024x768x24')
  const desktop = new SupervisedDesktop({ display: xvfb.display, screen: '1024x768x24', log: pino({ level: 'silent' }) })
  t.teardown(() => desktop.close())
  await desktop.start()
  const workers = () => execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)]).toString()
    .split('\n').filter((line) => line.includes('nut-worker')).map((line) => Number(line.trim().split(/\s+/)[0]))
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.strictSame(workers(), [desktop.driverPid], 'while the desktop is well, only the driver\'s worker runs: no spare is kept')
  t.equal(desktop.sparePid, undefined)
  await xvfb.stop()
  const release = holdDisplay(t, xvfb.display)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  release()
  const again = await startXvfb({ screen: '1024x768x24', display: xvfb.display })
  t.teardown(() => again.stop())
  t.ok(await until(() => desktop.ready(), 15_000), 'back on the new X server')
  t.ok(desktop.restarts >= 1)
  await until(() => workers().length === 1, 5000)
  t.strictSame(workers(), [desktop.driverPid], 'only the new driver\'s worker runs')
  t.equal(desktop.sparePid, undefined, 'and the spare was used, not left')
  await desktop.close()
  t.strictSame(workers(), [], 'none after close')
})
