/**
 * OSWorld's guest protocol over the fake driver, the recorded accessibility tree and a
 * temporary home: every route in the shapes desktop_env's controllers send and read, the
 * input each pyautogui call became, every refusal with its whole error body, the token as
 * Basic auth, and a server without --osworld serving none of it.
 */
import t, { type Test } from 'tap'
import { mkdtemp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import type { FastifyInstance } from 'fastify'
import type { FakeWindow } from '../drivers/fake/fake-driver.ts'
import { build } from './helpers/build.ts'
import { answeredError } from './helpers/error-body.ts'
import { recordedSource } from './helpers/a11y.ts'
import { loadConfig } from '../src/runtime/config.ts'
import { desktopHome, shellLimits } from './helpers/tools.ts'
import { FileStore } from '../src/files/store.ts'
import { download } from '../src/osworld/download.ts'

const PRELUDE = 'import pyautogui; import time; pyautogui.FAILSAFE = False; '
const harness = (code: string) => ({ command: ['python', '-c', `${PRELUDE}${code}`], shell: false })
const EDITOR: FakeWindow = { id: 0x400001, title: 'notes.txt - Mousepad', instance: 'mousepad', class: 'Mousepad', pid: 101, rect: { x: 10, y: 20, width: 400, height: 300 } }
const TERM: FakeWindow = { id: 0x400002, title: 'Terminal', instance: 'xfce4-terminal', class: 'Xfce4-terminal', pid: 102, rect: { x: 600, y: 100, width: 500, height: 400 } }
/** The recorded source's bus addresses, which launched applications get. */
const BUS = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/session', AT_SPI_BUS_ADDRESS: 'unix:path=/tmp/a11y' }
const SHELL_OFF = (route: string, shown: string) => `${route} ran no command: ${JSON.stringify(shown)} is not pyautogui code (python -c "import pyautogui; …"), ` +
  'which is all this server reads without its shell; other commands run only on a server started with --shell'

async function guest (t: Test, extra: Parameters<typeof build>[1] = {}, wallpaper?: (file: string) => Promise<void>) {
  const home = await mkdtemp(join(tmpdir(), 'osworld-home-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const built = await build(t, {
    fake: { windows: [EDITOR, TERM] },
    accessibility: await recordedSource(),
    apps: { editor: ['mousepad'], terminal: ['xfce4-terminal'] },
    launchRules: { targets: { editor: 'path', terminal: 'directory' }, home, maximized: false },
    osworld: { files: { home, maxFileSize: 1024 * 1024, maxTotal: 10 * 1024 * 1024 }, ...(wallpaper && { wallpaper }) },
    ...extra,
  })
  return { ...built, home, guest: built.app.osworldGuest! }
}

const postJson = async (app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) =>
  await app.inject({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } })

t.test('/execute and /setup/execute: pyautogui code runs through the dialect, answered as the harness reads it', async (t) => {
  const { guest: app, driver } = await guest(t)
  for (const url of ['/execute', '/setup/execute']) {
    driver.calls.length = 0
    const response = await postJson(app, url, harness("pyautogui.click(10, 20); pyautogui.write('héllo; wörld')\ntime.sleep(0.01)"))
    t.equal(response.statusCode, 200, url)
    t.strictSame(response.json(), { status: 'success', output: '', error: '', returncode: 0 }, url)
    t.strictSame(driver.calls, [
      { call: 'moveMouse', x: 10, y: 20 },
      { call: 'buttonDown', button: 'left' },
      { call: 'buttonUp', button: 'left' },
      { call: 'typeText', text: 'héllo; wörld' },
    ], url)
  }
})

t.test('/execute: code the dialect refuses is the program failing (returncode 1), as Python would; the platform question answered', async (t) => {
  const { guest: app, driver } = await guest(t)
  const cases: Array<[string, unknown]> = [
    ['pyautogui.click(5000, 10)', { status: 'success', output: '', error: 'ERR_POINT_OUT_OF_BOUNDS: coordinates (5000, 10) is outside the 1280x800 screen: x must be 0..1279 and y 0..799\n', returncode: 1 }],
    ["pyautogui.locateOnScreen('a.png')", {
      status: 'success',
      output: '',
      error: 'ERR_UNPARSEABLE_OUTPUT: cannot run line 1 of the pyautogui code, "pyautogui.locateOnScreen(\'a.png\')": pyautogui.locateOnScreen is not a call this adapter runs (known: ' +
        'pyautogui.click, pyautogui.leftClick, pyautogui.doubleClick, pyautogui.tripleClick, pyautogui.rightClick, pyautogui.middleClick, pyautogui.moveTo, ' +
        'pyautogui.dragTo, pyautogui.mouseDown, pyautogui.mouseUp, pyautogui.scroll, pyautogui.vscroll, pyautogui.hscroll, pyautogui.write, pyautogui.typewrite, ' +
        'pyautogui.press, pyautogui.hotkey, pyautogui.keyDown, pyautogui.keyUp, computer.triple_click, computer.wait, computer.terminate, time.sleep, ' +
        'pyperclip.copy, pyperclip.paste, WAIT, DONE, FAIL)\n',
      returncode: 1,
    }],
    ['import platform; print(platform.system())', { status: 'success', output: 'Linux\n', error: '', returncode: 0 }],
    ['', { status: 'success', output: '', error: '', returncode: 0 }],
  ]
  for (const [code, expected] of cases) {
    const response = await postJson(app, '/execute', harness(code))
    t.equal(response.statusCode, 200, code)
    t.strictSame(response.json(), expected, code)
  }
  t.strictSame(driver.calls, [], 'nothing ran')
})

t.test('/execute, /setup/execute, /run_python, /setup/launch: anything but pyautogui code is refused without the shell, naming --shell', async (t) => {
  const { guest: app, driver } = await guest(t)
  const cases: Array<[string, unknown, string]> = [
    ['/execute', { command: ['libreoffice', '--calc'] }, 'libreoffice --calc'],
    ['/setup/execute', { command: 'rm -rf ~/x', shell: true }, 'rm -rf ~/x'],
    ['/execute', harness('import os; os.remove("x")'), `python -c ${PRELUDE}import os; os.remove("x")`],
    ['/run_python', { code: 'print(1)' }, 'python3 -c print(1)'],
    ['/setup/launch', { command: ['google-chrome', '--remote-debugging-port=1337'] }, 'google-chrome --remote-debugging-port=1337'],
    ['/run_bash_script', { script: 'echo hi', timeout: 10, working_dir: null }, 'echo hi'],
  ]
  for (const [url, body, shown] of cases) answeredError(t, await postJson(app, url, body), 403, 'ERR_SHELL_OFF', SHELL_OFF(url, shown))
  t.strictSame(driver.calls, [])
})

t.test('/run_python: a pyautogui script runs, answered in its own shape', async (t) => {
  const { guest: app, driver } = await guest(t)
  const response = await postJson(app, '/run_python', { code: "import pyautogui\npyautogui.press('enter')\n" })
  t.strictSame(response.json(), { status: 'success', message: '', need_more: false, output: '', error: '', return_code: 0 })
  t.strictSame(driver.calls, [{ call: 'keyDown', key: 'enter' }, { call: 'keyUp', key: 'enter' }])
})

t.test('bad bodies: clear 400s', async (t) => {
  const { guest: app } = await guest(t)
  answeredError(t, await postJson(app, '/execute', { command: 5 }), 400, 'ERR_INVALID_ACTION', 'body/command command must be a non-empty string or a non-empty list of strings')
  answeredError(t, await postJson(app, '/run_python', { code: '' }), 400, 'ERR_INVALID_ACTION', 'body/code code must be the Python script, a non-empty string')
  answeredError(t, await postJson(app, '/list_directory', {}), 400, 'ERR_INVALID_ACTION', "body must have required property 'path'")
  answeredError(t, await app.inject({ method: 'GET', url: '/nothing' }), 404, 'ERR_NOT_FOUND', 'no route GET /nothing in the OSWorld guest protocol; docs/osworld.md lists its routes')
})

t.test('/screenshot is a PNG with the pointer drawn; /cursor_position, /screen_size, /platform', async (t) => {
  const { guest: app } = await guest(t)
  await postJson(app, '/execute', harness('pyautogui.moveTo(100, 200)'))
  const response = await app.inject({ method: 'GET', url: '/screenshot' })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'image/png')
  const { data, info } = await sharp(response.rawPayload).raw().toBuffer({ resolveWithObject: true })
  t.same([info.width, info.height], [1280, 800])
  const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)]
  t.same(pixel(103, 208), [0, 0, 0], 'the arrow, black, just below the tip')
  t.same(pixel(300, 300), [255, 255, 255], 'the screen elsewhere as it is')
  t.strictSame((await app.inject({ method: 'GET', url: '/cursor_position' })).json(), [100, 200])
  t.strictSame((await app.inject({ method: 'POST', url: '/screen_size' })).json(), { width: 1280, height: 800 })
  const platform = await app.inject({ method: 'GET', url: '/platform' })
  t.equal(platform.body, 'Linux')
})

t.test("/accessibility: the recorded desktop in OSWorld's XML; /terminal: none focused", async (t) => {
  const { guest: app } = await guest(t)
  const response = await app.inject({ method: 'GET', url: '/accessibility' })
  t.equal(response.statusCode, 200)
  const { AT } = response.json() as { AT: string }
  t.match(AT, /^<desktop-frame xmlns:st="https:\/\/accessibility\.ubuntu\.example\.org\/ns\/state" xmlns:attr="[^"]+" xmlns:cp="[^"]+" xmlns:doc="[^"]+" xmlns:docattr="[^"]+" xmlns:txt="[^"]+" xmlns:val="[^"]+" xmlns:act="[^"]+"><application name="/)
  t.ok(AT.endsWith('</desktop-frame>'))
  t.ok(AT.includes('<application name="yad"><frame name="Shipping" '), 'one application per program')
  t.ok(AT.includes('<push-button name="Save" st:enabled="true" st:focusable="true" st:sensitive="true" st:showing="true" st:visible="true" ' +
    'attr:text-align="center" attr:id="save" attr:class="at" attr:name-from="contents" attr:tag="button" attr:display="block" cp:screencoord="(100, 100)" cp:size="(120, 40)"/>'), 'a button whole')
  t.ok(AT.includes('<entry name="Email" '), 'an entry')
  t.ok(AT.includes('cp:size="(260, 32)">ada@example.com</entry>'), "an entry's text as the element's text")
  t.strictSame((await app.inject({ method: 'GET', url: '/terminal' })).json(), { output: null, status: 'success' })
})

/** A multipart body as requests_toolbelt's MultipartEncoder writes it: file_path, then file_data. */
function multipart (path: string, bytes: Buffer, order: 'path-first' | 'file-first' = 'path-first') {
  const boundary = 'b0undary1234'
  const field = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file_path"\r\n\r\n${path}\r\n`)
  const file = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file_data"; filename="x.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`), bytes, Buffer.from('\r\n')])
  const parts = order === 'path-first' ? [field, file] : [file, field]
  return { payload: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

t.test('files through the home jail: /setup/upload, /file, /list_directory, /desktop_path', async (t) => {
  const { guest: app, home } = await guest(t)
  const bytes = Buffer.from([0, 1, 2, 255, ...Buffer.from('sheet')])
  const uploaded = await app.inject({ method: 'POST', url: '/setup/upload', ...multipart('~/Desktop/data.xlsx', bytes) })
  t.equal(uploaded.statusCode, 200)
  t.equal(uploaded.body, 'File Uploaded: 9 bytes')
  t.same(await readFile(join(home, 'Desktop/data.xlsx')), bytes)

  const form = (fields: Record<string, string>) => ({ payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  const file = await app.inject({ method: 'POST', url: '/file', ...form({ file_path: `${home}/Desktop/data.xlsx` }) })
  t.equal(file.statusCode, 200)
  t.same(file.rawPayload, bytes)

  await writeFile(join(home, 'notes.txt'), 'n')
  await mkdir(join(home, 'Desktop/empty'))
  const tree = await postJson(app, '/list_directory', { path: '~' })
  t.strictSame(tree.json(), {
    directory_tree: {
      type: 'directory', name: home.split('/').at(-1),
      children: [
        { type: 'directory', name: 'Desktop', children: [{ type: 'file', name: 'data.xlsx' }, { type: 'directory', name: 'empty', children: [] }] },
        { type: 'file', name: 'notes.txt' },
      ],
    },
  })
  t.strictSame((await app.inject({ method: 'POST', url: '/desktop_path' })).json(), { desktop_path: `${home}/Desktop` })

  answeredError(t, await app.inject({ method: 'POST', url: '/file', ...form({ file_path: '/etc/passwd' }) }), 403, 'ERR_PATH_FORBIDDEN',
    `'/etc/passwd' lies outside the desktop's home (${home}): this server reads and writes files under it only; name it as ~/… or ${home}/…`)
  answeredError(t, await app.inject({ method: 'POST', url: '/setup/upload', ...multipart('/tmp/evil', bytes) }), 403, 'ERR_PATH_FORBIDDEN',
    `'/tmp/evil' lies outside the desktop's home (${home}): this server reads and writes files under it only; name it as ~/… or ${home}/…`)
  answeredError(t, await app.inject({ method: 'POST', url: '/setup/upload', ...multipart('~/a', bytes, 'file-first') }), 400, 'ERR_INVALID_PAYLOAD',
    "/setup/upload needs the field file_path before the file file_data (the target path in the desktop's home)")
  const missing = await app.inject({ method: 'POST', url: '/file', ...form({ file_path: '~/nope.txt' }) })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().code, 'ERR_FILE_NOT_FOUND')
})

t.test('/desktop_path without a Desktop directory: 404', async (t) => {
  const { guest: app, home } = await guest(t)
  answeredError(t, await app.inject({ method: 'POST', url: '/desktop_path' }), 404, 'ERR_FILE_NOT_FOUND', `the desktop's home (${home}) has no Desktop directory`)
})

t.test('windows and applications: /setup/activate_window, /window_size, /setup/launch, /setup/open_file', async (t) => {
  const { guest: app, driver, home } = await guest(t)
  t.equal((await postJson(app, '/setup/activate_window', { window_name: 'mousepad' })).body, 'Window activated successfully')
  t.strictSame(driver.calls.at(-1), { call: 'activateWindow', id: EDITOR.id })
  await postJson(app, '/setup/activate_window', { window_name: 'xfce4-terminal', by_class: true })
  t.strictSame(driver.calls.at(-1), { call: 'activateWindow', id: TERM.id })
  answeredError(t, await postJson(app, '/setup/activate_window', { window_name: 'mousepad', strict: true }), 404, 'ERR_WINDOW_NOT_FOUND',
    "no window titled 'mousepad'; open windows: 'Terminal' (Xfce4-terminal), 'notes.txt - Mousepad' (Mousepad)")

  const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' } }
  t.strictSame((await app.inject({ method: 'POST', url: '/window_size', payload: 'app_class_name=mousepad', ...form })).json(), { width: 400, height: 300 })
  answeredError(t, await app.inject({ method: 'POST', url: '/window_size', payload: 'app_class_name=firefox', ...form }), 404, 'ERR_WINDOW_NOT_FOUND',
    "no window of class 'firefox'; open windows' classes: Xfce4-terminal, Mousepad")

  const launched = await postJson(app, '/setup/launch', { command: ['terminal'] })
  t.equal(launched.statusCode, 200)
  t.match(launched.body, /^terminal launched successfully: window 0x[0-9a-f]+ /)
  t.strictSame(driver.calls.find((call) => call.call === 'launch'), { call: 'launch', argv: ['xfce4-terminal'], env: BUS, cwd: home })

  await writeFile(join(home, 'todo.txt'), 'x')
  const opened = await postJson(app, '/setup/open_file', { path: '~/todo.txt' })
  t.equal(opened.body, 'File opened and window activated successfully')
  t.strictSame(driver.calls.filter((call) => call.call === 'launch').at(-1), { call: 'launch', argv: ['mousepad', join(home, 'todo.txt')], env: BUS, cwd: home })
  answeredError(t, await postJson(app, '/setup/open_file', { path: '~/none.txt' }), 404, 'ERR_FILE_NOT_FOUND', "nothing to open at '~/none.txt' in the desktop's home")
})

t.test('recordings: off without --record, named flag', async (t) => {
  const { guest: app } = await guest(t)
  for (const url of ['/start_recording', '/end_recording']) {
    answeredError(t, await app.inject({ method: 'POST', url }), 404, 'ERR_NOT_FOUND', 'recording is off on this server: start it with --record (env RECORD=1) for /start_recording and /end_recording')
  }
})

t.test("with a token: required, as Basic auth's password (the harness's vm_ip osworld:<token>@host) or a Bearer token", async (t) => {
  const token = 'a-long-enough-token-for-the-guest-0123456789'
  const { guest: app } = await guest(t, { token })
  answeredError(t, await app.inject({ method: 'POST', url: '/screen_size' }), 401, 'ERR_UNAUTHORIZED',
    'this server needs its API token: give the harness http://osworld:<token>@<host> as the VM address (Basic auth), or send "Authorization: Bearer <token>"')
  const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` })
  answeredError(t, await app.inject({ method: 'POST', url: '/screen_size', headers: basic('osworld', 'wrong') }), 401, 'ERR_UNAUTHORIZED', 'the API token is not valid')
  t.equal((await app.inject({ method: 'POST', url: '/screen_size', headers: basic('osworld', token) })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/screen_size', headers: { authorization: `Bearer ${token}` } })).statusCode, 200)
  answeredError(t, await app.inject({ method: 'POST', url: '/screen_size', headers: { host: 'evil.example:5000' } }), 403, 'ERR_FORBIDDEN_HOST',
    "the Host header 'evil.example:5000' is not a name of this server (it answers to localhost, 127.0.0.1, [::1]); a web page whose DNS name was pointed at this address is refused. To reach the server by this name, start it with --allow-host evil.example (or ALLOW_HOSTS)")
})

t.test('without osworld: no guest', async (t) => {
  const { app } = await build(t)
  t.equal(app.osworldGuest, null)
})

t.test('--osworld and --osworld-port: off by default, 5000, needs --home, its own port', async (t) => {
  t.equal(loadConfig([], {}).osworld, undefined)
  t.strictSame(loadConfig(['--osworld', '--home', '/tmp/h'], {}).osworld, { port: 5000 })
  t.strictSame(loadConfig(['--home', '/tmp/h'], { OSWORLD: '1', OSWORLD_PORT: '0' }).osworld, { port: 0 })
  const refusals: Array<[string[], string]> = [
    [['--osworld'], "--osworld needs --home (env DESKTOP_HOME): the directory its files are read from and written to; the server's own $HOME is never served by default"],
    [['--osworld', '--home', '/tmp/h', '--osworld-port', '8000'], "--osworld-port (8000) must differ from --port: the guest protocol's paths are fixed at the root"],
    [['--osworld', '--home', '/tmp/h', '--osworld-port', '70000'], "--osworld-port must be 0..65535 (got '70000')"],
  ]
  for (const [argv, message] of refusals) t.throws(() => loadConfig(argv, {}), { code: 'ERR_INVALID_CONFIG', message }, argv.join(' '))
})

t.test('recordings with --record: one at a time; a desktop without video says so', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'osworld-recordings-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const { guest: app, app: main } = await guest(t, { recording: { dir, maxBytes: 64 << 20, maxAgeMs: 3600_000, idleMs: 60_000, minFreeBytes: 0 } })
  answeredError(t, await app.inject({ method: 'POST', url: '/end_recording' }), 409, 'ERR_RECORDING_STATE', 'no recording in progress to stop: POST /start_recording first')
  const started = await app.inject({ method: 'POST', url: '/start_recording' })
  t.strictSame(started.json(), { status: 'success', message: 'Started recording successfully.' })
  const { recordings } = await main.recorder!.list()
  t.equal(recordings.length, 1)
  const id = recordings[0]!.id
  t.match(id, /^osworld-\d{4}-\d\d-\d\dT/)
  answeredError(t, await app.inject({ method: 'POST', url: '/start_recording' }), 409, 'ERR_RECORDING_STATE', `a recording is already in progress (${id}): end it with POST /end_recording first`)
  // The fake desktop has no video to record: the episode ends, and the answer says why there is no file.
  answeredError(t, await app.inject({ method: 'POST', url: '/end_recording' }), 404, 'ERR_NOT_FOUND', `recording '${id}' has no video (--record-fps 0, or a desktop without a display)`)
  t.equal(main.recorder!.meta(id).state, 'stopped')
})

t.test('with --shell, what is not pyautogui code runs as the desktop\'s user, answered as the harness reads it', async (t) => {
  const fixture = desktopHome(t)
  const { guest: app, driver } = await guest(t, { shell: { home: fixture.home, limits: shellLimits({ timeoutMs: 10_000 }) } })
  const cases: Array<[string, unknown, unknown]> = [
    ['/execute', { command: ['id', '-un'] }, { status: 'success', output: `${fixture.user.name}\n`, error: '', returncode: 0 }],
    ['/setup/execute', { command: 'echo out; echo err >&2; exit 3', shell: true }, { status: 'success', output: 'out\n', error: 'err\n', returncode: 3 }],
    ['/execute', { command: 'pwd', shell: true }, { status: 'success', output: `${fixture.home}\n`, error: '', returncode: 0 }],
  ]
  for (const [url, body, expected] of cases) {
    const response = await postJson(app, url, body)
    t.strictSame([response.statusCode, response.json()], [200, expected], `${url} ${JSON.stringify(body)}`)
  }
  t.strictSame(driver.calls, [], 'nothing reached the desktop\'s input')
})

t.test('/setup/execute_with_verification: the command, then its window or shell line awaited within max_wait_time, answered as the harness reads it', async (t) => {
  const { guest: app, driver } = await guest(t)
  const url = '/setup/execute_with_verification'
  const ran = { status: 'success', output: '', error: '', returncode: 0 }
  const cases: Array<[string, unknown, number, unknown]> = [
    ['no verification', { ...harness('pyautogui.click(10, 20)') }, 200, { ...ran, verification: 'none', wait_time: 0 }],
    ['a window whose title contains the name', { ...harness(''), verification: { window_exists: 'MOUSEPAD' }, max_wait_time: 2 }, 200, { ...ran, verification: 'passed', wait_time: 'seconds' }],
    ['a window that never comes', { ...harness(''), verification: { window_exists: 'Calculator' }, max_wait_time: 0.2, check_interval: 0.05 }, 504, {
      code: 'ERR_VERIFICATION_FAILED',
      error: 'Gateway Timeout',
      message: `${url}: the command ran (returncode 0) but no window's title contained "Calculator" within max_wait_time 0.2 s`,
      statusCode: 504,
    }],
    ['a shell line, without the shell', { ...harness(''), verification: { command_success: 'test -f ~/done' } }, 403, {
      code: 'ERR_SHELL_OFF', error: 'Forbidden', message: SHELL_OFF(url, 'test -f ~/done'), statusCode: 403,
    }],
    ['an unknown check', { ...harness(''), verification: { process_exists: 'x' } }, 400, 'ERR_INVALID_ACTION'],
    ['a wait past ten minutes', { ...harness(''), max_wait_time: 601 }, 400, 'ERR_INVALID_ACTION'],
  ]
  for (const [name, body, status, expected] of cases) {
    driver.calls.length = 0
    const response = await postJson(app, url, body)
    const answer = response.json()
    if (typeof answer.wait_time === 'number' && expected !== null && typeof expected === 'object' && (expected as { wait_time?: unknown }).wait_time === 'seconds') {
      t.ok(answer.wait_time >= 0 && answer.wait_time < 2, `${name}: waited ${answer.wait_time} s`)
      answer.wait_time = 'seconds'
    }
    if (typeof expected === 'string') t.strictSame([response.statusCode, answer.code], [status, expected], name)
    else t.strictSame([response.statusCode, answer], [status, expected], name)
  }
})

t.test('/setup/execute_with_verification with --shell: a shell line awaited until it exits 0', async (t) => {
  const fixture = desktopHome(t)
  const { guest: app } = await guest(t, { shell: { home: fixture.home, limits: shellLimits({ timeoutMs: 10_000 }) } })
  const url = '/setup/execute_with_verification'
  // The shell ends what a command leaves behind, so the line itself turns true 300 ms after the command.
  const now = 'echo $(( $(date +%s%N) / 1000000 ))'
  const passed = await postJson(app, url, { command: `${now} > started; echo started`, shell: true, verification: { command_success: `[ $(${now}) -ge $(( $(cat started) + 300 )) ]` }, max_wait_time: 5, check_interval: 0.1 })
  const answer = passed.json()
  t.ok(answer.wait_time > 0.1 && answer.wait_time < 5, `waited ${answer.wait_time} s for the file`)
  t.strictSame([passed.statusCode, { ...answer, wait_time: 0 }], [200, { status: 'success', output: 'started\n', error: '', returncode: 0, verification: 'passed', wait_time: 0 }])
  const failed = await postJson(app, url, { command: ['false'], verification: { command_success: 'test -f never', window_exists: 'Nothing' }, max_wait_time: 0.3, check_interval: 0.1 })
  t.strictSame([failed.statusCode, failed.json()], [504, {
    code: 'ERR_VERIFICATION_FAILED',
    error: 'Gateway Timeout',
    message: `${url}: the command ran (returncode 1) but no window's title contained "Nothing" and "test -f never" did not exit 0 within max_wait_time 0.3 s`,
    statusCode: 504,
  }])
})

t.test('/setup/launch with --shell: the program outlives the call and the commands after it, as the harness\'s Popen does', async (t) => {
  const fixture = desktopHome(t)
  const { guest: app } = await guest(t, { shell: { home: fixture.home, limits: shellLimits({ timeoutMs: 10_000 }) } })
  const launched = await postJson(app, '/setup/launch', { command: 'echo $$ > launched.pid; exec sleep 60', shell: true })
  t.strictSame([launched.statusCode, launched.body], [200, 'echo $$ > launched.pid; exec sleep 60 launched successfully'])
  const pidFile = join(fixture.home, 'launched.pid')
  let pid = 0
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && !pid;) {
    pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim())
    if (!pid) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.ok(pid > 0, 'the program started and wrote its PID')
  t.teardown(() => { try { process.kill(pid, 'SIGKILL') } catch {} })
  // A command after it ends everything it started itself, and nothing of the launched program's.
  const after = await postJson(app, '/setup/execute', { command: '(sleep 30 &) ; echo ran', shell: true })
  t.strictSame(after.json(), { status: 'success', output: 'ran\n', error: '', returncode: 0 })
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  t.match(status, /^State:\s+S/m, 'the launched program still runs')
  t.match(status, new RegExp(`^Uid:\\s+${fixture.user.uid}\\s`, 'm'), "as the desktop's user")
})

t.test('/setup/close_window: the matching window closed through the window manager and gone from the list; no match a 404 naming the open windows', async (t) => {
  const { guest: app, driver } = await guest(t)
  const titles = async () => (await driver.windows!.list()).map((window) => window.title)
  answeredError(t, await postJson(app, '/setup/close_window', { window_name: 'Mousepad', strict: true }), 404, 'ERR_WINDOW_NOT_FOUND',
    "no window titled 'Mousepad' to close; open windows: 'Terminal' (Xfce4-terminal), 'notes.txt - Mousepad' (Mousepad)")
  answeredError(t, await postJson(app, '/setup/close_window', {}), 400, 'ERR_INVALID_ACTION', "body must have required property 'window_name'")
  answeredError(t, await postJson(app, '/setup/close_window', { window_name: '' }), 400, 'ERR_INVALID_ACTION', 'body/window_name window_name must be a window title (or class, with by_class)')
  t.strictSame(driver.calls, [], 'nothing closed by a refused request')

  const cases: Array<[object, number, string[]]> = [
    [{ window_name: 'xfce4-terminal', by_class: true }, TERM.id, ['notes.txt - Mousepad']],
    [{ window_name: 'notes.txt - Mousepad', strict: true }, EDITOR.id, []],
  ]
  for (const [body, id, left] of cases) {
    const response = await postJson(app, '/setup/close_window', body)
    t.equal(response.statusCode, 200, JSON.stringify(body))
    t.equal(response.body, 'Window closed successfully.')
    t.strictSame(driver.calls.at(-1), { call: 'closeWindow', id }, JSON.stringify(body))
    t.strictSame(await titles(), left, 'gone from the window list')
  }
  answeredError(t, await postJson(app, '/setup/close_window', { window_name: 'mousepad' }), 404, 'ERR_WINDOW_NOT_FOUND', "no window titled 'mousepad' to close; open windows: none")
})

t.test('/setup/change_wallpaper: a picture in the home set through the desktop\'s setter; refusals name what is wrong; the minimal desktop says which has one', async (t) => {
  const set: string[] = []
  const failing = { now: false }
  const { guest: app, home } = await guest(t, {}, async (file) => {
    if (failing.now) throw new Error('xfconf-query -c xfce4-desktop -l failed: no session bus')
    set.push(file)
  })
  await mkdir(join(home, 'Pictures'))
  await writeFile(join(home, 'Pictures', 'sky.png'), 'png')
  const outside = await mkdtemp(join(tmpdir(), 'osworld-outside-'))
  t.teardown(() => rm(outside, { recursive: true, force: true }))
  await writeFile(join(outside, 'secret.png'), 'x')
  await symlink(join(outside, 'secret.png'), join(home, 'Pictures', 'out.png'))

  for (const path of ['~/Pictures/sky.png', join(home, 'Pictures', 'sky.png')]) {
    const response = await postJson(app, '/setup/change_wallpaper', { path })
    t.equal(response.statusCode, 200, path)
    t.equal(response.body, 'Wallpaper changed successfully')
  }
  t.strictSame(set, [join(home, 'Pictures', 'sky.png'), join(home, 'Pictures', 'sky.png')], 'the setter got the absolute path in the home')

  const refusals: Array<[object, number, string, string]> = [
    [{}, 400, 'ERR_INVALID_ACTION', "body must have required property 'path'"],
    [{ path: '' }, 400, 'ERR_INVALID_ACTION', 'body/path a path must be a non-empty string, at most 4096 characters'],
    [{ path: '/etc/passwd' }, 403, 'ERR_PATH_FORBIDDEN', `'/etc/passwd' lies outside the desktop's home (${home}): this server reads and writes files under it only; name it as ~/… or ${home}/…`],
    [{ path: '~/Pictures/none.png' }, 404, 'ERR_FILE_NOT_FOUND', "no picture at '~/Pictures/none.png' in the desktop's home"],
    [{ path: '~/Pictures/out.png' }, 404, 'ERR_FILE_NOT_FOUND', "no picture at '~/Pictures/out.png' in the desktop's home (it is a symlink)"],
    [{ path: '~/Pictures' }, 404, 'ERR_FILE_NOT_FOUND', "no picture at '~/Pictures' in the desktop's home (it is a directory)"],
  ]
  for (const [body, status, code, message] of refusals) answeredError(t, await postJson(app, '/setup/change_wallpaper', body), status, code, message)
  answeredError(t, await postJson(app, '/setup/change_wallpaper', { path: '~/../x.png' }), 403, 'ERR_PATH_FORBIDDEN',
    `'~/../x.png' lies outside the desktop's home (${home}): this server reads and writes files under it only; name it as ~/… or ${home}/…`)
  t.equal(set.length, 2, 'no refusal reached the setter')

  failing.now = true
  answeredError(t, await postJson(app, '/setup/change_wallpaper', { path: '~/Pictures/sky.png' }), 500, 'ERR_DRIVER_FAILURE',
    'the wallpaper could not be set: xfconf-query -c xfce4-desktop -l failed: no session bus')

  const { guest: minimal, home: bare } = await guest(t)
  await writeFile(join(bare, 'sky.png'), 'png')
  answeredError(t, await postJson(minimal, '/setup/change_wallpaper', { path: '~/sky.png' }), 400, 'ERR_UNSUPPORTED_ACTION',
    'this desktop draws no wallpaper: the minimal desktop is a window manager on a bare screen; the full desktop (--desktop full) has one')
})

/** A local HTTP server answering by path; ended by the test. */
async function origin (t: Test, routes: Record<string, (response: ServerResponse) => void>) {
  const server = createServer((request, response) => {
    const route = routes[request.url ?? '']
    if (route) route(response)
    else response.writeHead(404).end('no such file')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Every file under `dir`, temporaries included, relative to it. */
async function tree (dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort()
}

t.test('/setup/download_file: an http URL fetched into the home, redirects followed within http(s); every refusal names its cause and leaves nothing behind', async (t) => {
  const { guest: app, home } = await guest(t)
  const content = 'a,b\n1,2\n'
  const big = Buffer.alloc(1024 * 1024 + 1, 0x61)
  const base = await origin(t, {
    '/data.csv': (response) => response.writeHead(200, { 'content-type': 'text/csv' }).end(content),
    '/moved': (response) => response.writeHead(302, { location: '/data.csv' }).end(),
    '/to-ftp': (response) => response.writeHead(302, { location: 'ftp://127.0.0.1/data.csv' }).end(),
    '/to-file': (response) => response.writeHead(301, { location: 'file:///etc/passwd' }).end(),
    '/big': (response) => response.writeHead(200, { 'content-length': String(big.length) }).end(big),
    '/big-chunked': (response) => { response.writeHead(200); response.write(big.subarray(0, 600_000)); response.end(big.subarray(600_000)) },
    '/gone': (response) => response.writeHead(500).end('broken'),
  })
  // A port that was free a moment ago: nothing listens there.
  const closed = await new Promise<number>((resolve) => { const probe = createServer(); probe.listen(0, '127.0.0.1', () => { const { port } = probe.address() as AddressInfo; probe.close(() => resolve(port)) }) })
  await mkdir(join(home, 'Downloads'))
  const outside = await mkdtemp(join(tmpdir(), 'osworld-outside-'))
  t.teardown(() => rm(outside, { recursive: true, force: true }))
  await symlink(outside, join(home, 'Downloads', 'out'))

  for (const [url, path] of [[`${base}/data.csv`, '~/Downloads/a.csv'], [`${base}/moved`, `${home}/Downloads/new/b.csv`]] as const) {
    const response = await postJson(app, '/setup/download_file', { url, path })
    t.equal(response.statusCode, 200, url)
    t.equal(response.body, 'File downloaded successfully')
  }
  t.equal(await readFile(join(home, 'Downloads', 'a.csv'), 'utf8'), content)
  t.equal(await readFile(join(home, 'Downloads', 'new', 'b.csv'), 'utf8'), content, 'redirected, parents created')
  const before = await tree(home)
  t.strictSame(before, ['Downloads', 'Downloads/a.csv', 'Downloads/new', 'Downloads/new/b.csv', 'Downloads/out'])

  const refusals: Array<[object, number, string, string]> = [
    [{ path: '~/x' }, 400, 'ERR_INVALID_ACTION', "body must have required property 'url'"],
    [{ url: `${base}/data.csv` }, 400, 'ERR_INVALID_ACTION', "body must have required property 'path'"],
    [{ url: 'ftp://127.0.0.1/data.csv', path: '~/x' }, 400, 'ERR_INVALID_ACTION', 'body/url url must be an http:// or https:// URL'],
    [{ url: 'file:///etc/passwd', path: '~/x' }, 400, 'ERR_INVALID_ACTION', 'body/url url must be an http:// or https:// URL'],
    [{ url: 'http://', path: '~/x' }, 400, 'ERR_INVALID_ACTION', 'body/url url must be an absolute http:// or https:// URL; got "http://"'],
    [{ url: `${base}/data.csv`, path: '/etc/x' }, 403, 'ERR_PATH_FORBIDDEN', `'/etc/x' lies outside the desktop's home (${home}): this server reads and writes files under it only; name it as ~/… or ${home}/…`],
    [{ url: `${base}/data.csv`, path: '~/Downloads/../../x' }, 403, 'ERR_PATH_FORBIDDEN', `'~/Downloads/../../x' lies outside the desktop's home (${home}): this server reads and writes files under it only; name it as ~/… or ${home}/…`],
    [{ url: `${base}/to-ftp`, path: '~/Downloads/c.csv' }, 502, 'ERR_DOWNLOAD_FAILED', `${base}/to-ftp redirected to ftp: (ftp://127.0.0.1/data.csv), which this server does not follow: only http:// and https://`],
    [{ url: `${base}/to-file`, path: '~/Downloads/c.csv' }, 502, 'ERR_DOWNLOAD_FAILED', `${base}/to-file redirected to file: (file:///etc/passwd), which this server does not follow: only http:// and https://`],
    [{ url: `${base}/gone`, path: '~/Downloads/c.csv' }, 502, 'ERR_DOWNLOAD_FAILED', `${base}/gone answered 500 Internal Server Error: nothing was written`],
    [{ url: `http://127.0.0.1:${closed}/data.csv`, path: '~/Downloads/c.csv' }, 502, 'ERR_DOWNLOAD_FAILED', `could not fetch http://127.0.0.1:${closed}/data.csv: ECONNREFUSED`],
    [{ url: `${base}/big`, path: '~/Downloads/c.csv' }, 413, 'ERR_TOO_LARGE', 'the file is over the limit of 1048576 bytes (--max-file-size)'],
    [{ url: `${base}/big-chunked`, path: '~/Downloads/c.csv' }, 413, 'ERR_TOO_LARGE', 'the file is over the limit of 1048576 bytes (--max-file-size)'],
  ]
  for (const [body, status, code, message] of refusals) answeredError(t, await postJson(app, '/setup/download_file', body), status, code, message)
  answeredError(t, await postJson(app, '/setup/download_file', { url: `${base}/data.csv`, path: '~/Downloads/out/c.csv' }), 403, 'ERR_PATH_FORBIDDEN',
    "'Downloads/out' is a symbolic link leading out of the desktop's home directory")
  t.strictSame(await tree(home), before, 'nothing left behind in the home, no temporary file either')
  t.strictSame(await readdir(outside), [], 'nothing written through the link')
})

t.test('/setup/download_file\'s time limit: a URL that never answers, or whose body stalls, is a 504 naming the limit, and nothing is left behind', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'osworld-home-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const files = new FileStore({ home, maxFileSize: 1024 * 1024, maxTotal: 10 * 1024 * 1024 })
  const base = await origin(t, {
    '/silent': () => {},
    '/stalls': (response) => { response.writeHead(200, { 'content-length': '100' }); response.write('half of it') },
  })
  for (const path of ['/silent', '/stalls']) {
    const url = new URL(`${base}${path}`)
    const started = performance.now()
    const error = await download(files, url, 'Downloads/x.bin', 300).then(() => undefined, (caught: unknown) => caught)
    t.match(error, { statusCode: 504, code: 'ERR_DOWNLOAD_TIMEOUT', message: `${url.href} did not arrive whole within 0.3 s` }, path)
    t.ok(performance.now() - started < 5000, `${path}: given up on at the limit`)
  }
  t.strictSame(await tree(home), ['Downloads'], 'no file and no temporary left (the parent of the one whose body began stays)')
})
