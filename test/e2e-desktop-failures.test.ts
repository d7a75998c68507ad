/**
 * A display that does not answer is a clear error, never a segfault; an X server that dies
 * under a running server turns requests into 503s (Retry-After) and the process lives on.
 */
import t from 'tap'
import { NutDriver } from '../drivers/nut/nut-driver.ts'
import { buildOnDisplay, startDesktop } from './helpers/desktop.ts'

t.test('a dead DISPLAY is a clear error at start', async (t) => {
  const driver = new NutDriver({ display: ':4242' })
  await t.rejects(driver.start(), {
    code: 'ERR_INVALID_CONFIG',
    message: 'DISPLAY :4242 does not answer (no X server at /tmp/.X11-unix/X4242); unset DISPLAY to let computer-gateway start its own Xvfb',
  })
  t.equal(driver.ready(), false)
})

t.test('when the X server dies, requests answer 503 and the server process lives on', async (t) => {
  const xvfb = await startDesktop(t)
  const { app } = await buildOnDisplay(t, xvfb.display)
  const before = await app.inject({ method: 'POST', url: '/computer', payload: { action: 'move_mouse', coordinates: [5, 5] } })
  t.equal(before.statusCode, 200)
  process.kill(xvfb.pid, 'SIGKILL')
  await xvfb.exited
  const responses = []
  for (let i = 0; i < 3; i++) {
    responses.push(await app.inject({ method: 'POST', url: '/computer', payload: { action: 'move_mouse', coordinates: [6, 6] } }))
  }
  for (const response of responses) {
    t.equal(response.statusCode, 503)
    t.equal(response.headers['retry-after'], '2')
    t.equal(response.json().code, 'ERR_DESKTOP_UNAVAILABLE')
  }
  t.match(responses[0]!.json().message, /the X server on :\d+ went away|not ready/)
  const health = await app.inject({ url: '/health' })
  t.equal(health.statusCode, 503)
  t.equal(health.json().status, 'unavailable')
})
