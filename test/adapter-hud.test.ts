/**
 * The hud adapter: HUD's Common Language Actions → unified actions (translate route, whole
 * bodies, from the recorded payloads in test/fixtures/hud), outcomes → HUD's step result
 * (execute route over the fake driver), and every refusal with its whole body.
 */
import t from 'tap'
import { hudAdapter } from '../adapters/hud/index.ts'
import { build, post } from './helpers/build.ts'
import { type Refusal, badRequest, adapterCases, pngSize, refusedOnBothRoutes, translatesRecorded } from './helpers/adapter-cases.ts'

const cases = adapterCases<{ actions: unknown[], meta?: unknown }>('hud')

/** The body with the screenshot replaced by its PNG size, so whole bodies can be compared. */
function withImageSize (body: { observation: { screenshot: string | null } }) {
  const { screenshot } = body.observation
  return { ...body, observation: { ...body.observation, screenshot: screenshot === null ? null : pngSize(screenshot) } }
}

t.test('translate: recorded CLA payloads become unified actions', (t) => translatesRecorded(t, hudAdapter, 'cla', cases, (c) => c.meta ?? { origins: c.actions.map(() => 0), responses: [] }))

t.test('translate: the display space is the client\'s, and ?screenshot=false is kept', async (t) => {
  const { app } = await build(t, { adapters: [hudAdapter] })
  const { body } = await post(app, '/computer/hud/translate?display_width_px=1024&display_height_px=768&screenshot=false',
    { type: 'click', point: { x: 1000, y: 700 } })
  t.strictSame(body, {
    adapter: 'hud',
    version: 'cla',
    actions: [{ action: 'click_mouse', button: 'left', coordinates: [1000, 700] }],
    screenshot: false,
    display_width_px: 1024,
    display_height_px: 768,
    meta: { origins: [0], responses: [] },
  })
})

const refusals: Refusal[] = [
  {
    name: 'custom action: no handler',
    // seed-001 CustomAction; HUD's own executors refuse it too.
    payload: { type: 'custom', action: 'open_app', args: { name: 'firefox' } },
    body: badRequest('ERR_UNSUPPORTED_ACTION', "custom: no handler is registered for custom action 'open_app'; send CLA input actions instead"),
  },
  {
    name: 'selector on a click',
    payload: { type: 'click', point: null, selector: '#submit', button: 'left', pattern: null, hold_keys: null },
    body: badRequest('ERR_UNSUPPORTED_ACTION', 'click: selector "#submit" cannot be used: a CSS selector names no element of the accessibility tree (its elements have ids such as e14, from get_accessibility_tree, for element_action); send a point instead'),
  },
  {
    name: 'selector on type, inside a list',
    payload: [{ type: 'wait', time: 10 }, { type: 'type', text: 'hi', selector: 'input[name=q]', enter_after: false }],
    body: badRequest('ERR_UNSUPPORTED_ACTION', '[1] type: selector "input[name=q]" cannot be used: a CSS selector names no element of the accessibility tree (its elements have ids such as e14, from get_accessibility_tree, for element_action); send a point instead'),
  },
  {
    name: 'selector on move',
    payload: { type: 'move', point: null, selector: '.menu', offset: null },
    body: badRequest('ERR_UNSUPPORTED_ACTION', 'move: selector ".menu" cannot be used: a CSS selector names no element of the accessibility tree (its elements have ids such as e14, from get_accessibility_tree, for element_action); send a point instead'),
  },
  {
    name: 'an offset without a point',
    payload: { type: 'move', point: null, offset: { x: 10, y: 0 } },
    body: badRequest('ERR_UNSUPPORTED_ACTION', 'move: an offset without a point moves relative to the cursor, which a translation cannot know; send the point to move to (an offset is added to it)'),
  },
  {
    name: 'a move to nowhere',
    payload: { type: 'move', point: null, offset: null },
    body: badRequest('ERR_INVALID_PAYLOAD', 'move: needs a point to move to'),
  },
  {
    name: 'a scroll without an amount',
    payload: { type: 'scroll', point: { x: 1, y: 1 }, scroll: null, hold_keys: null },
    body: badRequest('ERR_INVALID_PAYLOAD', 'scroll: \'scroll\' is required: the wheel notches to turn, as {"x": 0, "y": 3}'),
  },
  {
    name: 'a scroll by nothing',
    // hud/adapters/operator/tests/test_adapter.py test_convert_scroll_action_default_values
    payload: { type: 'scroll', point: { x: 0, y: 0 }, scroll: { x: 0, y: 0 } },
    body: badRequest('ERR_INVALID_PAYLOAD', 'scroll: scroll {"x": 0, "y": 0} turns the wheel by nothing'),
  },
  {
    name: 'an unknown type',
    // hud/adapters/operator/tests/test_adapter.py test_convert_unsupported_action_type
    payload: { type: 'unsupported_action' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'hud: unknown type "unsupported_action" (one of: click, press, keydown, keyup, type, response, scroll, move, wait, drag, custom, screenshot, position)'),
  },
  {
    name: 'no type',
    // hud/adapters/operator/tests/test_adapter.py test_convert_missing_type_field
    payload: { x: 100, y: 200 },
    body: badRequest('ERR_INVALID_PAYLOAD', "hud: missing required field 'type'"),
  },
  {
    name: 'an Operator-style click (x, y) is not CLA',
    // hud/adapters/operator/tests/test_adapter.py test_convert_click_action: the adapter's input, not its output
    payload: { type: 'click', x: 100, y: 200, button: 'left' },
    body: badRequest('ERR_INVALID_PAYLOAD', "hud: unknown field 'x' (allowed: type, point, button, pattern, hold_keys, selector, logs, reasoning)"),
  },
  {
    name: 'a button CLA does not have',
    payload: { type: 'click', point: { x: 1, y: 1 }, button: 'top' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'hud: button must be one of "left", "right", "wheel", "middle", "back", "forward", not "top"'),
  },
  {
    name: 'a point without y, inside a list',
    payload: [{ type: 'click', point: { x: 1 } }],
    body: { ...badRequest('ERR_INVALID_PAYLOAD', "hud: missing required field 'y' in [0].point"), failed_index: 0 },
  },
  {
    name: 'an empty list',
    payload: [],
    body: badRequest('ERR_INVALID_PAYLOAD', 'hud: a list of actions cannot be empty'),
  },
  {
    name: 'a drag of one point',
    payload: { type: 'drag', path: [{ x: 1, y: 1 }] },
    body: badRequest('ERR_INVALID_PAYLOAD', 'hud: path must NOT have fewer than 2 items'),
  },
  {
    name: 'a negative wait',
    payload: { type: 'wait', time: -1 },
    body: badRequest('ERR_INVALID_PAYLOAD', 'hud: time must be >= 0'),
  },
  {
    name: 'press with no keys',
    // hud/adapters/operator/tests/test_adapter.py test_convert_keypress_action_default_keys yields keys == []
    payload: { type: 'press', keys: [] },
    body: badRequest('ERR_INVALID_PAYLOAD', 'hud: keys must NOT have fewer than 1 items'),
  },
]

t.test('refusals before anything runs are the usual error body, on both routes', (t) => refusedOnBothRoutes(t, hudAdapter, refusals))

t.test('execute: a click answers with HUD\'s step result and a screenshot', async (t) => {
  const { app, driver } = await build(t, { adapters: [hudAdapter] })
  const { status, body } = await post(app, '/computer/hud', cases[0]!.payload)
  t.equal(status, 200)
  t.strictSame(withImageSize(body), {
    observation: { screenshot: { width: 1280, height: 800 }, text: null },
    reward: 0,
    terminated: false,
    info: { responses: [], cursor: { x: 150, y: 250 }, failed_index: null, error: null },
  })
  t.strictSame(driver.calls.map((c) => c.call), ['moveMouse', 'buttonDown', 'buttonUp', 'screenshot'])
})

t.test('execute: a list with a position fetch and a response', async (t) => {
  const { app } = await build(t, { adapters: [hudAdapter] })
  const { status, body } = await post(app, '/computer/hud?display_width_px=640&display_height_px=400', [
    { type: 'move', point: { x: 320, y: 200 }, offset: null },
    { type: 'position' },
    { type: 'response', text: 'The file is saved.' },
  ])
  t.equal(status, 200)
  t.strictSame(withImageSize(body), {
    observation: { screenshot: { width: 640, height: 400 }, text: 'cursor at (320, 200)' },
    reward: 0,
    terminated: true,
    info: { responses: ['The file is saved.'], cursor: { x: 320, y: 200 }, failed_index: null, error: null },
  })
})

t.test('execute: ?screenshot=false skips the screenshot, a screenshot fetch still returns one', async (t) => {
  const { app, driver } = await build(t, { adapters: [hudAdapter] })
  const plain = await post(app, '/computer/hud?screenshot=false', { type: 'press', keys: ['ctrl', 'c'] })
  t.strictSame(plain.body, {
    observation: { screenshot: null, text: null },
    reward: 0,
    terminated: false,
    info: { responses: [], cursor: { x: 0, y: 0 }, failed_index: null, error: null },
  })
  t.notOk(driver.calls.some((c) => c.call === 'screenshot'))
  const fetched = await post(app, '/computer/hud?screenshot=false', { type: 'screenshot' })
  t.strictSame(withImageSize(fetched.body).observation, { screenshot: { width: 1280, height: 800 }, text: null })
})

t.test('execute: a response alone runs nothing and ends the task', async (t) => {
  const { app, driver } = await build(t, { adapters: [hudAdapter] })
  const { status, body } = await post(app, '/computer/hud', { type: 'response', text: 'Task completed successfully' })
  t.equal(status, 200)
  t.strictSame(body, {
    observation: { screenshot: null, text: null },
    reward: 0,
    terminated: true,
    info: { responses: ['Task completed successfully'], cursor: null, failed_index: null, error: null },
  })
  t.strictSame(driver.calls, [])
})

t.test('execute: a failure names the CLA action it happened in', async (t) => {
  const { app, driver } = await build(t, { adapters: [hudAdapter] })
  driver.setBeforeCall((call) => { if (call.call === 'keyDown') throw new Error('keyboard unplugged') })
  // The click expands to three unified actions (click, wait, click): the press is unified
  // action 3 but CLA action 1.
  const { status, body } = await post(app, '/computer/hud', [
    { type: 'click', point: { x: 5, y: 5 }, pattern: [401] },
    { type: 'press', keys: ['enter'] },
  ])
  t.equal(status, 500)
  // A failure part-way shows the model the screen as the failure left it.
  t.match(body.observation.screenshot, /^iVBORw0KGgo/, 'a PNG of the screen after the failure')
  t.strictSame(body, {
    observation: { screenshot: body.observation.screenshot, text: 'the driver failed: keyboard unplugged' },
    reward: 0,
    terminated: false,
    info: {
      responses: [],
      cursor: { x: 5, y: 5 },
      failed_index: 1,
      error: { statusCode: 500, code: 'ERR_DRIVER_FAILURE', error: 'Internal Server Error', message: 'the driver failed: keyboard unplugged' },
    },
  })
})

t.test('execute: keys the table does not know and points off the display are refused natively, before input', async (t) => {
  const { app, driver } = await build(t, { adapters: [hudAdapter] })
  const key = await post(app, '/computer/hud', [{ type: 'click', point: { x: 1, y: 1 } }, { type: 'press', keys: ['hyperspace'] }])
  t.equal(key.status, 400)
  t.equal(key.body.info.error.code, 'ERR_UNKNOWN_KEY')
  t.strictSame(key.body, {
    observation: { screenshot: null, text: key.body.info.error.message },
    reward: 0,
    terminated: false,
    info: { responses: [], cursor: null, failed_index: 1, error: key.body.info.error },
  })
  t.match(key.body.info.error.message, /^actions\[1\]: unknown key 'hyperspace'/)
  t.equal(key.body.info.error.failed_index, 1)

  const off = await post(app, '/computer/hud?display_width_px=1024&display_height_px=768', { type: 'move', point: { x: 1000, y: 700 }, offset: { x: 30, y: 0 } })
  t.equal(off.status, 400)
  const message = 'coordinates (1030, 700) is outside the 1024x768 coordinate space declared by display_width_px/display_height_px: x must be 0..1023 and y 0..767'
  t.strictSame(off.body, {
    observation: { screenshot: null, text: message },
    reward: 0,
    terminated: false,
    info: { responses: [], cursor: null, failed_index: null, error: badRequest('ERR_POINT_OUT_OF_BOUNDS', message) },
  })
  t.strictSame(driver.calls, [])
})

t.test('execute: a pattern with a long gap clicks, waits, clicks', async (t) => {
  const { app, driver } = await build(t, { adapters: [hudAdapter] })
  const { status } = await post(app, '/computer/hud?screenshot=false', { type: 'click', point: { x: 10, y: 20 }, button: 'wheel', pattern: [100, 450] })
  t.equal(status, 200)
  const buttons = driver.calls.filter((c) => c.call === 'buttonDown' || c.call === 'buttonUp')
  t.equal(buttons.length, 6, 'three presses and releases')
  t.ok(buttons.every((c) => (c as { button?: string }).button === 'middle'), 'wheel is the middle button')
})

t.test('CLAKey names go through the key table', async (t) => {
  const { app } = await build(t, { adapters: [hudAdapter] })
  // hud/adapters/common/types.py CLAKey, without the characters (covered by the key table's own tests).
  const named = ['backspace', 'tab', 'enter', 'shift', 'shiftleft', 'shiftright', 'ctrl', 'ctrlleft', 'ctrlright', 'alt', 'altleft', 'altright',
    'pause', 'capslock', 'esc', 'escape', 'space', 'pageup', 'pagedown', 'end', 'home', 'left', 'up', 'right', 'down', 'print', 'printscreen',
    'prtsc', 'insert', 'delete', 'numlock', 'scrolllock', 'apps', 'browserback', 'browserforward', 'browserhome', 'browserrefresh',
    'browsersearch', 'playpause', 'stop', 'prevtrack', 'nexttrack', 'volumemute', 'volumeup', 'volumedown', 'win', 'winleft', 'winright',
    'command', 'option', 'optionleft', 'optionright', 'num0', 'num9', 'multiply', 'add', 'subtract', 'decimal', 'divide', 'f1', 'f24',
    'select', 'execute', 'help', 'sleep', 'clear', 'separator', 'browserfavorites', 'browserstop', 'launchapp1', 'launchapp2',
    'launchmail', 'launchmediaselect', 'hanguel', 'hangul', 'hanja', 'kana', 'kanji', 'junja', 'convert', 'nonconvert', 'yen']
  // Named by CLAKey but with no X key to press (src/keys/aliases.ts says why): a 400 each.
  for (const key of ['modechange', 'zoom', 'fn', 'start']) {
    const { status, body } = await post(app, '/computer/hud?screenshot=false', { type: 'press', keys: [key] })
    t.equal(status, 400, key)
    t.match(body, { info: { error: { code: 'ERR_UNKNOWN_KEY' } } }, key)
  }
  for (const key of named) {
    const { status } = await post(app, '/computer/hud?screenshot=false', { type: 'press', keys: [key] })
    t.equal(status, 200, key)
  }
})
