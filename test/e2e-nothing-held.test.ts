/**
 * Nothing stays held, as the X server itself reports it (xinput query-state of the XTest
 * devices the server presses with): after a refused batch, a driver that fails half-way
 * through a press, a client that goes away during a long hold or a wait, the idle timeout and
 * a shutdown. test/held-inputs.test.ts proves the executor's bookkeeping over the fake driver;
 * this file proves the real keys and buttons come up.
 */
import t from 'tap'
import pino from 'pino'
import { buildApp } from '../src/http/app.ts'
import type { Driver, InputStep } from '../src/driver/driver.ts'
import { NutDriver } from '../drivers/nut/nut-driver.ts'
import { heldOnX, startDesktop, until } from './helpers/desktop.ts'

let display: string
t.before(async () => { display = (await startDesktop(t)).display })

/**
 * The nut driver, with one chance to fail: when `failAfter(call)` says so, the primitive runs
 * on X and then reports an error — the worst case, a press that happened but was not confirmed.
 * A whole input plan (`input`) fails the same way part-way: its steps up to the one
 * `failAfter` names run on X, the rest never do, and the call reports an error.
 */
function flakyNut (failAfter: (call: string) => boolean): Driver {
  const driver = new NutDriver({ display })
  let failed = false
  const primitive: Record<InputStep['kind'], (step: InputStep) => string> = {
    move: () => 'moveMouse',
    button: (step) => (step as { down: boolean }).down ? 'buttonDown' : 'buttonUp',
    wheel: () => 'wheel',
    key: (step) => (step as { down: boolean }).down ? 'keyDown' : 'keyUp',
    pause: () => 'pause',
  }
  return new Proxy(driver, {
    get (target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      if (property === 'input') {
        return async (steps: InputStep[]) => {
          const at = failed ? -1 : steps.findIndex((step) => failAfter(primitive[step.kind](step)))
          if (at < 0) return value.apply(target, [steps])
          failed = true
          await value.apply(target, [steps.slice(0, at + 1)])
          throw new Error(`injected failure after ${primitive[steps[at]!.kind](steps[at]!)}`)
        }
      }
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args)
        if (!failed && failAfter(String(property))) {
          failed = true
          throw new Error(`injected failure after ${String(property)}`)
        }
        return result
      }
    },
  })
}

async function app (t: { teardown: (fn: () => unknown) => void }, options: { driver?: Driver, holdTimeoutMs?: number } = {}) {
  const server = await buildApp({
    driver: options.driver ?? new NutDriver({ display }),
    logger: pino({ level: 'silent' }),
    desktop: { display },
    ...(options.holdTimeoutMs !== undefined && { holdTimeoutMs: options.holdTimeoutMs }),
  })
  t.teardown(() => server.close())
  await server.ready()
  return server
}

type App = Awaited<ReturnType<typeof app>>
const post = (server: App, body: unknown) =>
  server.inject({ method: 'POST', url: '/computer/batch', payload: { actions: body } })
const held = async (server: App) => (await server.inject({ url: '/health' })).json().held

t.test('a batch with an unknown key in its middle is refused whole: nothing was pressed', async (t) => {
  const server = await app(t)
  const response = await post(server, [
    { action: 'press_key', keys: ['shift'], press_type: 'down' },
    { action: 'click_mouse', button: 'left', coordinates: [100, 100], click_type: 'down' },
    { action: 'press_key', keys: ['hyperspace'] },
  ])
  t.equal(response.statusCode, 400)
  t.equal(response.json().code, 'ERR_UNKNOWN_KEY')
  t.strictSame(await heldOnX(display), [])
})

t.test('a driver that fails right after pressing: the button and the held keys come up on X', async (t) => {
  const server = await app(t, { driver: flakyNut((call) => call === 'buttonDown') })
  const response = await post(server, [
    { action: 'click_mouse', button: 'left', coordinates: [200, 200], hold_keys: ['ctrl', 'shift'] },
  ])
  t.equal(response.statusCode, 500)
  t.match(response.json().message, /injected failure after buttonDown/)
  t.strictSame(await heldOnX(display), [])
  t.strictSame(await held(server), { keys: [], buttons: [] })
})

t.test('a driver that fails in the middle of a drag: the button comes up', async (t) => {
  let moves = 0
  const server = await app(t, { driver: flakyNut((call) => call === 'moveMouse' && ++moves === 3) })
  const response = await post(server, [
    { action: 'drag_mouse', path: [[100, 100], [150, 150], [200, 200], [250, 250]], hold_keys: ['alt'] },
  ])
  t.equal(response.statusCode, 500)
  t.strictSame(await heldOnX(display), [])
})

t.test('a client that goes away during a long hold or a wait: everything comes up at once', async (t) => {
  const server = await app(t)
  await server.listen({ port: 0, host: '127.0.0.1' })
  const { port } = server.server.address() as { port: number }
  const bodies = [
    [{ action: 'press_key', keys: ['ctrl', 'shift', 'a'], duration: 20 }],
    [{ action: 'click_mouse', button: 'right', coordinates: [300, 300], click_type: 'down' },
      { action: 'press_key', keys: ['super'], press_type: 'down' },
      { action: 'wait', duration: 20 }],
  ]
  for (const actions of bodies) {
    const controller = new AbortController()
    const request = fetch(`http://127.0.0.1:${port}/computer/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ actions }),
      signal: controller.signal,
    }).catch((error: Error) => error)
    t.ok(await until(async () => (await heldOnX(display)).length > 0, 5000), `held on X while ${actions.at(-1)!.action} runs`)
    controller.abort()
    t.type(await request, Error)
    t.ok(await until(async () => (await heldOnX(display)).length === 0, 3000), 'released on X within 3 s of the abort, not after 20 s')
    t.strictSame(await heldOnX(display), [])
  }
})

t.test('keys held on purpose are listed by /health until the idle timeout releases them on X', async (t) => {
  // Long enough that the checks below (a request, an xinput process) fit before the idle
  // timeout on a busy machine: with 700 ms the release sometimes came first.
  const server = await app(t, { holdTimeoutMs: 3000 })
  const response = await post(server, [
    { action: 'press_key', keys: ['shift'], press_type: 'down' },
    { action: 'click_mouse', button: 'middle', click_type: 'down' },
  ])
  t.equal(response.statusCode, 200)
  t.strictSame(await held(server), { keys: ['shift'], buttons: ['middle'] })
  t.equal((await heldOnX(display)).length, 2, 'X reports the key and the button down')
  t.ok(await until(async () => (await heldOnX(display)).length === 0, 8000), 'released on X after the idle timeout')
  t.strictSame(await held(server), { keys: [], buttons: [] })
})

t.test('a shutdown releases what is held', async (t) => {
  const server = await buildApp({ driver: new NutDriver({ display }), logger: pino({ level: 'silent' }), desktop: { display } })
  await server.ready()
  await post(server, [
    { action: 'press_key', keys: ['alt', 'ctrl'], press_type: 'down' },
    { action: 'click_mouse', button: 'left', coordinates: [400, 400], click_type: 'down' },
  ])
  t.equal((await heldOnX(display)).length, 3, 'two keys and a button down before the shutdown')
  await server.close()
  t.strictSame(await heldOnX(display), [])
})
