/**
 * The operator adapter: Operator tool calls in both generations' field names (and string-typed
 * values) → unified actions (translate route, whole bodies, from test/fixtures/operator),
 * outcomes → Operator's ToolResult (execute route over the fake driver, with its in-memory
 * windows for app), and every refusal with its whole body.
 */
import t from 'tap'
import { operatorAdapter } from '../adapters/operator/index.ts'
import type { FakeWindow } from '../drivers/fake/fake-driver.ts'
import { build, post } from './helpers/build.ts'
import { type Refusal, badRequest, adapterCases, pngSize, pressed, refusedOnBothRoutes, leftClickAt } from './helpers/adapter-cases.ts'

const cases = adapterCases<{ actions: unknown[], meta: unknown, query?: string, display?: [number, number] }>('operator')

const invalid = (message: string) => badRequest('ERR_INVALID_PAYLOAD', message)

const NOTHING = { cursor: null, screenshot: null, window: null, error: null }

t.test('translate: recorded tool calls become unified actions', async (t) => {
  // Translating plans too: launch_app needs the name in the allow-list, a window's size the room.
  const { app, driver } = await build(t, { adapters: [operatorAdapter], apps: { xterm: ['xterm'] } })
  for (const c of cases) {
    const { status, body } = await post(app, `/computer/operator/translate${c.query ? `?${c.query}` : ''}`, c.payload)
    t.equal(status, 200, c.name)
    t.strictSame(body, {
      adapter: 'operator',
      version: 'computer',
      actions: c.actions,
      screenshot: false,
      display_width_px: c.display?.[0] ?? 1280,
      display_height_px: c.display?.[1] ?? 800,
      meta: c.meta,
    }, `${c.name} (${c.source})`)
  }
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

t.test('translate: coordinates are the client\'s display; ?screenshot=true asks for one', async (t) => {
  const { app } = await build(t, { adapters: [operatorAdapter] })
  const { body } = await post(app, '/computer/operator/translate?display_width_px=1920&display_height_px=1080&screenshot=true', { action: 'click', loc: [1900, 1000] })
  t.strictSame(body, {
    adapter: 'operator',
    version: 'computer',
    actions: [{ action: 'click_mouse', button: 'left', coordinates: [1900, 1000] }],
    screenshot: true,
    display_width_px: 1920,
    display_height_px: 1080,
    meta: { action: 'click', done: 'Single left clicked at (1900,1000).', window: false },
  })
})

const ACTIONS = '"click", "type", "scroll", "move", "drag", "shortcut", "wait", "open", "close", "app", "desktop"'

const refusals: Refusal[] = [
  {
    name: 'desktop create (virtual desktops)',
    payload: { action: 'desktop', desktop_action: 'create' },
    body: badRequest('ERR_UNSUPPORTED_ACTION', 'operator: desktop (create) is not supported: virtual desktops (create, remove, rename, switch) do not exist on the single X display this server drives'),
  },
  {
    name: 'desktop switch to a named desktop (tool example "Work")',
    payload: { action: 'desktop', desktop_action: 'switch', desktop_name: 'Work' },
    body: badRequest('ERR_UNSUPPORTED_ACTION', "operator: desktop (switch 'Work') is not supported: virtual desktops (create, remove, rename, switch) do not exist on the single X display this server drives"),
  },
  {
    name: 'desktop with no operation',
    payload: { action: 'desktop' },
    body: badRequest('ERR_UNSUPPORTED_ACTION', 'operator: desktop is not supported: virtual desktops (create, remove, rename, switch) do not exist on the single X display this server drives'),
  },
  { name: 'a click needs a point', payload: { action: 'click', button: 'left' }, body: invalid('operator: loc (or x and y) is required for click') },
  { name: 'loc and x, y together', payload: { action: 'click', loc: [1, 2], x: 1, y: 2 }, body: invalid('operator: give loc or x and y, not both') },
  { name: 'x without y', payload: { action: 'move', x: 5 }, body: invalid('operator: x and y go together; y is missing') },
  { name: 'y without x', payload: { action: 'click', y: 5 }, body: invalid('operator: x and y go together; x is missing') },
  { name: 'type needs text', payload: { action: 'type', loc: [1, 2] }, body: invalid('operator: text is required for type') },
  { name: 'type whose text is "null" (None)', payload: { action: 'type', text: 'null' }, body: invalid('operator: text is required for type') },
  { name: 'caret and caret_position disagree', payload: { action: 'type', text: 'a', caret: 'start', caret_position: 'end' }, body: invalid("operator: caret 'start' and caret_position 'end' disagree; give one") },
  { name: 'a shortcut needs its keys', payload: { action: 'shortcut' }, body: invalid('operator: shortcut is required for shortcut') },
  { name: 'a wait needs a duration', payload: { action: 'wait' }, body: invalid('operator: duration is required for wait') },
  { name: 'a move needs a point', payload: { action: 'move', drag: true }, body: invalid('operator: loc (or x and y) is required for move') },
  { name: 'a drag needs its end', payload: { action: 'drag', from_loc: [1, 2] }, body: invalid('operator: to_loc (or loc, or x and y) is required for drag') },
  { name: 'a drag with two ends', payload: { action: 'drag', to_loc: [1, 2], loc: [3, 4] }, body: invalid('operator: give to_loc or loc (or x and y) for the end of a drag, not both') },
  { name: 'a vertical scroll to the left', payload: { action: 'scroll', axis: 'vertical', direction: 'left' }, body: invalid('operator: invalid direction for vertical scroll. Use "up" or "down".') },
  { name: 'a horizontal scroll down', payload: { action: 'scroll', axis: 'horizontal', direction: 'down' }, body: invalid('operator: invalid direction for horizontal scroll. Use "left" or "right".') },
  { name: 'app launch needs a name', payload: { action: 'app', mode: 'launch' }, body: invalid('operator: name is required for app launch') },
  { name: 'app switch needs a name', payload: { action: 'app', mode: 'switch' }, body: invalid('operator: name is required for app switch') },
  { name: 'app resize needs a size', payload: { action: 'app', mode: 'resize', name: 'xterm' }, body: invalid('operator: size [width, height] (or window_size) is required for app resize') },
  { name: 'app move needs a corner', payload: { action: 'app', mode: 'move', name: 'xterm' }, body: invalid('operator: loc [x, y] (or window_loc) is required for app move') },
  { name: 'app resize with both spellings of size', payload: { action: 'app', mode: 'resize', name: 'xterm', size: [1, 2], window_size: [3, 4] }, body: invalid('operator: give size or window_size, not both') },
  {
    name: 'app resize of the frontmost window (no name)',
    payload: { action: 'app', mode: 'resize', size: [800, 600] },
    body: badRequest('ERR_UNSUPPORTED_ACTION', "operator: app resize without name means the frontmost window, which this server cannot select yet; give name (a part of the window's title)"),
  },
  {
    name: 'app move of the frontmost window (no name)',
    payload: { action: 'app', mode: 'move', loc: [0, 0] },
    body: badRequest('ERR_UNSUPPORTED_ACTION', "operator: app move without name means the frontmost window, which this server cannot select yet; give name (a part of the window's title)"),
  },
  { name: 'an unknown action', payload: { action: 'hover', loc: [1, 2] }, body: invalid(`operator: action must be one of ${ACTIONS}, not "hover"`) },
  { name: 'no action', payload: { loc: [1, 2] }, body: invalid("operator: missing required field 'action' (one of: click, type, scroll, move, drag, shortcut, wait, open, close, app, desktop)") },
  {
    name: 'a misspelt field',
    payload: { action: 'click', coordinate: [1, 2] },
    body: invalid("operator: unknown field 'coordinate' for action 'click' (allowed: action, x, y, loc, button, clicks, text, caret, caret_position, clear, press_enter, axis, direction, wheel_times, drag, from_loc, to_loc, shortcut, duration, mode, name, size, window_loc, window_size, desktop_action, desktop_name, new_name)"),
  },
  { name: 'clicks beyond triple', payload: { action: 'click', loc: [1, 2], clicks: 5 }, body: invalid('operator: clicks must be an integer from 0 to 3') },
  { name: 'a point of one number', payload: { action: 'click', loc: [1] }, body: invalid('operator: loc must be a list of exactly 2 integers [x, y]') },
  { name: 'a point string that is not JSON', payload: { action: 'click', loc: '640,360' }, body: invalid('operator: loc must be a list of exactly 2 integers [x, y]') },
  { name: 'a size of zero', payload: { action: 'app', mode: 'resize', name: 'x', size: [0, 10] }, body: invalid('operator: size must be a list of exactly 2 positive integers [width, height]') },
  { name: 'a button the tool does not have', payload: { action: 'click', loc: [1, 2], button: 'back' }, body: invalid('operator: button must be one of "left", "right", "middle", not "back"') },
  { name: 'a count that is not a number', payload: { action: 'scroll', wheel_times: 'many' }, body: invalid('operator: wheel_times must be an integer from 1 to 100') },
]

t.test('refusals before anything runs are the usual error body, on both routes', (t) => refusedOnBothRoutes(t, operatorAdapter, refusals))

t.test('execute: a click answers the tool\'s words, with no screenshot unless asked', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter] })
  const { status, body } = await post(app, '/computer/operator', { action: 'click', x: 640, y: 360, button: 'left' })
  t.equal(status, 200)
  t.strictSame(body, { success: true, output: 'Single left clicked at (640,360).', error: null, metadata: { ...NOTHING, cursor: [640, 360] } })
  t.strictSame(driver.calls, [{ call: 'moveMouse', x: 640, y: 360 }, { call: 'buttonDown', button: 'left' }, { call: 'buttonUp', button: 'left' }])

  const shot = await post(app, '/computer/operator?screenshot=true&display_width_px=640&display_height_px=400', { action: 'click', loc: [320, 200], clicks: 2 })
  t.equal(shot.status, 200)
  t.strictSame({ ...shot.body, metadata: { ...shot.body.metadata, screenshot: pngSize(shot.body.metadata.screenshot) } }, {
    success: true,
    output: 'Double left clicked at (320,200).',
    error: null,
    metadata: { ...NOTHING, cursor: [320, 200], screenshot: { width: 640, height: 400 } },
  })
})

t.test('execute: type at loc clicks, moves the caret to the end, clears, types and presses Enter', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter] })
  const { status, body } = await post(app, '/computer/operator', { action: 'type', loc: [100, 200], text: 'hé', caret_position: 'end', clear: 'true', press_enter: true })
  t.equal(status, 200)
  t.strictSame(body, { success: true, output: 'Typed at (100,200).', error: null, metadata: { ...NOTHING, cursor: [100, 200] } })
  t.strictSame(driver.calls, [
    ...leftClickAt(100, 200),
    ...pressed('ctrl+end', 'ctrl+a', 'backspace'),
    { call: 'typeText', text: 'hé' },
    ...pressed('enter'),
  ])
})

t.test('execute: move with drag holds the left button from where the pointer is', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter] })
  await post(app, '/computer/operator', { action: 'move', loc: [10, 20] })
  driver.calls.length = 0
  const { status, body } = await post(app, '/computer/operator', { action: 'move', loc: [300, 400], drag: true })
  t.equal(status, 200)
  t.strictSame(body, { success: true, output: 'Dragged to (300,400).', error: null, metadata: { ...NOTHING, cursor: [300, 400] } })
  t.strictSame(driver.calls, [{ call: 'buttonDown', button: 'left' }, { call: 'moveMouse', x: 300, y: 400 }, { call: 'buttonUp', button: 'left' }])
})

t.test('execute: scroll turns the wheel by wheel_times notches', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter] })
  const { status, body } = await post(app, '/computer/operator', { action: 'scroll', loc: [640, 360], direction: 'up', wheel_times: 3 })
  t.equal(status, 200)
  t.equal(body.output, 'Scrolled vertical up by 3.')
  t.strictSame(driver.calls, [{ call: 'moveMouse', x: 640, y: 360 }, { call: 'wheel', dx: 0, dy: -3 }])
})

t.test('execute: open asks the desktop where the pointer is; close sends nothing', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter] })
  const open = await post(app, '/computer/operator', { action: 'open' })
  t.equal(open.status, 200)
  t.strictSame(open.body, { success: true, output: 'Desktop access enabled.', error: null, metadata: { ...NOTHING, cursor: [0, 0] } })
  const close = await post(app, '/computer/operator', { action: 'close' })
  t.equal(close.status, 200)
  t.strictSame(close.body, { success: true, output: 'Desktop access released.', error: null, metadata: NOTHING })
  t.strictSame(driver.calls, [])
})

const XTERM: FakeWindow = { id: 0x400001, title: 'xterm', instance: 'xterm', class: 'XTerm', pid: 101, rect: { x: 10, y: 20, width: 484, height: 316 } }
const EDITOR: FakeWindow = { id: 0x600001, title: 'notes.txt - Editor', instance: 'editor', class: 'Editor', pid: null, rect: { x: 600, y: 100, width: 500, height: 400 } }
const APPS = { xterm: ['xterm'] }

t.test('execute: app launches, switches, resizes and moves windows, describing the window', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter], apps: APPS, fake: { windows: [XTERM, EDITOR] } })

  const launched = await post(app, '/computer/operator', { action: 'app', mode: 'launch', name: 'xterm' })
  t.equal(launched.status, 200)
  const newWindow = { id: '0x800001', title: 'xterm', class: 'Xterm', pid: 4000, x: 100, y: 100, width: 640, height: 480, focused: true }
  t.strictSame(launched.body, {
    success: true,
    output: 'Launched xterm: window 0x800001 "xterm" (class Xterm, pid 4000) at (100,100), 640x480, focused.',
    error: null,
    metadata: { ...NOTHING, cursor: [0, 0], window: newWindow },
  })

  const switched = await post(app, '/computer/operator', { action: 'app', mode: 'switch', name: 'editor' })
  t.equal(switched.status, 200)
  t.strictSame(switched.body, {
    success: true,
    output: 'Switched to editor: window 0x600001 "notes.txt - Editor" (class Editor) at (600,100), 500x400, focused.',
    error: null,
    metadata: { ...NOTHING, cursor: [0, 0], window: { id: '0x600001', title: 'notes.txt - Editor', class: 'Editor', pid: null, x: 600, y: 100, width: 500, height: 400, focused: true } },
  })

  const resized = await post(app, '/computer/operator', { action: 'app', mode: 'resize', name: 'notes', size: '[800, 600]' })
  t.equal(resized.status, 200)
  t.equal(resized.body.output, 'Resized notes to 800x600: window 0x600001 "notes.txt - Editor" (class Editor) at (600,100), 800x600, focused.')

  const moved = await post(app, '/computer/operator', { action: 'app', mode: 'move', name: 'notes', window_loc: [0, 0] })
  t.equal(moved.status, 200)
  t.equal(moved.body.output, 'Moved notes to 0,0: window 0x600001 "notes.txt - Editor" (class Editor) at (0,0), 800x600, focused.')

  t.strictSame(driver.calls, [
    { call: 'launch', argv: ['xterm'] },
    { call: 'activateWindow', id: 0x800001 },
    { call: 'activateWindow', id: 0x600001 },
    { call: 'setWindowGeometry', id: 0x600001, geometry: { width: 800, height: 600 } },
    { call: 'setWindowGeometry', id: 0x600001, geometry: { x: 0, y: 0 } },
  ])
})

t.test('execute: app refusals from the window layer come back as the tool\'s error result', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter], apps: APPS, fake: { windows: [XTERM] } })

  const notAllowed = await post(app, '/computer/operator', { action: 'app', name: 'firefox' })
  t.equal(notAllowed.status, 403)
  t.equal(notAllowed.body.metadata.error.code, 'ERR_APP_NOT_ALLOWED')
  t.strictSame(notAllowed.body, {
    success: false, output: null, error: notAllowed.body.metadata.error.message,
    metadata: { ...NOTHING, error: { statusCode: 403, code: 'ERR_APP_NOT_ALLOWED', error: 'Forbidden', message: notAllowed.body.metadata.error.message } },
  })
  t.match(notAllowed.body.error, /firefox/)

  const missing = await post(app, '/computer/operator', { action: 'app', mode: 'switch', name: 'Mozilla Firefox' })
  t.equal(missing.status, 404)
  t.equal(missing.body.success, false)
  t.equal(missing.body.output, null)
  t.equal(missing.body.metadata.error.code, 'ERR_WINDOW_NOT_FOUND')
  t.equal(missing.body.error, missing.body.metadata.error.message)
  t.match(missing.body.error, /0x400001 "xterm"/, 'the message lists the open windows')
  t.strictSame(driver.calls, [], 'nothing was launched or focused')
})

t.test('execute: a driver failure is the tool\'s error result with the error status, and the screen after it', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter] })
  driver.setBeforeCall((call) => { if (call.call === 'typeText') throw new Error('keyboard unplugged') })
  const { status, body } = await post(app, '/computer/operator?screenshot=true', { action: 'type', loc: [5, 5], text: 'hi', press_enter: true })
  t.equal(status, 500)
  t.strictSame({ ...body, metadata: { ...body.metadata, screenshot: pngSize(body.metadata.screenshot) } }, {
    success: false,
    output: null,
    error: 'the driver failed: keyboard unplugged',
    metadata: {
      cursor: [5, 5],
      screenshot: { width: 1280, height: 800 },
      window: null,
      error: { statusCode: 500, code: 'ERR_DRIVER_FAILURE', error: 'Internal Server Error', message: 'the driver failed: keyboard unplugged' },
    },
  })
  t.notOk(driver.calls.some((c) => c.call === 'keyDown' && c.key === 'enter'), 'Enter was never pressed')
})

t.test('execute: an unknown shortcut key and a point off the display are refused natively, before input', async (t) => {
  const { app, driver } = await build(t, { adapters: [operatorAdapter] })
  const key = await post(app, '/computer/operator', { action: 'shortcut', shortcut: 'ctrl+hyperspace' })
  t.equal(key.status, 400)
  t.match(key.body.error, /^unknown key 'hyperspace'/)
  t.strictSame(key.body, { success: false, output: null, error: key.body.error, metadata: { ...NOTHING, error: badRequest('ERR_UNKNOWN_KEY', key.body.error) } })

  const off = await post(app, '/computer/operator', { action: 'click', loc: [1280, 10] })
  const message = 'coordinates (1280, 10) is outside the 1280x800 screen: x must be 0..1279 and y 0..799'
  t.equal(off.status, 400)
  t.strictSame(off.body, { success: false, output: null, error: message, metadata: { ...NOTHING, error: badRequest('ERR_POINT_OUT_OF_BOUNDS', message) } })
  t.strictSame(driver.calls, [])
})
