/**
 * Every bad input gets a clear 4xx with Fastify's whole error body, the seed's own validator
 * messages word for word, and nothing reaches the desktop.
 */
import t from 'tap'
import { build, post } from './helpers/build.ts'
import { answeredError, errorBody } from './helpers/error-body.ts'

const KINDS = 'move_mouse, click_mouse, drag_mouse, scroll, press_key, type_text, wait, take_screenshot, get_cursor_position, list_windows, focus_window, launch_app, set_window_geometry, get_accessibility_tree, element_action, get_clipboard, set_clipboard, run_command, bash, edit, request_human'

const invalid: Array<[string, unknown, string, string?]> = [
  // [name, body, message, code (default ERR_INVALID_ACTION)]
  ['coordinates too short', { action: 'move_mouse', coordinates: [1] }, 'coordinates must be a list of exactly 2 integers [x, y]'],
  ['coordinates too long', { action: 'click_mouse', button: 'left', coordinates: [1, 2, 3] }, 'coordinates must be a list of exactly 2 integers [x, y]'],
  ['coordinates not integers', { action: 'move_mouse', coordinates: [1.5, 2] }, 'coordinates must be a list of exactly 2 integers [x, y]'],
  ['coordinates as strings', { action: 'scroll', coordinates: ['1', '2'], delta_y: 1 }, 'coordinates must be a list of exactly 2 integers [x, y]'],
  ['num_clicks with down', { action: 'click_mouse', button: 'left', click_type: 'down', num_clicks: 2 }, "num_clicks should only be set for click_type='click'"],
  ['num_clicks with up', { action: 'click_mouse', button: 'left', click_type: 'up', num_clicks: 3 }, "num_clicks should only be set for click_type='click'"],
  ['path of one point', { action: 'drag_mouse', path: [[1, 2]] }, 'path must contain at least 2 points for a drag'],
  ['path point of one number', { action: 'drag_mouse', path: [[1, 2], [3]] }, 'each point in path must be a list of 2 integers [x, y]'],
  ['scroll without a delta', { action: 'scroll', coordinates: [1, 2] }, 'at least one of delta_x or delta_y must be non-zero'],
  ['scroll with zero deltas', { action: 'scroll', delta_x: 0, delta_y: 0 }, 'at least one of delta_x or delta_y must be non-zero'],
  ['keys empty', { action: 'press_key', keys: [] }, 'keys list cannot be empty'],
  ['text empty', { action: 'type_text', text: '' }, 'text cannot be empty'],
  ['wait zero', { action: 'wait', duration: 0 }, 'duration must be positive'],
  ['wait negative', { action: 'wait', duration: -1 }, 'duration must be positive'],
  ['press_key negative duration', { action: 'press_key', keys: ['a'], duration: -2 }, 'duration must be positive'],
  // Bounds (SPEC §7)
  ['wait over the limit', { action: 'wait', duration: 61 }, 'duration may be at most 60 seconds (--max-wait)'],
  ['hold over the limit', { action: 'press_key', keys: ['a'], duration: 31 }, 'duration may be at most 30 seconds (--max-key-hold)'],
  ['text over the limit', { action: 'type_text', text: 'x'.repeat(100_001) }, 'text may be at most 100000 characters (--max-text)'],
  ['too many clicks', { action: 'click_mouse', button: 'left', num_clicks: 11 }, 'num_clicks must be an integer from 1 to 10 (--max-clicks)'],
  ['too many keys', { action: 'press_key', keys: 'abcdefghijk'.split('') }, 'keys may hold at most 10 keys (--max-combo)'],
  ['path too long', { action: 'drag_mouse', path: Array.from({ length: 1001 }, (_, i) => [i % 100, 1]) }, 'path may have at most 1000 points (--max-path)'],
  // Shape
  ['unknown field', { action: 'move_mouse', coordinates: [1, 2], speed: 3 }, "unknown field 'speed' for action 'move_mouse' (allowed: action, coordinates, hold_keys, screenshot)"],
  ['unknown action', { action: 'teleport' }, `unknown action "teleport" (one of: ${KINDS})`],
  ['no action', { coordinates: [1, 2] }, `missing required field 'action' (one of: ${KINDS})`],
  ['missing coordinates', { action: 'move_mouse' }, "missing required field 'coordinates' for action 'move_mouse'"],
  ['bad button', { action: 'click_mouse', button: 'thumb' }, "button must be one of 'left', 'right', 'middle', 'back', 'forward'"],
  ['bad click_type', { action: 'click_mouse', button: 'left', click_type: 'hold' }, "click_type must be one of 'down', 'up', 'click'"],
  ['bad press_type', { action: 'press_key', keys: ['a'], press_type: 'tap' }, "press_type must be one of 'press', 'down', 'up'"],
  ['duration with press_type down', { action: 'press_key', keys: ['a'], press_type: 'down', duration: 1 }, "duration is only allowed with press_type 'press' (got press_type 'down')"],
  ['hold_keys not a list', { action: 'type_text', text: 'a', hold_keys: 'shift' }, 'hold_keys must be a list of key names'],
  ['screenshot not a boolean', { action: 'wait', duration: 1, screenshot: 'yes' }, 'screenshot must be true or false'],
  ['region of 3 numbers', { action: 'take_screenshot', region: [0, 0, 10] }, 'region must be a list of 4 integers [x0, y0, x1, y1] with x0 < x1 and y0 < y1'],
  ['empty region', { action: 'take_screenshot', region: [10, 10, 10, 20] }, 'region [10, 10, 10, 20] is empty: it needs x0 < x1 and y0 < y1'],
  ['body not an object', [1, 2], 'body must be a JSON object'],
  // Coordinates against the screen (1280x800)
  ['point off screen', { action: 'move_mouse', coordinates: [1280, 10] }, 'coordinates (1280, 10) is outside the 1280x800 screen: x must be 0..1279 and y 0..799', 'ERR_POINT_OUT_OF_BOUNDS'],
  ['negative point', { action: 'click_mouse', button: 'left', coordinates: [-1, 10] }, 'coordinates (-1, 10) is outside the 1280x800 screen: x must be 0..1279 and y 0..799', 'ERR_POINT_OUT_OF_BOUNDS'],
  ['path point off screen', { action: 'drag_mouse', path: [[1, 1], [5, 900]] }, 'path[1] (5, 900) is outside the 1280x800 screen: x must be 0..1279 and y 0..799', 'ERR_POINT_OUT_OF_BOUNDS'],
  ['region off screen', { action: 'take_screenshot', region: [0, 0, 1281, 10] }, 'region [0, 0, 1281, 10] is outside the 1280x800 screen: it must lie within [0, 0, 1280, 800]', 'ERR_POINT_OUT_OF_BOUNDS'],
]

t.test('invalid actions answer 400 with the whole error body and send no input', async (t) => {
  const { app, driver } = await build(t)
  for (const [name, body, message, code = 'ERR_INVALID_ACTION'] of invalid) {
    const response = await post(app, '/computer', body)
    t.strictSame(response.body, { statusCode: 400, code, error: 'Bad Request', message }, name)
  }
  t.strictSame(driver.calls, [], 'nothing reached the driver')
})

t.test('unknown key names answer 400 naming the key and the closest known names', async (t) => {
  const { app, driver } = await build(t)
  const response = await post(app, '/computer', { action: 'press_key', keys: ['ctrl', 'entr'] })
  t.equal(response.status, 400)
  t.equal(response.body.code, 'ERR_UNKNOWN_KEY')
  t.match(response.body.message, /^unknown key 'entr' \(closest known names: .*enter/)
  const held = await post(app, '/computer', { action: 'click_mouse', button: 'left', hold_keys: ['shfit'] })
  t.equal(held.body.code, 'ERR_UNKNOWN_KEY')
  t.match(held.body.message, /^unknown key 'shfit'.*shift/)
  t.strictSame(driver.calls, [], 'nothing reached the driver')
})

t.test('query parameters are validated too', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string, string]> = [
    ['/computer?display_width_px=1024', 'display_width_px and display_height_px go together: give both, or neither for the real screen size'],
    ['/computer?display_width_px=0&display_height_px=10', 'display_width_px must be >= 1'],
    ['/computer?screenshot=maybe', 'screenshot must be boolean'],
    ['/computer?zoom=2', "unknown field 'zoom' (allowed: screenshot, display_width_px, display_height_px, format, quality, settle, settle_quiet_ms, settle_max_ms)"],
  ]
  for (const [url, message] of cases) {
    const response = await post(app, url, { action: 'get_cursor_position' })
    t.strictSame(response.body, { statusCode: 400, code: 'ERR_INVALID_QUERY', error: 'Bad Request', message }, url)
  }
})

t.test('a body over the limit is a 413', async (t) => {
  const { app } = await build(t, { limits: undefined })
  const response = await app.inject({
    method: 'POST',
    url: '/computer',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ action: 'type_text', text: 'x'.repeat(1024 * 1024) }),
  })
  t.strictSame(response.json(), errorBody(413, 'ERR_BODY_TOO_LARGE', 'the request body is larger than the 1048576-byte limit (see --max-body-bytes)'))
})

t.test('malformed JSON is a 400 that says so', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'POST', url: '/computer', headers: { 'content-type': 'application/json' }, payload: '{"action": ' })
  answeredError(t, response, 400, 'FST_ERR_CTP_INVALID_JSON_BODY', "Body is not valid JSON but content-type is set to 'application/json'")
})

t.test('an unknown route is a 404 pointing at the docs', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'POST', url: '/computer/nope/now' })
  t.strictSame(response.json(), errorBody(404, 'ERR_NOT_FOUND', 'no route POST /computer/nope/now; the API is described at /docs and /openapi.json'))
})

t.test('a desktop that is not ready answers 503 with Retry-After', async (t) => {
  const { app, driver } = await build(t)
  driver.setReady(false)
  const response = await post(app, '/computer', { action: 'move_mouse', coordinates: [1, 1] })
  t.equal(response.status, 503)
  t.equal(response.headers['retry-after'], '2')
  t.strictSame(response.body, errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', 'the desktop is not ready (starting or restarting); retry shortly'))
})

t.test('a driver failure is a 500 that names its cause', async (t) => {
  const { app, driver } = await build(t)
  driver.setBeforeCall((call) => { if (call.call === 'typeText') throw new Error('XTest extension missing') })
  const response = await post(app, '/computer', { action: 'type_text', text: 'hi' })
  t.strictSame(response.body, errorBody(500, 'ERR_DRIVER_FAILURE', 'the driver failed: XTest extension missing'))
})
