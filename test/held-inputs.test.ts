/**
 * Nothing stays held: hold_keys come up when the action fails, keys held on purpose show in
 * GET /health and are released by their 'up', after the idle timeout, on a client's abort
 * and on shutdown.
 */
import t from 'tap'
import { build, post } from './helpers/build.ts'

t.test('hold_keys are released when the action fails, and so is a half-pressed button', async (t) => {
  const { app, driver } = await build(t)
  driver.setBeforeCall((call) => { if (call.call === 'buttonDown') throw new Error('button jammed') })
  const { status } = await post(app, '/computer', { action: 'click_mouse', button: 'left', hold_keys: ['ctrl', 'shift'] })
  t.equal(status, 500)
  t.strictSame(driver.calls, [
    { call: 'keyDown', key: 'ctrl' },
    { call: 'keyDown', key: 'shift' },
    { call: 'keyUp', key: 'shift' },
    { call: 'keyUp', key: 'ctrl' },
    // The press failed somewhere on its way: the release is sent anyway.
    { call: 'buttonUp', button: 'left' },
  ])
  const health = await app.inject({ url: '/health' })
  t.strictSame(health.json().held, { keys: [], buttons: [] })
})

t.test('press_type down is held, listed by /health, and released by up', async (t) => {
  const { app, driver } = await build(t)
  await post(app, '/computer', { action: 'press_key', keys: ['shift', 'a'], press_type: 'down' })
  await post(app, '/computer', { action: 'click_mouse', button: 'left', click_type: 'down' })
  let health = (await app.inject({ url: '/health' })).json()
  t.strictSame(health.held, { keys: ['shift', 'a'], buttons: ['left'] })
  await post(app, '/computer', { action: 'press_key', keys: ['shift', 'a'], press_type: 'up' })
  await post(app, '/computer', { action: 'click_mouse', button: 'left', click_type: 'up' })
  health = (await app.inject({ url: '/health' })).json()
  t.strictSame(health.held, { keys: [], buttons: [] })
  t.strictSame(driver.calls.map((c) => c.call), ['keyDown', 'keyDown', 'buttonDown', 'keyUp', 'keyUp', 'buttonUp'])
})

t.test('held input is released after the idle timeout', async (t) => {
  const { app, driver } = await build(t, { holdTimeoutMs: 100 })
  await post(app, '/computer', { action: 'press_key', keys: ['ctrl'], press_type: 'down' })
  t.strictSame((await app.inject({ url: '/health' })).json().held.keys, ['ctrl'])
  const deadline = Date.now() + 3000
  while ((await app.inject({ url: '/health' })).json().held.keys.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  t.strictSame((await app.inject({ url: '/health' })).json().held.keys, [])
  t.strictSame(driver.calls, [{ call: 'keyDown', key: 'ctrl' }, { call: 'keyUp', key: 'ctrl' }])
})

t.test('any action restarts the idle clock', async (t) => {
  const { app } = await build(t, { holdTimeoutMs: 1000 })
  await post(app, '/computer', { action: 'click_mouse', button: 'left', click_type: 'down' })
  await new Promise((resolve) => setTimeout(resolve, 600))
  await post(app, '/computer', { action: 'move_mouse', coordinates: [9, 9] })
  await new Promise((resolve) => setTimeout(resolve, 600))
  t.strictSame((await app.inject({ url: '/health' })).json().held.buttons, ['left'], 'still held 1.2 s after the press')
})

t.test('held input is released on shutdown', async (t) => {
  const { app, driver } = await build(t)
  await post(app, '/computer', { action: 'press_key', keys: ['alt'], press_type: 'down' })
  await app.close()
  t.strictSame(driver.calls.at(-1), { call: 'keyUp', key: 'alt' })
})

t.test('a client that goes away during a long hold stops it and releases the keys', async (t) => {
  const { app, driver } = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const controller = new AbortController()
  const request = fetch(`http://127.0.0.1:${port}/computer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'press_key', keys: ['shift'], duration: 20 }),
    signal: controller.signal,
  }).catch((error: Error) => error)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.strictSame((await app.inject({ url: '/health' })).json().held.keys, ['shift'], 'held while the request runs')
  const started = performance.now()
  controller.abort()
  t.type(await request, Error)
  while (driver.calls.length < 2 && performance.now() - started < 2000) await new Promise((resolve) => setTimeout(resolve, 10))
  t.strictSame(driver.calls, [{ call: 'keyDown', key: 'shift' }, { call: 'keyUp', key: 'shift' }])
  t.ok(performance.now() - started < 2000, 'released long before the 20 s were up')
  const next = await post(app, '/computer', { action: 'get_cursor_position' })
  t.equal(next.status, 200, 'the desktop is free for the next request')
})
