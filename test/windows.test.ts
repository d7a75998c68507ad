/**
 * The window actions above the driver, over the in-memory window manager: selection rules,
 * scaling of geometry, the allow-list (refused while planning, before any input), launch
 * waiting, every refusal with its whole error body, and the allow-list's configuration.
 */
import t from 'tap'
import { allowedApps, loadConfig, splitWords, usage } from '../src/runtime/config.ts'
import type { FakeWindow } from '../drivers/fake/fake-driver.ts'
import { build, post } from './helpers/build.ts'
import { errorBody } from './helpers/error-body.ts'

const ALPHA: FakeWindow = { id: 0x400001, title: 'Alpha — Editor', instance: 'alphaterm', class: 'XTerm', pid: 101, rect: { x: 10, y: 20, width: 400, height: 300 } }
const BETA: FakeWindow = { id: 0x400002, title: 'beta', instance: 'betaterm', class: 'XTerm', pid: 102, rect: { x: 600, y: 100, width: 500, height: 400 } }
const CLOCK: FakeWindow = { id: 0x600001, title: 'clock', instance: 'xclock', class: 'XClock', pid: null, rect: { x: 1000, y: 600, width: 164, height: 164 } }
// Bottom first: CLOCK is the top (and active) one.
const WINDOWS = [ALPHA, BETA, CLOCK]

const info = (window: FakeWindow, focused: boolean) => ({
  id: `0x${window.id.toString(16)}`, title: window.title, class: window.class, pid: window.pid, ...window.rect, focused,
})
const APPS = { term: ['xterm', '-T', 'my term'], slow: ['slowapp'], broken: ['brokenapp'], launcher: ['launcher'] }
const OPEN = 'open windows: 0x600001 "clock" (XClock), 0x400002 "beta" (XTerm), 0x400001 "Alpha — Editor" (XTerm)'

t.test('list_windows answers every window, topmost first, in the seed\'s response shape', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS } })
  const response = await post(app, '/computer', { action: 'list_windows' })
  t.equal(response.status, 200)
  t.strictSame(response.body, {
    output: '3 windows', error: null, base64_image: null, cursor_position: [0, 0],
    windows: [info(CLOCK, true), info(BETA, false), info(ALPHA, false)],
  })
  t.strictSame(driver.calls, [], 'no input')

  const shot = await post(app, '/computer?screenshot=true', { action: 'list_windows' })
  t.match(shot.body.base64_image, /^iVBORw0KGgo/, 'screenshot=true attaches a PNG like every action')
  const flag = await post(app, '/computer', { action: 'list_windows', screenshot: true })
  t.match(flag.body.base64_image, /^iVBORw0KGgo/)

  const other = await post(app, '/computer', { action: 'get_cursor_position' })
  t.notOk('windows' in other.body || 'window' in other.body, 'other actions have neither field')
})

t.test('geometry is in the request\'s coordinate space, both ways', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS } })
  const half = '/computer?display_width_px=640&display_height_px=400'
  const listed = await post(app, half, { action: 'list_windows' })
  t.strictSame(listed.body.windows.at(-1), { ...info(ALPHA, false), x: 5, y: 10, width: 200, height: 150 })

  const placed = await post(app, half, { action: 'set_window_geometry', window: { title: 'beta' }, x: 100, y: 50, width: 320, height: 200 })
  t.equal(placed.status, 200)
  t.strictSame(driver.calls, [{ call: 'setWindowGeometry', id: BETA.id, geometry: { x: 201, y: 101, width: 640, height: 400 } }], 'real pixels reach the driver')
  t.strictSame(placed.body.window, { ...info(BETA, false), x: 100, y: 50, width: 320, height: 200 }, 'answered in the client\'s space')
  t.equal(placed.body.output, 'placed window 0x400002 "beta" at (100, 50) 320x200')
})

t.test('set_window_geometry changes only the fields it is given', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS } })
  const moved = await post(app, '/computer', { action: 'set_window_geometry', window: { id: '0x400001' }, x: 0 })
  t.strictSame(moved.body.window, { ...info(ALPHA, false), x: 0 })
  const resized = await post(app, '/computer', { action: 'set_window_geometry', window: { id: '0x400001' }, height: 800 })
  t.strictSame(resized.body.window, { ...info(ALPHA, false), x: 0, height: 800 })
  t.strictSame(driver.calls, [
    { call: 'setWindowGeometry', id: ALPHA.id, geometry: { x: 0 } },
    { call: 'setWindowGeometry', id: ALPHA.id, geometry: { height: 800 } },
  ])
})

t.test('selectors: title is a case-insensitive substring, class equals instance or class, id is the hex id, all fields must match, the topmost match wins', async (t) => {
  const cases: Array<[string, object, FakeWindow]> = [
    ['title substring, any case', { title: 'EDITOR' }, ALPHA],
    ['title with non-ASCII', { title: 'alpha — ed' }, ALPHA],
    ['class name, any case', { class: 'xclock' }, CLOCK],
    ['instance name', { class: 'BetaTerm' }, BETA],
    ['several windows of a class: the topmost', { class: 'XTerm' }, BETA],
    ['title and class together', { title: 'a', class: 'xterm' }, BETA],
    ['id', { id: '0x400001' }, ALPHA],
    ['id with zeros and capitals', { id: '0x00400001'.toUpperCase().replace('0X', '0x') }, ALPHA],
    ['id and class', { id: '0x600001', class: 'XClock' }, CLOCK],
  ]
  const { app, driver } = await build(t, { fake: { windows: WINDOWS } })
  for (const [name, window, expected] of cases) {
    // Each case starts from the same desktop.
    driver.windows!.stack.splice(0, Infinity, ...WINDOWS.map((w) => ({ ...w, rect: { ...w.rect } })))
    driver.windows!.active = CLOCK.id
    driver.calls.length = 0
    const response = await post(app, '/computer', { action: 'focus_window', window })
    t.equal(response.status, 200, name)
    t.strictSame(response.body.window, info(expected, true), name)
    t.strictSame(driver.calls, [{ call: 'activateWindow', id: expected.id }], name)
    const listed = await post(app, '/computer', { action: 'list_windows' })
    t.equal(listed.body.windows[0].id, info(expected, true).id, `${name}: now on top`)
  }
})

t.test('focus_window, then typing, run in order as one batch', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS } })
  const response = await post(app, '/computer/batch', { actions: [{ action: 'focus_window', window: { title: 'alpha' } }, { action: 'type_text', text: 'hi' }] })
  t.equal(response.status, 200)
  t.equal(response.body.results[0].output, 'focused window 0x400001 "Alpha — Editor" at (10, 20) 400x300')
  t.strictSame(driver.calls, [{ call: 'activateWindow', id: ALPHA.id }, { call: 'typeText', text: 'hi' }])
})

t.test('no matching window is a 404 naming the selector and the open windows', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS } })
  const cases: Array<[object, string]> = [
    [{ title: 'gamma' }, `no window matches title containing "gamma"; ${OPEN}`],
    [{ class: 'xterm', title: 'clock' }, `no window matches title containing "clock" and class "xterm"; ${OPEN}`],
    [{ class: 'term' }, `no window matches class "term"; ${OPEN}`],
    [{ id: '0x1' }, `no window matches id 0x1; ${OPEN}`],
  ]
  for (const [window, message] of cases) {
    const focus = await post(app, '/computer', { action: 'focus_window', window })
    t.strictSame(focus.body, { statusCode: 404, code: 'ERR_WINDOW_NOT_FOUND', error: 'Not Found', message })
    const place = await post(app, '/computer', { action: 'set_window_geometry', window, x: 1 })
    t.strictSame(place.body, { statusCode: 404, code: 'ERR_WINDOW_NOT_FOUND', error: 'Not Found', message })
  }
  t.strictSame(driver.calls, [])

  const { app: empty } = await build(t, { fake: { windows: [] } })
  t.strictSame((await post(empty, '/computer', { action: 'focus_window', window: { title: 'x' } })).body,
    { statusCode: 404, code: 'ERR_WINDOW_NOT_FOUND', error: 'Not Found', message: 'no window matches title containing "x"; no window is open' })
  t.strictSame((await post(empty, '/computer', { action: 'list_windows' })).body.windows, [])
})

t.test('a batch stops at a missing window, and releases what it held', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS } })
  const response = await post(app, '/computer/batch', { actions: [
    { action: 'press_key', keys: ['shift'], press_type: 'down' },
    { action: 'focus_window', window: { title: 'nowhere' } },
  ] })
  t.equal(response.status, 404)
  t.equal(response.body.failed_index, 1)
  t.equal(response.body.message, `actions[1] (focus_window): no window matches title containing "nowhere"; ${OPEN}`)
  t.strictSame(driver.calls, [{ call: 'keyDown', key: 'shift' }, { call: 'keyUp', key: 'shift' }], 'shift released, nothing else sent')
})

t.test('launch_app starts the allow-listed argv, waits for its window and focuses it', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS, onLaunch: () => ({ delayMs: 120, window: { rect: { x: 50, y: 60, width: 484, height: 316 } } }) }, apps: APPS })
  const response = await post(app, '/computer?display_width_px=640&display_height_px=400', { action: 'launch_app', app: 'term' })
  t.equal(response.status, 200)
  t.strictSame(response.body.window, { id: '0x800001', title: 'xterm -T my term', class: 'Xterm', pid: 4000, x: 25, y: 30, width: 242, height: 158, focused: true })
  t.equal(response.body.output, 'launched term: window 0x800001 "xterm -T my term" at (25, 30) 242x158')
  t.strictSame(driver.calls, [{ call: 'launch', argv: ['xterm', '-T', 'my term'] }, { call: 'activateWindow', id: 0x800001 }])
})

t.test('launch_app takes only the launched process\'s window, or one without a pid', async (t) => {
  let other: FakeWindow | undefined
  const { app, driver } = await build(t, {
    fake: { windows: WINDOWS, onLaunch: () => ({ delayMs: 150, window: { pid: null, title: 'no pid' } }) },
    apps: APPS,
  })
  // Another application's window appearing meanwhile is not the launched one's.
  other = { ...BETA, id: 0x900001, pid: 999, title: 'stranger' }
  setTimeout(() => driver.windows!.stack.push(other!), 40)
  const response = await post(app, '/computer', { action: 'launch_app', app: 'term' })
  t.equal(response.status, 200)
  t.equal(response.body.window.title, 'no pid')
  t.equal(response.body.window.pid, null)
})

t.test('a launcher that exits with 0 hands over: a new window of another process is the app\'s', async (t) => {
  const { app } = await build(t, { fake: { windows: WINDOWS, onLaunch: () => ({ exitCode: 0, delayMs: 50, window: { pid: 5555 } }) }, apps: APPS })
  const response = await post(app, '/computer', { action: 'launch_app', app: 'launcher' })
  t.equal(response.status, 200)
  t.match(response.body.window, { pid: 5555, focused: true })
})

t.test('launch_app failures: no window in time (504), exited first or not startable (500)', async (t) => {
  const { app, driver } = await build(t, {
    fake: {
      windows: WINDOWS,
      onLaunch: (argv) => argv[0] === 'slowapp' ? { noWindow: true } : argv[0] === 'brokenapp' ? { exitCode: 3, delayMs: 30 } : {},
    },
    apps: APPS,
    launchTimeoutMs: 300,
  })
  const started = performance.now()
  const slow = await post(app, '/computer', { action: 'launch_app', app: 'slow' })
  t.strictSame(slow.body, { statusCode: 504, code: 'ERR_APP_LAUNCH_TIMEOUT', error: 'Gateway Timeout', message: "app 'slow' (pid 4000) opened no window within 0.3 s; it keeps running until the server stops" })
  t.ok(performance.now() - started >= 300, 'waited the whole bound')
  const broken = await post(app, '/computer', { action: 'launch_app', app: 'broken' })
  t.strictSame(broken.body, { statusCode: 500, code: 'ERR_APP_LAUNCH_FAILED', error: 'Internal Server Error', message: "app 'broken' (pid 4001) exited with code 3 before opening a window" })
  t.strictSame(driver.calls.map((c) => c.call), ['launch', 'launch'], 'nothing activated')

  driver.setBeforeCall((call) => { if (call.call === 'launch') throw new Error('spawn xterm ENOENT') })
  const missing = await post(app, '/computer', { action: 'launch_app', app: 'term' })
  t.strictSame(missing.body, { statusCode: 500, code: 'ERR_APP_LAUNCH_FAILED', error: 'Internal Server Error', message: "app 'term' could not be started (xterm): spawn xterm ENOENT" })
})

t.test('an app outside the allow-list is refused while planning: 403, before any input', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS }, apps: APPS })
  const single = await post(app, '/computer', { action: 'launch_app', app: 'bash' })
  t.strictSame(single.body, { statusCode: 403, code: 'ERR_APP_NOT_ALLOWED', error: 'Forbidden', message: "app 'bash' is not in the allow-list; allowed: term, slow, broken, launcher" })
  const batch = await post(app, '/computer/batch', { actions: [
    { action: 'move_mouse', coordinates: [5, 5] },
    { action: 'focus_window', window: { title: 'alpha' } },
    { action: 'launch_app', app: 'xterm -e sh' },
  ] })
  t.strictSame(batch.body, {
    statusCode: 403, code: 'ERR_APP_NOT_ALLOWED', error: 'Forbidden', message: "actions[2]: app 'xterm -e sh' is not in the allow-list; allowed: term, slow, broken, launcher", failed_index: 2,
  })
  t.strictSame(driver.calls, [], 'no action of the batch ran')
  // Object's own properties are not apps.
  t.equal((await post(app, '/computer', { action: 'launch_app', app: 'constructor' })).status, 403)

  const { app: none, driver: untouched } = await build(t, { fake: { windows: WINDOWS } })
  t.strictSame((await post(none, '/computer', { action: 'launch_app', app: 'term' })).body, errorBody(403, 'ERR_APP_NOT_ALLOWED', "app 'term' is not in the allow-list; none is allowed (the server's --allow-app / ALLOW_APPS is empty)"))
  t.strictSame(untouched.calls, [])
})

t.test('without window control every window action is a 400, before any input', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: false }, apps: APPS })
  const actions = [
    { action: 'list_windows' },
    { action: 'focus_window', window: { title: 'a' } },
    { action: 'launch_app', app: 'term' },
    { action: 'set_window_geometry', window: { title: 'a' }, x: 1 },
  ]
  for (const action of actions) {
    t.strictSame((await post(app, '/computer', action)).body, errorBody(400, 'ERR_UNSUPPORTED_ACTION', `${action.action} needs window control: the fake driver has no window control`), action.action)
  }
  const batch = await post(app, '/computer/batch', { actions: [{ action: 'move_mouse', coordinates: [1, 1] }, actions[0]] })
  t.equal(batch.status, 400)
  t.strictSame(driver.calls, [])
  t.equal((await post(app, '/computer', { action: 'move_mouse', coordinates: [1, 1] })).status, 200, 'input still works')

  const { app: noWm, driver: fake } = await build(t, { fake: { windows: WINDOWS } })
  fake.windows!.unavailableReason = 'no window manager runs on :99 (openbox is not installed: run npm run setup)'
  t.strictSame((await post(noWm, '/computer', { action: 'list_windows' })).body, errorBody(400, 'ERR_UNSUPPORTED_ACTION', 'list_windows needs window control: no window manager runs on :99 (openbox is not installed: run npm run setup)'))
})

t.test('bad window actions are 400s with the whole error body, and send nothing', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: WINDOWS }, apps: APPS })
  const selector = 'window must be an object with at least one of id ("0x…" hex), title, class'
  const cases: Array<[string, object, string, string?]> = [
    ['no window', { action: 'focus_window' }, "missing required field 'window' for action 'focus_window'"],
    ['empty selector', { action: 'focus_window', window: {} }, selector],
    ['selector not an object', { action: 'focus_window', window: 'alpha' }, selector],
    ['unknown selector field', { action: 'focus_window', window: { name: 'alpha' } }, selector],
    ['id not hex', { action: 'focus_window', window: { id: '4194305' } }, 'window.id must be an X window id in hex, e.g. "0x400007"'],
    ['empty title', { action: 'set_window_geometry', window: { title: '' }, x: 1 }, 'window.title must be a non-empty string'],
    ['class not a string', { action: 'focus_window', window: { class: 3 } }, 'window.class must be a non-empty string'],
    ['no geometry', { action: 'set_window_geometry', window: { title: 'alpha' } }, 'set_window_geometry needs at least one of x, y, width, height'],
    ['zero width', { action: 'set_window_geometry', window: { title: 'alpha' }, width: 0 }, 'width must be a positive integer'],
    ['fractional y', { action: 'set_window_geometry', window: { title: 'alpha' }, y: 1.5 }, 'y must be an integer'],
    ['x off the screen', { action: 'set_window_geometry', window: { title: 'alpha' }, x: 1280 }, 'x 1280 is outside the 1280x800 screen: x must be 0..1279', 'ERR_POINT_OUT_OF_BOUNDS'],
    ['negative y', { action: 'set_window_geometry', window: { title: 'alpha' }, y: -5 }, 'y -5 is outside the 1280x800 screen: y must be 0..799', 'ERR_POINT_OUT_OF_BOUNDS'],
    ['too wide', { action: 'set_window_geometry', window: { title: 'alpha' }, width: 1281 }, 'width 1281 is wider than the 1280x800 screen: width must be 1..1280', 'ERR_POINT_OUT_OF_BOUNDS'],
    ['too tall', { action: 'set_window_geometry', window: { title: 'alpha' }, height: 801 }, 'height 801 is taller than the 1280x800 screen: height must be 1..800', 'ERR_POINT_OUT_OF_BOUNDS'],
    ['app empty', { action: 'launch_app', app: '' }, 'app must be the name of an allowed application'],
    ['app as argv', { action: 'launch_app', app: ['xterm'] }, 'app must be the name of an allowed application'],
    ['unknown field', { action: 'list_windows', all: true }, "unknown field 'all' for action 'list_windows' (allowed: action, screenshot)"],
  ]
  for (const [name, body, message, code = 'ERR_INVALID_ACTION'] of cases) {
    t.strictSame((await post(app, '/computer', body)).body, { statusCode: 400, code, error: 'Bad Request', message }, name)
  }
  const scaled = await post(app, '/computer?display_width_px=640&display_height_px=400', { action: 'set_window_geometry', window: { title: 'alpha' }, x: 640 })
  t.strictSame(scaled.body, errorBody(400, 'ERR_POINT_OUT_OF_BOUNDS', 'x 640 is outside the 640x400 coordinate space declared by display_width_px/display_height_px: x must be 0..639'))
  t.strictSame(driver.calls, [])
})

t.test('the allow-list: --allow-app (repeatable) or ALLOW_APPS, as argv, never a shell line', async (t) => {
  t.strictSame(loadConfig([], {}).apps, {}, 'empty by default')
  t.equal(loadConfig([], {}).launchTimeoutMs, 30_000, 'launch_app waits 30 s by default')
  t.equal(loadConfig(['--launch-timeout', '2.5'], {}).launchTimeoutMs, 2500)
  t.equal(loadConfig([], { LAUNCH_TIMEOUT: '4' }).launchTimeoutMs, 4000)
  t.strictSame(loadConfig(['--allow-app', 'term=xterm -T "my term" -e top', '--allow-app', "clock=xclock -update 1"], {}).apps, {
    term: ['xterm', '-T', 'my term', '-e', 'top'],
    clock: ['xclock', '-update', '1'],
  })
  t.strictSame(loadConfig([], { ALLOW_APPS: '{"term": ["xterm", "-e", "sh -c \'echo; x\'"], "eyes": ["xeyes"]}' }).apps, {
    term: ['xterm', '-e', "sh -c 'echo; x'"], eyes: ['xeyes'],
  })
  t.strictSame(loadConfig([], { ALLOW_APPS: 'term=xterm -T alpha; eyes = xeyes ;' }).apps, { term: ['xterm', '-T', 'alpha'], eyes: ['xeyes'] })
  t.strictSame(loadConfig(['--allow-app', 'a=one'], { ALLOW_APPS: 'b=two' }).apps, { a: ['one'] }, 'flags win over the environment')
  t.strictSame(splitWords(` a  'b c'd "" "e'f" `, 'x'), ['a', 'b cd', '', "e'f"], 'quotes group, nothing else is read')
  t.strictSame(splitWords('echo $HOME `id` > out; rm *', 'x'), ['echo', '$HOME', '`id`', '>', 'out;', 'rm', '*'], 'no shell: these are words')
  t.match(usage(), '--allow-app <value> (repeatable)')
  t.match(usage(), '[env ALLOW_APPS]')

  const refusals: Array<[string[], NodeJS.ProcessEnv, string]> = [
    [['--allow-app', 'xterm'], {}, "--allow-app: 'xterm' must look like name=command arg …"],
    [['--allow-app', 'my term=xterm'], {}, "--allow-app: app name 'my term' must be letters, digits, '.', '_' or '-'"],
    [['--allow-app', 'term='], {}, "--allow-app: app 'term' needs a command: a non-empty list of non-empty strings"],
    [['--allow-app', 'term=xterm', '--allow-app', 'term=xeyes'], {}, "--allow-app: app 'term' is given twice"],
    [['--allow-app', 'term=xterm -T "alpha'], {}, `--allow-app: unbalanced quote in 'xterm -T "alpha'`],
    [[], { ALLOW_APPS: '{"term": "xterm -T a"}' }, "ALLOW_APPS: app 'term' needs a command: a non-empty list of non-empty strings"],
    [[], { ALLOW_APPS: '{"term": []}' }, "ALLOW_APPS: app 'term' needs a command: a non-empty list of non-empty strings"],
    [[], { ALLOW_APPS: '{"term": ["xterm", 1]}' }, "ALLOW_APPS: app 'term' needs a command: a non-empty list of non-empty strings"],
    [[], { ALLOW_APPS: '{"term": ["xterm"' }, 'ALLOW_APPS is not valid JSON: '],
    [[], { ALLOW_APPS: 'term' }, "ALLOW_APPS: 'term' must look like name=command arg …"],
    [['--launch-timeout', '0'], {}, "--launch-timeout must be a positive number (got '0')"],
  ]
  for (const [argv, env, message] of refusals) {
    t.throws(() => loadConfig(argv, env), { code: 'ERR_INVALID_CONFIG', message: new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) }, message)
  }
  t.throws(() => allowedApps(undefined, '["xterm"]'), { message: 'ALLOW_APPS must be a JSON object {"name": ["command", "arg", …]}' })
})

t.test('launched windows come from the allow-list passed to buildApp, and the driver is asked nothing more', async (t) => {
  const { app, driver } = await build(t, { fake: { windows: [] }, apps: { eyes: ['xeyes', '-geometry', '100x100'] } })
  const response = await post(app, '/computer/batch', { actions: [
    { action: 'launch_app', app: 'eyes' },
    { action: 'set_window_geometry', window: { class: 'xeyes' }, width: 300 },
    { action: 'list_windows' },
  ] })
  t.equal(response.status, 200)
  t.strictSame(response.body.results[2].windows, [{ id: '0x800001', title: 'xeyes -geometry 100x100', class: 'Xeyes', pid: 4000, x: 100, y: 100, width: 300, height: 480, focused: true }])
  t.strictSame(driver.calls, [
    { call: 'launch', argv: ['xeyes', '-geometry', '100x100'] },
    { call: 'activateWindow', id: 0x800001 },
    { call: 'setWindowGeometry', id: 0x800001, geometry: { width: 300 } },
  ])
})
