/**
 * POST /computer over the fake driver: every action, default and extension becomes the
 * driver primitives it should, and answers in the seed's response shape.
 */
import t from 'tap'
import { build, post } from './helpers/build.ts'
import type { FakeCall } from '../drivers/fake/fake-driver.ts'

const down = (button: string) => ({ call: 'buttonDown', button })
const up = (button: string) => ({ call: 'buttonUp', button })
const move = (x: number, y: number) => ({ call: 'moveMouse', x, y })
const keyDown = (key: string) => ({ call: 'keyDown', key })
const keyUp = (key: string) => ({ call: 'keyUp', key })

interface Case {
  action: Record<string, unknown>
  calls: object[]
  output: string
  /** Where the fake cursor starts. */
  cursorAt?: [number, number]
}

const cases: Record<string, Case> = {
  'move_mouse': {
    action: { action: 'move_mouse', coordinates: [412, 300] },
    calls: [move(412, 300)],
    output: 'moved to (412, 300)',
  },
  'move_mouse with hold_keys': {
    action: { action: 'move_mouse', coordinates: [5, 6], hold_keys: ['Shift', 'ctrl'] },
    calls: [keyDown('shift'), keyDown('ctrl'), move(5, 6), keyUp('ctrl'), keyUp('shift')],
    output: 'moved to (5, 6) holding shift+ctrl',
  },
  'click_mouse at a point (defaults: click, 1)': {
    action: { action: 'click_mouse', button: 'left', coordinates: [412, 300] },
    calls: [move(412, 300), down('left'), up('left')],
    output: 'clicked left at (412, 300)',
  },
  'click_mouse where the cursor is': {
    action: { action: 'click_mouse', button: 'right' },
    calls: [down('right'), up('right')],
    output: 'clicked right',
  },
  'click_mouse double': {
    action: { action: 'click_mouse', button: 'left', coordinates: [1, 2], num_clicks: 2 },
    calls: [move(1, 2), down('left'), up('left'), down('left'), up('left')],
    output: 'double-clicked left at (1, 2)',
  },
  'click_mouse triple with middle': {
    action: { action: 'click_mouse', button: 'middle', num_clicks: 3 },
    calls: [down('middle'), up('middle'), down('middle'), up('middle'), down('middle'), up('middle')],
    output: 'triple-clicked middle',
  },
  'click_mouse back and forward': {
    action: { action: 'click_mouse', button: 'back' },
    calls: [down('back'), up('back')],
    output: 'clicked back',
  },
  'click_mouse down only': {
    action: { action: 'click_mouse', button: 'left', click_type: 'down', coordinates: [7, 8] },
    calls: [move(7, 8), down('left')],
    output: 'pressed left at (7, 8)',
  },
  'click_mouse up only (num_clicks 1 is allowed)': {
    action: { action: 'click_mouse', button: 'left', click_type: 'up', num_clicks: 1 },
    calls: [up('left')],
    output: 'released left',
  },
  'click_mouse with hold_keys': {
    action: { action: 'click_mouse', button: 'left', coordinates: [3, 4], hold_keys: ['shift'] },
    calls: [keyDown('shift'), move(3, 4), down('left'), up('left'), keyUp('shift')],
    output: 'clicked left at (3, 4) holding shift',
  },
  'scroll down 3 at a point': {
    action: { action: 'scroll', coordinates: [100, 100], delta_y: 3 },
    calls: [move(100, 100), { call: 'wheel', dx: 0, dy: 3 }],
    output: 'scrolled 3 down at (100, 100)',
  },
  'scroll fractions round away from zero': {
    action: { action: 'scroll', delta_x: -0.2, delta_y: 1.5 },
    calls: [{ call: 'wheel', dx: -1, dy: 2 }],
    output: 'scrolled 2 down and 1 left',
  },
  'scroll with hold_keys': {
    action: { action: 'scroll', delta_y: -1, hold_keys: ['ctrl'] },
    calls: [keyDown('ctrl'), { call: 'wheel', dx: 0, dy: -1 }, keyUp('ctrl')],
    output: 'scrolled 1 up holding ctrl',
  },
  'press_key combo, released in reverse order': {
    action: { action: 'press_key', keys: ['ctrl', 'shift', 't'] },
    calls: [keyDown('ctrl'), keyDown('shift'), keyDown('t'), keyUp('t'), keyUp('shift'), keyUp('ctrl')],
    output: 'pressed ctrl+shift+t',
  },
  'press_key combo written as one string': {
    action: { action: 'press_key', keys: ['Control+C'] },
    calls: [keyDown('ctrl'), keyDown('c'), keyUp('c'), keyUp('ctrl')],
    output: 'pressed ctrl+c',
  },
  'press_key press_type down holds': {
    action: { action: 'press_key', keys: ['shift'], press_type: 'down' },
    calls: [keyDown('shift')],
    output: 'holding shift',
  },
  'press_key press_type up releases': {
    action: { action: 'press_key', keys: ['shift'], press_type: 'up' },
    calls: [keyUp('shift')],
    output: 'released shift',
  },
  'type_text': {
    action: { action: 'type_text', text: 'héllo 世界\n' },
    calls: [{ call: 'typeText', text: 'héllo 世界\n' }],
    output: 'typed 9 characters',
  },
  'type_text with hold_keys': {
    action: { action: 'type_text', text: 'a', hold_keys: ['shift'] },
    calls: [keyDown('shift'), { call: 'typeText', text: 'a' }, keyUp('shift')],
    output: 'typed 1 characters holding shift',
  },
  'get_cursor_position': {
    action: { action: 'get_cursor_position' },
    calls: [],
    output: 'cursor at (0, 0)',
  },
}

t.test('every action becomes the right driver primitives', async (t) => {
  for (const [name, c] of Object.entries(cases)) {
    t.test(name, async (t) => {
      const { app, driver } = await build(t)
      const { status, body } = await post(app, '/computer', c.action)
      t.equal(status, 200, JSON.stringify(body))
      t.strictSame(driver.calls, c.calls as FakeCall[])
      const last = [...driver.calls].reverse().find((call) => call.call === 'moveMouse') as { x: number, y: number } | undefined
      t.strictSame(body, {
        output: c.output,
        error: null,
        base64_image: null,
        cursor_position: last ? [last.x, last.y] : [0, 0],
      })
    })
  }
})

t.test('drag_mouse presses at the first point, moves through every point, releases at the last', async (t) => {
  const { app, driver } = await build(t)
  const { status, body } = await post(app, '/computer', { action: 'drag_mouse', path: [[10, 10], [50, 10], [50, 30]] })
  t.equal(status, 200)
  t.strictSame(driver.calls.slice(0, 2), [move(10, 10), down('left')])
  t.strictSame(driver.calls.at(-1), up('left'))
  // Segments are cut into steps of at most 32 px: the 40 px one in two, the 20 px one in one.
  t.strictSame(driver.calls.filter((c) => c.call === 'moveMouse'), [move(10, 10), move(30, 10), move(50, 10), move(50, 30)])
  t.equal(body.output, 'dragged from (10, 10) to (50, 30) through 3 points')
})

t.test('wait waits', async (t) => {
  const { app } = await build(t)
  const started = performance.now()
  const { status, body } = await post(app, '/computer', { action: 'wait', duration: 0.2 })
  t.equal(status, 200)
  t.ok(performance.now() - started >= 190, 'took the duration')
  t.equal(body.output, 'waited 0.2 s')
})

t.test('press_key duration holds the keys that long', async (t) => {
  const { app, driver } = await build(t)
  const started = performance.now()
  const { status, body } = await post(app, '/computer', { action: 'press_key', keys: ['a'], duration: 0.15 })
  t.equal(status, 200)
  t.ok(performance.now() - started >= 140)
  t.strictSame(driver.calls, [keyDown('a'), keyUp('a')])
  t.equal(body.output, 'held a for 0.15 s')
})
