/**
 * Window control on a real desktop: Xvfb, jwm as the window manager, the real driver and
 * real xterms launched from the allow-list. Every effect is checked from outside the server
 * (xdotool, xwininfo, what the xterms received), and every process ends by PID.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import pino from 'pino'
import { buildApp } from '../src/http/app.ts'
import { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { Ewmh } from '../drivers/x11/ewmh.ts'
import { startWindowManager } from '../drivers/x11/window-manager.ts'
import { cursorFromX, startDesktop, until, xdotool, xwininfo } from './helpers/desktop.ts'
import { errorBody } from './helpers/error-body.ts'
import { running } from './helpers/process-table.ts'

const silent = pino({ level: 'silent' })

/** An xterm whose shell-less child copies what is typed into it to `file`. */
const recorder = (title: string, file: string) =>
  ['xterm', '-T', title, '-name', `${title}term`, '-e', 'sh', '-c', `stty -echo; exec cat > '${file}'`]


t.test('launch, list, focus, type into, move and resize real windows', async (t) => {
  const xvfb = await startDesktop(t)
  const { display } = xvfb
  const dir = await mkdtemp(join(tmpdir(), 'windows-e2e-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const alphaFile = join(dir, 'alpha.txt')
  const betaFile = join(dir, 'beta.txt')

  // A display we were given: the server starts no window manager on it.
  const desktop = new SupervisedDesktop({ display, screen: '1280x800x24', log: silent })
  const app = await buildApp({
    driver: desktop,
    logger: silent,
    apps: { alpha: recorder('alpha', alphaFile), beta: recorder('beta', betaFile), missing: ['no-such-program-here'], failing: ['false'] },
    launchTimeoutMs: 15_000,
  })
  const launched: number[] = []
  let closed = false
  t.teardown(async () => { if (!closed) await app.close() })
  await app.ready()
  const act = async (action: object, query = '') => {
    const response = await app.inject({ method: 'POST', url: `/computer${query}`, payload: action })
    return { status: response.statusCode, body: response.json() }
  }

  const noWm = await act({ action: 'list_windows' })
  t.strictSame(noWm.body, errorBody(400, 'ERR_UNSUPPORTED_ACTION', `list_windows needs window control: no EWMH window manager runs on ${display} (the server starts one only on an Xvfb of its own)`))
  t.equal((await act({ action: 'move_mouse', coordinates: [5, 5] })).status, 200, 'input works without a window manager')

  // The user's desktop has its own window manager: here, jwm started beside the server.
  const probe = await Ewmh.open(display)
  t.teardown(() => probe.close())
  const wm = await startWindowManager({ display, log: silent, managed: () => probe.managed() })
  t.teardown(() => wm.stop())

  const alpha = await act({ action: 'launch_app', app: 'alpha' })
  t.equal(alpha.status, 200, JSON.stringify(alpha.body))
  t.match(alpha.body.window, { id: /^0x[0-9a-f]+$/, title: 'alpha', class: 'XTerm', pid: Number, focused: true })
  launched.push(alpha.body.window.pid)
  t.strictSame(desktop.launchedPids, [alpha.body.window.pid], 'the window belongs to the process the server started')
  t.equal(await xdotool(display, 'getactivewindow', 'getwindowname'), 'alpha', 'X says alpha is active')

  const beta = await act({ action: 'launch_app', app: 'beta' })
  t.equal(beta.status, 200, JSON.stringify(beta.body))
  t.match(beta.body.window, { title: 'beta', class: 'XTerm', focused: true })
  launched.push(beta.body.window.pid)
  t.equal(await xdotool(display, 'getactivewindow', 'getwindowname'), 'beta')

  const listed = await act({ action: 'list_windows' })
  t.equal(listed.status, 200)
  t.strictSame(listed.body.windows.map((w: { title: string }) => w.title), ['beta', 'alpha'], 'topmost first')
  for (const window of listed.body.windows) {
    t.match(window, { class: 'XTerm', pid: window.title === 'alpha' ? alpha.body.window.pid : beta.body.window.pid, focused: window.title === 'beta' })
    t.strictSame(await xwininfo(display, window.id), { x: window.x, y: window.y, width: window.width, height: window.height }, `${window.title}: geometry as X has it`)
  }

  // Focus by title (any case), then type: the text lands in alpha and nowhere else.
  const focused = await act({ action: 'focus_window', window: { title: 'ALPHA' } })
  t.equal(focused.status, 200)
  t.match(focused.body.window, { id: alpha.body.window.id, focused: true })
  t.equal(await xdotool(display, 'getactivewindow', 'getwindowname'), 'alpha', 'X says alpha is active again')
  t.equal((await act({ action: 'type_text', text: 'hello alpha\n' })).status, 200)
  t.ok(await until(async () => (await readFile(alphaFile, 'utf8').catch(() => '')) === 'hello alpha\n', 5000), 'alpha received the text')

  const byClass = await act({ action: 'focus_window', window: { class: 'betaterm' } })
  t.match(byClass.body.window, { title: 'beta', focused: true })
  t.equal(await xdotool(display, 'getactivewindow', 'getwindowname'), 'beta')
  t.equal((await act({ action: 'type_text', text: 'to beta\n' })).status, 200)
  t.ok(await until(async () => (await readFile(betaFile, 'utf8').catch(() => '')) === 'to beta\n', 5000), 'beta received its text')
  t.equal(await readFile(alphaFile, 'utf8'), 'hello alpha\n', 'alpha received nothing more')

  // Sizes on xterm's steps (4 + 6n by 4 + 13m), so the request can be met exactly.
  const placed = await act({ action: 'set_window_geometry', window: { title: 'alpha' }, x: 100, y: 120, width: 604, height: 394 })
  t.equal(placed.status, 200)
  t.match(placed.body.window, { title: 'alpha', x: 100, y: 120, width: 604, height: 394 })
  t.strictSame(await xwininfo(display, alpha.body.window.id), { x: 100, y: 120, width: 604, height: 394 }, 'X has it there')

  const moved = await act({ action: 'set_window_geometry', window: { id: alpha.body.window.id }, x: 0 })
  t.strictSame(await xwininfo(display, alpha.body.window.id), { x: 0, y: 120, width: 604, height: 394 }, 'only x changed')
  t.match(moved.body.window, { x: 0, y: 120, width: 604, height: 394 })

  // In a declared 640x400 space every number is half the screen's.
  const half = '?display_width_px=640&display_height_px=400'
  const scaled = await act({ action: 'set_window_geometry', window: { title: 'beta' }, x: 300, y: 200, width: 302, height: 197 }, half)
  t.equal(scaled.status, 200)
  t.strictSame(await xwininfo(display, beta.body.window.id), { x: 601, y: 401, width: 604, height: 394 }, 'real pixels on X')
  t.match(scaled.body.window, { x: 300, y: 200, width: 302, height: 197 }, 'answered in the declared space')
  const scaledList = await act({ action: 'list_windows' }, half)
  t.match(scaledList.body.windows.find((w: { title: string }) => w.title === 'alpha'), { x: 0, y: 60, width: 302, height: 197 })

  // A size off the steps: the application rounds it, and the answer says what X has.
  const rounded = await act({ action: 'set_window_geometry', window: { title: 'alpha' }, width: 500 })
  t.equal(rounded.status, 200)
  t.strictSame(await xwininfo(display, alpha.body.window.id), { x: 0, y: 120, width: rounded.body.window.width, height: 394 })
  t.ok(Math.abs(rounded.body.window.width - 500) < 6, `rounded to a step: ${rounded.body.window.width}`)

  const missing = await act({ action: 'focus_window', window: { title: 'gamma' } })
  t.equal(missing.status, 404)
  t.match(missing.body, { code: 'ERR_WINDOW_NOT_FOUND', message: /^no window matches title containing "gamma"; open windows: 0x[0-9a-f]+ "(alpha|beta)" \(XTerm\), 0x[0-9a-f]+ "(alpha|beta)" \(XTerm\)$/ })

  t.strictSame((await act({ action: 'launch_app', app: 'missing' })).body, errorBody(500, 'ERR_APP_LAUNCH_FAILED', "app 'missing' could not be started (no-such-program-here): spawn no-such-program-here ENOENT"))
  const failing = await act({ action: 'launch_app', app: 'failing' })
  t.match(failing.body, { statusCode: 500, code: 'ERR_APP_LAUNCH_FAILED', message: /^app 'failing' \(pid \d+\) exited with code 1 before opening a window$/ })
  t.strictSame((await act({ action: 'launch_app', app: 'xterm' })).body, {
    statusCode: 403, code: 'ERR_APP_NOT_ALLOWED', error: 'Forbidden', message: "app 'xterm' is not in the allow-list; allowed: alpha, beta, missing, failing",
  })
  t.strictSame(desktop.launchedPids.sort(), [...launched].sort(), 'only the two xterms still run')

  await app.close()
  closed = true
  for (const pid of launched) t.notOk(running(pid), `launched app ${pid} ended with the server`)
  t.strictSame(desktop.launchedPids, [])
})

t.test('on its own Xvfb the server runs jwm, brings it back with X, and ends it on close', async (t) => {
  const desktop = new SupervisedDesktop({ screen: '1024x768x24', log: silent })
  const app = await buildApp({ driver: desktop, logger: silent })
  let closed = false
  t.teardown(async () => { if (!closed) await app.close() })
  await app.ready()
  const list = () => app.inject({ method: 'POST', url: '/computer', payload: { action: 'list_windows' } })

  const first = desktop.windowManagerPid!
  t.ok(first && running(first), 'jwm runs')
  t.equal(execFileSync('ps', ['-o', 'comm=', '-p', String(first)]).toString().trim(), 'jwm')
  t.strictSame((await list()).json().windows, [])

  const xvfbPid = Number(execFileSync('pgrep', ['-f', `Xvfb ${desktop.display} `]).toString().trim().split('\n')[0])
  process.kill(xvfbPid, 'SIGKILL')
  t.ok(await until(async () => (await list()).statusCode === 200, 15_000), 'window actions work again after X died')
  const second = desktop.windowManagerPid!
  t.ok(second && second !== first && running(second), 'a new jwm runs on the new X server')
  t.notOk(running(first), 'the old one is gone')

  await app.close()
  closed = true
  t.notOk(running(second), 'jwm ended on close')
})

t.test('without its window manager the server still takes input, the window actions say why not, and /health is not ready', async (t) => {
  const desktop = new SupervisedDesktop({ screen: '1024x768x24', log: silent, windowManager: 'no-such-window-manager' })
  const app = await buildApp({ driver: desktop, logger: silent, apps: { term: ['xterm'] } })
  t.teardown(() => app.close())
  await app.ready()
  const act = async (action: object) => {
    const response = await app.inject({ method: 'POST', url: '/computer', payload: action })
    return { status: response.statusCode, body: response.json() }
  }
  for (const action of [{ action: 'list_windows' }, { action: 'launch_app', app: 'term' }]) {
    t.strictSame((await act(action)).body, {
      statusCode: 400, code: 'ERR_UNSUPPORTED_ACTION', error: 'Bad Request',
      message: `${action.action} needs window control: no window manager runs on ${desktop.display}: no-such-window-manager is not installed: run \`npm run setup\` (or apt-get install no-such-window-manager)`,
    })
  }
  t.strictSame(desktop.launchedPids, [], 'nothing was launched')
  const health = await app.inject({ url: '/health' })
  t.strictSame({ status: health.statusCode, body: health.json() }, {
    status: 503,
    body: {
      // Built without the desktop's info, the app names no display of its own.
      status: 'unavailable', ready: false, driver: desktop.name, display: null, screen: { width: 1024, height: 768 },
      held: { keys: [], buttons: [] }, queue: 0, oldest_wait_ms: 0,
      reason: `the window manager is not running on ${desktop.display}: no-such-window-manager is not installed: run \`npm run setup\` (or apt-get install no-such-window-manager)`,
      recording: null, control: { taken_over: false, waiting: 0, oldest_wait_ms: null },
    },
  }, '/health: not ready, and why')
  t.equal((await act({ action: 'move_mouse', coordinates: [40, 30] })).status, 200)
  t.strictSame(await cursorFromX(desktop.display!), [40, 30], 'input works')
})
