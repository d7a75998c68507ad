/**
 * The conatus adapter: CUActions, bare or inside an AIToolCall, → unified actions (translate
 * route, whole bodies, from test/fixtures/conatus), outcomes → the tool result (execute route
 * over the fake driver), and every refusal with its whole body.
 */
import t from 'tap'
import { conatusAdapter } from '../adapters/conatus/index.ts'
import { build, post } from './helpers/build.ts'
import { type Refusal, badRequest, adapterCases, pngSize, pressed, refusedOnBothRoutes, translatesRecorded } from './helpers/adapter-cases.ts'

const cases = adapterCases<{ payload: { type?: string }, actions: unknown[], meta?: unknown }>('conatus')

/** The body with the screenshot replaced by its PNG size, so whole bodies can be compared. */
const withImageSize = (body: { screenshot: string | null }) =>
  ({ ...body, screenshot: body.screenshot === null ? null : pngSize(body.screenshot) })

const ACTION_LIST = 'left_mouse_down, left_mouse_up, left_mouse_click, left_mouse_double_click, left_mouse_triple_click, middle_click, right_click, back_click, forward_click, drag, keypress, keypress_hold, move, screenshot, scroll, type, wait'

t.test('translate: recorded CUActions and tool calls become unified actions', (t) => translatesRecorded(t, conatusAdapter, 'cu_action', cases, (c) => c.meta ?? { call_id: null, name: c.payload.type }))

t.test('translate: the display space is the client\'s; a bare action\'s call_id is echoed', async (t) => {
  const { app } = await build(t, { adapters: [conatusAdapter] })
  const { body } = await post(app, '/computer/conatus/translate?display_width_px=1440&display_height_px=900&screenshot=false',
    { xy: [1400, 880], type: 'move', call_id: 'call_9' })
  t.strictSame(body, {
    adapter: 'conatus',
    version: 'cu_action',
    actions: [{ action: 'move_mouse', coordinates: [1400, 880] }],
    screenshot: false,
    display_width_px: 1440,
    display_height_px: 900,
    meta: { call_id: 'call_9', name: 'move' },
  })
})

const refusals: Refusal[] = [
  {
    name: 'stringified arguments that are not JSON are quoted',
    payload: { name: 'computer', returned_arguments: '{"type": "left_mouse_click", "xy": [1, 2', call_id: 'call_1' },
    body: badRequest('ERR_UNPARSEABLE_OUTPUT', 'conatus: returned_arguments is not JSON (Expected \',\' or \']\' after array element in JSON at position 40): \'{"type": "left_mouse_click", "xy": [1, 2\''),
  },
  {
    name: 'stringified arguments that are not an object',
    payload: { name: 'computer', returned_arguments: '[1, 2]' },
    body: badRequest('ERR_UNPARSEABLE_OUTPUT', "conatus: returned_arguments must be a JSON object, not '[1, 2]'"),
  },
  {
    name: 'arguments neither dict nor string',
    payload: { name: 'computer', returned_arguments: 5 },
    body: badRequest('ERR_INVALID_PAYLOAD', 'conatus: returned_arguments must be a dict or a stringified JSON'),
  },
  {
    name: 'arguments with no type, under a tool name that is not an action',
    payload: { name: 'computer', returned_arguments: { xy: [1, 2] } },
    body: badRequest('ERR_INVALID_PAYLOAD', `conatus: returned_arguments has no 'type' and the tool name 'computer' is not an action (one of: ${ACTION_LIST})`),
  },
  {
    name: 'arguments naming an unknown type',
    payload: { name: 'computer', returned_arguments: '{"type": "hover", "xy": [1, 2]}' },
    body: badRequest('ERR_INVALID_PAYLOAD', `conatus: returned_arguments: unknown type "hover" (one of: ${ACTION_LIST})`),
  },
  {
    name: 'arguments with a bad field',
    payload: { name: 'computer', returned_arguments: { type: 'move', xy: [1] } },
    body: badRequest('ERR_INVALID_PAYLOAD', 'conatus: returned_arguments: xy must be a list of exactly 2 integers [x, y]'),
  },
  {
    name: 'arguments with an unknown field',
    payload: { name: 'computer', returned_arguments: { type: 'move', xy: [1, 2], speed: 3 } },
    body: badRequest('ERR_INVALID_PAYLOAD', "conatus: returned_arguments: unknown field 'speed' (allowed: type, xy, call_id)"),
  },
  {
    name: 'a tool call with an unknown field',
    payload: { name: 'computer', returned_arguments: {}, id: 'x' },
    body: badRequest('ERR_INVALID_PAYLOAD', "conatus: unknown field 'id' (allowed: name, returned_arguments, call_id, type, requires_local_execution, could_be_structured_output)"),
  },
  {
    name: 'an unknown action',
    payload: { type: 'swipe' },
    body: badRequest('ERR_INVALID_PAYLOAD', `conatus: unknown type "swipe" (one of: ${ACTION_LIST})`),
  },
  {
    name: 'no type',
    payload: { xy: [1, 2] },
    body: badRequest('ERR_INVALID_PAYLOAD', "conatus: missing required field 'type'"),
  },
  {
    name: 'a point of one number',
    payload: { xy: [1], type: 'left_mouse_click' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'conatus: xy must be a list of exactly 2 integers [x, y], or null for the cursor'),
  },
  {
    name: 'a move needs xy',
    payload: { type: 'move' },
    body: badRequest('ERR_INVALID_PAYLOAD', "conatus: missing required field 'xy'"),
  },
  {
    name: 'a drag of no points',
    payload: { xy: [], type: 'drag' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'conatus: xy must NOT have fewer than 1 items'),
  },
  {
    name: 'a scroll with neither distance nor magnitude',
    payload: { start_xy: [1, 1], distance_xy: null, magnitude: null, direction: null, type: 'scroll' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'scroll: needs distance_xy (pixels), or magnitude (notches) with direction'),
  },
  {
    name: 'a scroll with a magnitude but no direction',
    payload: { start_xy: null, distance_xy: null, magnitude: 3, direction: null, type: 'scroll' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'scroll: needs distance_xy (pixels), or magnitude (notches) with direction'),
  },
  {
    name: 'a scroll by a negative magnitude',
    payload: { start_xy: null, distance_xy: null, magnitude: -2, direction: 'down', type: 'scroll' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'scroll: magnitude must be positive, not -2; direction gives the sign'),
  },
  {
    name: 'a scroll by no distance',
    payload: { start_xy: null, distance_xy: [0, 0], magnitude: null, direction: null, type: 'scroll' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'scroll: distance_xy [0, 0] scrolls nothing'),
  },
  {
    name: 'a scroll direction Conatus does not have',
    payload: { start_xy: null, distance_xy: null, magnitude: 1, direction: 'sideways', type: 'scroll' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'conatus: direction must be one of "up", "down", "left", "right", not "sideways"'),
  },
  {
    name: 'a key hold of no time',
    payload: { keys: ['a'], duration: 0, type: 'keypress_hold' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'conatus: duration must be > 0'),
  },
  {
    name: 'empty text',
    payload: { text: '', type: 'type' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'conatus: text must NOT have fewer than 1 characters'),
  },
  {
    name: 'a negative wait',
    payload: { duration: -1, type: 'wait' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'conatus: duration must be >= 0'),
  },
]

t.test('refusals before anything runs are the usual error body, on both routes', (t) => refusedOnBothRoutes(t, conatusAdapter, refusals))

/** A successful CUActionResult, its screenshot as its size. */
const succeeded = (call_id: string | null, name: string, content: unknown, screenshot: { width: number, height: number }, cursor_xy: [number, number]) =>
  ({ call_id, name, success: true, content, screenshot, cursor_xy, error: null })

t.test('execute: a click answers with the tool result and a screenshot', async (t) => {
  const { app, driver } = await build(t, { adapters: [conatusAdapter] })
  const { status, body } = await post(app, '/computer/conatus', { xy: [512, 384], type: 'left_mouse_click' })
  t.equal(status, 200)
  t.strictSame(withImageSize(body), succeeded(null, 'left_mouse_click', body.content, { width: 1280, height: 800 }, [512, 384]))
  t.match(body.content, /^clicked left at \(512, 384\)/)
  t.strictSame(driver.calls.map((c) => c.call), ['moveMouse', 'buttonDown', 'buttonUp', 'screenshot'])
})

t.test('execute: a tool call with stringified arguments echoes its call_id; screenshots follow the display', async (t) => {
  const { app } = await build(t, { adapters: [conatusAdapter] })
  const { status, body } = await post(app, '/computer/conatus?display_width_px=640&display_height_px=400', {
    name: 'computer',
    returned_arguments: '{"xy": [320, 200], "type": "move"}',
    call_id: 'call_abc123',
    type: 'function',
  })
  t.equal(status, 200)
  t.strictSame(withImageSize(body), succeeded('call_abc123', 'move', body.content, { width: 640, height: 400 }, [320, 200]))
})

t.test('execute: a one-point drag goes from the cursor', async (t) => {
  const { app, driver } = await build(t, { adapters: [conatusAdapter] })
  await post(app, '/computer/conatus?screenshot=false', { xy: [100, 100], type: 'move' })
  driver.calls.length = 0
  const { status, body } = await post(app, '/computer/conatus?screenshot=false', { xy: [[300, 400]], type: 'drag' })
  t.equal(status, 200)
  t.strictSame(driver.calls, [
    { call: 'buttonDown', button: 'left' },
    { call: 'moveMouse', x: 300, y: 400 },
    { call: 'buttonUp', button: 'left' },
  ])
  t.equal(body.screenshot, null, '?screenshot=false')
  t.strictSame(body.cursor_xy, [300, 400])
})

t.test('execute: keypress elements are pressed one after the other, a combo together', async (t) => {
  const { app, driver } = await build(t, { adapters: [conatusAdapter] })
  const { status, body } = await post(app, '/computer/conatus?screenshot=false', { keys: ['ctrl+a', 'BackSpace'], type: 'keypress' })
  t.equal(status, 200)
  t.strictSame(driver.calls, pressed('ctrl+a', 'backspace'))
  t.equal(body.content.split('\n').length, 2, 'one line per key press')
})

t.test('execute: a pixel distance turns the wheel in notches', async (t) => {
  const { app, driver } = await build(t, { adapters: [conatusAdapter] })
  const { status } = await post(app, '/computer/conatus?screenshot=false',
    { start_xy: [640, 400], distance_xy: [0, 360], magnitude: null, direction: null, type: 'scroll' })
  t.equal(status, 200)
  t.strictSame(driver.calls, [{ call: 'moveMouse', x: 640, y: 400 }, { call: 'wheel', dx: 0, dy: 3 }])
})

t.test('execute: a wait of 0 runs nothing and says so', async (t) => {
  const { app, driver } = await build(t, { adapters: [conatusAdapter] })
  const { status, body } = await post(app, '/computer/conatus', { duration: 0, type: 'wait' })
  t.equal(status, 200)
  t.strictSame(body, { call_id: null, name: 'wait', success: true, content: 'nothing to do', screenshot: null, cursor_xy: null, error: null })
  t.strictSame(driver.calls, [])
})

t.test('execute: a driver failure is the tool result with the error status', async (t) => {
  const { app, driver } = await build(t, { adapters: [conatusAdapter] })
  driver.setBeforeCall((call) => { if (call.call === 'buttonUp') throw new Error('mouse unplugged') })
  const { status, body } = await post(app, '/computer/conatus', {
    name: 'computer', returned_arguments: { xy: [5, 5], type: 'left_mouse_double_click' }, call_id: 'toolu_01',
  })
  t.equal(status, 500)
  t.strictSame(withImageSize(body), {
    call_id: 'toolu_01',
    name: 'left_mouse_double_click',
    success: false,
    content: 'the driver failed: mouse unplugged',
    screenshot: { width: 1280, height: 800 }, // the screen after the failure
    cursor_xy: null,
    error: { statusCode: 500, code: 'ERR_DRIVER_FAILURE', error: 'Internal Server Error', message: 'the driver failed: mouse unplugged' },
  })
})

t.test('execute: unknown keys and points off the display are refused natively, before input', async (t) => {
  const { app, driver } = await build(t, { adapters: [conatusAdapter] })
  const key = await post(app, '/computer/conatus', { name: 'computer', returned_arguments: '{"keys": ["hyperspace"], "type": "keypress"}', call_id: 'c7' })
  t.equal(key.status, 400)
  t.match(key.body.content, /^unknown key 'hyperspace'/)
  t.strictSame(key.body, {
    call_id: 'c7',
    name: 'keypress',
    success: false,
    content: key.body.content,
    screenshot: null,
    cursor_xy: null,
    error: badRequest('ERR_UNKNOWN_KEY', key.body.content),
  })

  const off = await post(app, '/computer/conatus', { xy: [1280, 10], type: 'right_click' })
  const message = 'coordinates (1280, 10) is outside the 1280x800 screen: x must be 0..1279 and y 0..799'
  t.equal(off.status, 400)
  t.strictSame(off.body, {
    call_id: null,
    name: 'right_click',
    success: false,
    content: message,
    screenshot: null,
    cursor_xy: null,
    error: badRequest('ERR_POINT_OUT_OF_BOUNDS', message),
  })
  t.strictSame(driver.calls, [])
})
