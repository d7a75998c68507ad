/**
 * What a real application receives (Chromium, recording every event): clicks of every button
 * at exact coordinates, n-clicks, modifiers held, wheel directions and notch counts, key combos
 * and typed text. The full per-key and per-layout proof builds on this oracle.
 */
import t from 'tap'
import { buildOnDisplay, startDesktop } from './helpers/desktop.ts'
import { startOracle, type OracleEvent } from './helpers/oracle.ts'

// Set up in t.before, so that a failure there still runs every teardown (no stray processes).
let app: Awaited<ReturnType<typeof buildOnDisplay>>['app']
let oracle: Awaited<ReturnType<typeof startOracle>>
t.before(async () => {
  const xvfb = await startDesktop(t)
  app = (await buildOnDisplay(t, xvfb.display)).app
  oracle = await startOracle(t, xvfb.display)
})

async function act (body: unknown) {
  const response = await app.inject({ method: 'POST', url: '/computer', payload: body as object })
  t.equal(response.statusCode, 200, JSON.stringify(body))
}

const of = (events: OracleEvent[], ...types: string[]) => events.filter((e) => types.includes(e.type))
const has = (type: string, count = 1) => (events: OracleEvent[]) => of(events, type).length >= count

t.test('clicks of every button land where asked', async (t) => {
  const buttons: Array<[string, number]> = [['left', 0], ['middle', 1], ['right', 2], ['back', 3], ['forward', 4]]
  for (const [button, dom] of buttons) {
    oracle.clear()
    await act({ action: 'click_mouse', button, coordinates: [400 + dom * 10, 500] })
    const events = await oracle.until(has('mouseup'))
    const [down, up] = [of(events, 'mousedown')[0], of(events, 'mouseup')[0]]
    t.match(down, { button: dom, x: 400 + dom * 10, y: 500 }, `${button} mousedown`)
    t.match(up, { button: dom, x: 400 + dom * 10, y: 500 }, `${button} mouseup`)
  }
  // End with a plain click (and wait for it to be recorded), so the next test starts clean.
  oracle.clear()
  await act({ action: 'click_mouse', button: 'left', coordinates: [640, 700] })
  await oracle.until(has('click'))
  await new Promise((resolve) => setTimeout(resolve, 600)) // past the multi-click interval
})

t.test('num_clicks 2 is a dblclick; 3 is a triple click', async (t) => {
  oracle.clear()
  await act({ action: 'click_mouse', button: 'left', coordinates: [300, 600], num_clicks: 2 })
  let events = await oracle.until(has('dblclick'))
  t.equal(of(events, 'dblclick').length, 1, 'one dblclick')
  t.strictSame(of(events, 'click').map((e) => e.detail), [1, 2])
  await new Promise((resolve) => setTimeout(resolve, 600)) // past the multi-click interval
  oracle.clear()
  await act({ action: 'click_mouse', button: 'left', coordinates: [320, 620], num_clicks: 3 })
  events = await oracle.until(has('click', 3))
  t.strictSame(of(events, 'click').map((e) => e.detail), [1, 2, 3])
  await new Promise((resolve) => setTimeout(resolve, 600))
})

t.test('hold_keys arrive as modifiers', async (t) => {
  oracle.clear()
  await act({ action: 'click_mouse', button: 'left', coordinates: [500, 650], hold_keys: ['shift'] })
  const events = await oracle.until(has('click'))
  t.match(of(events, 'click')[0], { shift: true, ctrl: false })
  t.match(of(events, 'keyup').at(-1), { key: 'Shift' }, 'and shift comes up after')
})

t.test('wheel directions and notch counts', async (t) => {
  const cases: Array<[number, number, number, number]> = [[0, 3, 0, 360], [0, -2, 0, -240], [2, 0, 240, 0], [-1, 0, -120, 0]]
  for (const [dx, dy, sumX, sumY] of cases) {
    oracle.clear()
    await act({ action: 'scroll', coordinates: [640, 500], delta_x: dx, delta_y: dy })
    const events = await oracle.until((e) => {
      const wheels = of(e, 'wheel')
      return Math.abs(wheels.reduce((s, w) => s + (w.dx as number), 0)) >= Math.abs(sumX) &&
        Math.abs(wheels.reduce((s, w) => s + (w.dy as number), 0)) >= Math.abs(sumY) && wheels.length > 0
    })
    const wheels = of(events, 'wheel')
    t.equal(wheels.reduce((s, w) => s + (w.dx as number), 0), sumX, `delta_x ${dx}`)
    t.equal(wheels.reduce((s, w) => s + (w.dy as number), 0), sumY, `delta_y ${dy}`)
  }
})

t.test('typing and key combos in a textarea', async (t) => {
  await act({ action: 'click_mouse', button: 'left', coordinates: [300, 100] })
  oracle.clear()
  const text = 'Hello, World! ~`@#$%^&*()_+{}|:"<>? -=[]\\;\',./ 0123456789'
  await act({ action: 'type_text', text })
  let events = await oracle.until((e) => of(e, 'input').at(-1)?.value === text)
  t.equal(of(events, 'input').at(-1)?.value, text, 'every ASCII character arrived exactly')
  oracle.clear()
  await act({ action: 'press_key', keys: ['ctrl', 'a'] })
  events = await oracle.until(has('keyup', 2))
  t.match(of(events, 'keydown'), [{ key: 'Control' }, { key: 'a', ctrl: true }])
  t.strictSame(of(events, 'keyup').at(-1)!.selection, [0, text.length], 'ctrl+a selected all')
  oracle.clear()
  await act({ action: 'press_key', keys: ['BackSpace'] })
  events = await oracle.until(has('input'))
  t.equal(of(events, 'input').at(-1)?.value, '', 'backspace deleted the selection')
})
