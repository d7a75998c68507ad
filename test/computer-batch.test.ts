/**
 * POST /computer/batch runs its actions in order as one unit, validates all of them before
 * the first runs, stops at the first failure and says which one failed.
 */
import t from 'tap'
import { build, post } from './helpers/build.ts'

t.test('runs every action in order and answers one result each', async (t) => {
  const { app, driver } = await build(t)
  const { status, body } = await post(app, '/computer/batch', {
    actions: [
      { action: 'move_mouse', coordinates: [10, 20] },
      { action: 'click_mouse', button: 'left' },
      { action: 'type_text', text: 'ok' },
    ],
  })
  t.equal(status, 200)
  t.strictSame(body, {
    results: [
      { output: 'moved to (10, 20)', error: null, base64_image: null, cursor_position: [10, 20] },
      { output: 'clicked left', error: null, base64_image: null, cursor_position: [10, 20] },
      { output: 'typed 2 characters', error: null, base64_image: null, cursor_position: [10, 20] },
    ],
    failed_index: null,
  })
  t.strictSame(driver.calls.map((c) => c.call), ['moveMouse', 'buttonDown', 'buttonUp', 'typeText'])
})

t.test('an invalid action anywhere refuses the whole batch before any input', async (t) => {
  const { app, driver } = await build(t)
  const schema = await post(app, '/computer/batch', {
    actions: [{ action: 'move_mouse', coordinates: [1, 1] }, { action: 'wait', duration: 0 }],
  })
  t.strictSame(schema.body, { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'actions[1]: duration must be positive', failed_index: 1 })
  const key = await post(app, '/computer/batch', {
    actions: [{ action: 'move_mouse', coordinates: [1, 1] }, { action: 'press_key', keys: ['ctrl', 'nokey'] }],
  })
  t.equal(key.status, 400)
  t.equal(key.body.code, 'ERR_UNKNOWN_KEY')
  t.equal(key.body.failed_index, 1)
  t.match(key.body.message, /^actions\[1\]: unknown key 'nokey'/)
  t.strictSame(driver.calls, [], 'nothing ran')
})

t.test('stops at the first failure, reports failed_index and the results before it', async (t) => {
  const { app, driver } = await build(t)
  driver.setBeforeCall((call) => { if (call.call === 'typeText') throw new Error('X connection broke') })
  const { status, body } = await post(app, '/computer/batch', {
    actions: [
      { action: 'move_mouse', coordinates: [5, 5] },
      { action: 'type_text', text: 'boom', hold_keys: ['shift'] },
      { action: 'click_mouse', button: 'left' },
    ],
  })
  t.equal(status, 500)
  t.strictSame(body, {
    statusCode: 500,
    code: 'ERR_DRIVER_FAILURE',
    error: 'Internal Server Error',
    message: 'actions[1] (type_text): the driver failed: X connection broke',
    results: [{ output: 'moved to (5, 5)', error: null, base64_image: null, cursor_position: [5, 5] }],
    failed_index: 1,
  })
  t.notOk(driver.calls.some((c) => c.call === 'buttonDown'), 'the action after the failure did not run')
  t.strictSame(driver.calls.filter((c) => c.call === 'keyDown' || c.call === 'keyUp'), [
    { call: 'keyDown', key: 'shift' }, { call: 'keyUp', key: 'shift' },
  ], 'the held shift was released')
})

t.test('screenshot=true attaches one screenshot, after the last action', async (t) => {
  const { app } = await build(t)
  const { body } = await post(app, '/computer/batch?screenshot=true', {
    actions: [{ action: 'move_mouse', coordinates: [1, 1] }, { action: 'move_mouse', coordinates: [2, 2] }],
  })
  t.equal(body.results[0].base64_image, null)
  t.type(body.results[1].base64_image, 'string')
})

t.test('batch bounds', async (t) => {
  const { app } = await build(t)
  const empty = await post(app, '/computer/batch', { actions: [] })
  t.strictSame(empty.body, { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'actions cannot be empty' })
  const many = await post(app, '/computer/batch', { actions: Array.from({ length: 101 }, () => ({ action: 'get_cursor_position' })) })
  t.strictSame(many.body, { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: 'a batch may have at most 100 actions (--max-batch)' })
  const stray = await post(app, '/computer/batch', { actions: [{ action: 'get_cursor_position' }], stop_on_error: false })
  t.strictSame(stray.body, { statusCode: 400, code: 'ERR_INVALID_ACTION', error: 'Bad Request', message: "unknown field 'stop_on_error' (allowed: actions)" })
})

t.test('limits are configurable', async (t) => {
  const { app } = await build(t, {
    limits: {
      maxWaitSeconds: 1, maxKeyHoldSeconds: 1, maxTextLength: 3, maxPathPoints: 3, maxClicks: 2, maxComboKeys: 2, maxBatchActions: 2, maxBodyBytes: 4096, maxScrollNotches: 5, maxDisplaySide: 2000, maxBatchSeconds: 1.5,
    },
  })
  const cases: Array<[unknown, string]> = [
    [{ action: 'wait', duration: 2 }, 'duration may be at most 1 seconds (--max-wait)'],
    [{ action: 'type_text', text: 'abcd' }, 'text may be at most 3 characters (--max-text)'],
    [{ action: 'click_mouse', button: 'left', num_clicks: 3 }, 'num_clicks must be an integer from 1 to 2 (--max-clicks)'],
    [{ action: 'press_key', keys: ['a', 'b', 'c'] }, 'keys may hold at most 2 keys (--max-combo)'],
    [{ action: 'scroll', delta_x: -6 }, 'scroll delta_x -6 is over the limit of 5 notches (--max-scroll-notches)'],
  ]
  for (const [action, message] of cases) {
    const { body } = await post(app, '/computer', action)
    t.equal(body.message, message)
  }
  const batch = await post(app, '/computer/batch', { actions: [{ action: 'get_cursor_position' }, { action: 'get_cursor_position' }, { action: 'get_cursor_position' }] })
  t.equal(batch.body.message, 'a batch may have at most 2 actions (--max-batch)')
  const display = await post(app, '/computer?display_width_px=2001&display_height_px=800', { action: 'get_cursor_position' })
  t.equal(display.body.message, 'display_width_px 2001 is over the limit of 2000 pixels (--max-display-size)')
  const long = await post(app, '/computer/batch', { actions: [{ action: 'wait', duration: 1 }, { action: 'press_key', keys: ['a'], duration: 1 }] })
  t.equal(long.body.message, "actions[1]: the batch's waits and key holds come to 2 seconds by here, over the limit of 1.5 seconds (--max-batch-seconds)")
})

t.test('concurrent requests never interleave: each runs whole, in arrival order', async (t) => {
  const { app, driver } = await build(t)
  const slow = post(app, '/computer', { action: 'press_key', keys: ['shift'], duration: 0.2 })
  await new Promise((resolve) => setTimeout(resolve, 20))
  const fast = post(app, '/computer', { action: 'move_mouse', coordinates: [3, 3] })
  const batch = post(app, '/computer/batch', { actions: [{ action: 'type_text', text: 'a' }, { action: 'type_text', text: 'b' }] })
  await Promise.all([slow, fast, batch])
  t.strictSame(driver.calls, [
    { call: 'keyDown', key: 'shift' },
    { call: 'keyUp', key: 'shift' },
    { call: 'moveMouse', x: 3, y: 3 },
    { call: 'typeText', text: 'a' },
    { call: 'typeText', text: 'b' },
  ])
})
