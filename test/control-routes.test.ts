/**
 * The control lease through the app over the fake driver: GET /control, takeover and release
 * with their refusals; while a person holds the desktop, every acting path (the unified route,
 * a batch, the dialects, MCP, the editor, OSWorld's guest and its shell) answers 423 with who and
 * since when and a Retry-After, and the driver saw nothing; reads go on. request_human and
 * UI-TARS's call_user() wait for the release and carry the person's message; /health counts them;
 * the webhook is told; a recording marks the person's span.
 */
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build, post } from './helpers/build.ts'
import { until } from './helpers/desktop.ts'
import type { GuestShell } from '../src/osworld/shell.ts'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const taken = (holder: string) => new RegExp(`^the desktop is taken over by "${holder}" since \\d{4}-\\d\\d-\\d\\dT[^ ]+Z: nothing of this request ran\\. Reads \\(screenshots, the accessibility tree, windows, the cursor\\) still answer; act again once they hand it back \\(GET /control\\), at the latest [^ ]+Z$`)

async function homeDir (t: { teardown: (fn: () => unknown) => void }) {
  const home = await mkdtemp(join(tmpdir(), 'control-home-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  return home
}

async function mcpCall (app: Awaited<ReturnType<typeof build>>['app'], name: string, args: object) {
  const response = await app.inject({
    method: 'POST', url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  })
  const text = response.body
  const json = text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data: '))!.slice('data: '.length)
  return JSON.parse(json).result as { isError?: boolean, content: Array<{ type: string, text?: string }> }
}

t.test('takeover, the 423 on every acting path with nothing run, reads going on, and release', async (t) => {
  const home = await homeDir(t)
  const guestCalls: unknown[] = []
  const shell: GuestShell = {
    run: async (command) => { guestCalls.push(command); return { status: 'success', output: '', error: '', returncode: 0 } as never },
    launch: async (command) => { guestCalls.push(command) },
  }
  const wallpapers: string[] = []
  await writeFile(join(home, 'red.png'), 'not drawn')
  const { app, driver } = await build(t, {
    fake: { windows: [{ id: 0x400002, title: 'Terminal', instance: 'xterm', class: 'XTerm', pid: 102, rect: { x: 0, y: 0, width: 500, height: 400 } }] },
    files: { home, maxFileSize: 1 << 20, maxTotal: 1 << 24 },
    osworld: { files: { home, maxFileSize: 1 << 20, maxTotal: 1 << 24 }, shell, wallpaper: async (file) => { wallpapers.push(file) } },
  })
  const guest = app.osworldGuest!

  t.strictSame((await app.inject({ method: 'GET', url: '/control' })).json(), { lease: null, requests: [] })
  const takeover = await post(app, '/control/takeover', { holder: 'alice', timeout_s: 300 })
  t.equal(takeover.status, 200)
  t.match(takeover.body, { holder: 'alice', since: ISO, expires_at: ISO, via: 'api' })
  t.strictSame(Object.keys(takeover.body).sort(), ['expires_at', 'holder', 'since', 'via'])
  t.equal(Date.parse(takeover.body.expires_at) - Date.parse(takeover.body.since), 300_000)
  t.strictSame((await app.inject({ method: 'GET', url: '/control' })).json(), { lease: takeover.body, requests: [] })
  t.strictSame((await post(app, '/control/takeover', { holder: 'bob' })).body, {
    statusCode: 409, code: 'ERR_CONTROL_CONFLICT', error: 'Conflict',
    message: `the desktop is already taken over by "alice" since ${takeover.body.since}; they hand it back with POST /control/release (or the live view's "Hand back")`,
  })
  const health = (await app.inject({ method: 'GET', url: '/health' })).json()
  t.strictSame(health.control, { taken_over: true, waiting: 0, oldest_wait_ms: null })

  const before = driver.calls.length
  const refused: Array<[string, () => Promise<{ status: number, body: any, headers: IncomingHttpHeaders | OutgoingHttpHeaders }>, (body: any) => any]> = [
    ['/computer click', () => post(app, '/computer', { action: 'click_mouse', button: 'left', coordinates: [10, 10] }), (body) => body],
    ['/computer batch with a read first', () => post(app, '/computer/batch', { actions: [{ action: 'take_screenshot' }, { action: 'type_text', text: 'x' }] }), (body) => body],
    ['/computer edit', () => post(app, '/computer', { action: 'edit', command: 'create', path: 'a.txt', file_text: 'hi' }), (body) => body],
    ['/computer/anthropic', () => post(app, '/computer/anthropic?tool_version=computer_20251124', { action: 'left_click', coordinate: [10, 10] }), (body) => body.content?.[0]?.text ?? body],
    ['/computer/uitars', async () => {
      const response = await app.inject({ method: 'POST', url: '/computer/uitars', headers: { 'content-type': 'text/plain' }, payload: "Action: click(start_box='(100,100)')" })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    }, (body) => body.error],
    ['/computer/pyautogui', async () => {
      const response = await app.inject({ method: 'POST', url: '/computer/pyautogui', headers: { 'content-type': 'text/plain' }, payload: 'pyautogui.click(10, 10)' })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    }, (body) => body.error],
    ['OSWorld /execute (pyautogui)', async () => {
      const response = await guest.inject({ method: 'POST', url: '/execute', payload: { command: ['python', '-c', 'import pyautogui; pyautogui.click(10, 10)'], shell: false } })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    }, (body) => body],
    ['OSWorld /execute (shell)', async () => {
      const response = await guest.inject({ method: 'POST', url: '/execute', payload: { command: ['ls', '-l'], shell: false } })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    }, (body) => body],
    ['/files PUT', async () => {
      const response = await app.inject({ method: 'PUT', url: '/files/new.txt', headers: { 'content-type': 'application/octet-stream' }, payload: 'written' })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    }, (body) => body],
    ['/files DELETE', async () => {
      const response = await app.inject({ method: 'DELETE', url: '/files/red.png' })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    }, (body) => body],
    ...([
      ['/setup/launch', { command: ['some-program'], shell: false }],
      ['/setup/execute_with_verification', { command: ['some-program'], shell: false, verification: { window_exists: 'x' }, max_wait_time: 1 }],
      ['/setup/close_window', { window_name: 'Terminal', strict: true }],
      ['/setup/change_wallpaper', { path: 'red.png' }],
    ] as const).map(([url, payload]) => [`OSWorld ${url}`, async () => {
      const response = await guest.inject({ method: 'POST', url, payload })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    }, (body: unknown) => body] as [string, () => Promise<{ status: number, body: any, headers: IncomingHttpHeaders | OutgoingHttpHeaders }>, (body: any) => any]),
  ]
  for (const [name, call, errorOf] of refused) {
    const { status, body, headers } = await call()
    t.equal(status, 423, `${name}: 423`)
    const error = errorOf(body)
    if (typeof error === 'string') t.match(error, /the desktop is taken over by "alice"/, `${name}: names the holder`)
    else {
      t.match(error, { statusCode: 423, code: 'ERR_DESKTOP_TAKEN_OVER', error: 'Locked', message: taken('alice') }, `${name}: the error`)
      t.strictSame(Object.keys(error).sort(), ['code', 'error', 'message', 'statusCode'], `${name}: the whole error body`)
    }
    t.equal(headers['retry-after'], '10', `${name}: Retry-After`)
  }
  const mcp = await mcpCall(app, 'click_mouse', { button: 'left', coordinates: [10, 10] })
  t.equal(mcp.isError, true, 'MCP: an error result')
  t.match(mcp.content[0]!.text, /the desktop is taken over by "alice"/, 'MCP: naming the holder')
  t.equal(driver.calls.length, before, 'the driver saw no input from any of them')
  t.strictSame(guestCalls, [], 'and OSWorld\'s shell ran nothing')
  t.strictSame(wallpapers, [], 'nor set the wallpaper')
  t.strictSame((await readdir(home)).sort(), ['red.png'], 'no file written or deleted')

  const reads = await post(app, '/computer/batch', { actions: [{ action: 'take_screenshot' }, { action: 'get_cursor_position' }, { action: 'wait', duration: 0.01 }] })
  t.equal(reads.status, 200, 'reads go on')
  t.equal(reads.body.results.length, 3)
  t.equal((await app.inject({ method: 'GET', url: '/files' })).statusCode, 200, 'a file listing too')

  const released = await post(app, '/control/release', { message: 'all yours' })
  t.strictSame(released.body, { released: takeover.body, held_ms: released.body.held_ms, answered: 0 })
  t.ok(Number.isInteger(released.body.held_ms) && released.body.held_ms >= 0)
  t.strictSame((await post(app, '/control/release', {})).body, {
    statusCode: 409, code: 'ERR_CONTROL_CONFLICT', error: 'Conflict', message: 'nobody holds the desktop: there is no lease to release (GET /control)',
  })
  const click = await post(app, '/computer', { action: 'click_mouse', button: 'left', coordinates: [10, 10] })
  t.equal(click.status, 200, 'the agent acts again')
  t.ok(driver.calls.length > before, 'and the driver sees it')
})

t.test('bad bodies are 400s naming the field; a body-less POST is an empty one', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string, object, string]> = [
    ['/control/takeover', { holder: '' }, 'holder must be a name of 1 to 64 printable characters'],
    ['/control/takeover', { holder: 'a\nb' }, 'holder must be a name of 1 to 64 printable characters'],
    ['/control/takeover', { timeout_s: 0 }, 'timeout_s must be a whole number of seconds from 1 to 14400'],
    ['/control/takeover', { timeout_s: 1.5 }, 'timeout_s must be a whole number of seconds from 1 to 14400'],
    ['/control/takeover', { owner: 'x' }, "unknown field 'owner' (allowed: holder, timeout_s)"],
    ['/control/release', { message: 'x'.repeat(2001) }, 'message must be text of at most 2000 characters'],
    ['/computer', { action: 'request_human', message: '' }, 'message must be text of 1 to 2000 characters'],
    ['/computer', { action: 'request_human', message: 'hi', timeout_s: 3601 }, 'timeout_s must be a whole number of seconds from 1 to 3600'],
    ['/computer/batch', { actions: [{ action: 'request_human', message: 'hi' }, { action: 'wait', duration: 1 }] }, 'actions[0]: request_human must be the last action of its batch (it is action 0 of 2): send what follows it in the next request'],
  ]
  for (const [url, body, message] of cases) {
    const answer = await post(app, url, body)
    t.equal(answer.status, 400, `${url} ${JSON.stringify(body)}`)
    t.strictSame({ statusCode: answer.body.statusCode, message: answer.body.message }, { statusCode: 400, message }, message)
  }
  const bare = await app.inject({ method: 'POST', url: '/control/takeover' })
  t.equal(bare.statusCode, 200, 'no body: the defaults')
  t.match(bare.json(), { holder: 'operator', via: 'api' })
  t.equal((await app.inject({ method: 'POST', url: '/control/release' })).statusCode, 200)
})

t.test('request_human waits for a person: /health and GET /control show it, the release answers it with the message', async (t) => {
  const { app } = await build(t)
  const asking = post(app, '/computer', { action: 'request_human', message: 'please solve the CAPTCHA', timeout_s: 60 })
  t.ok(await until(async () => (await app.inject({ method: 'GET', url: '/control' })).json().requests.length === 1, 5000), 'the request shows')
  const state = (await app.inject({ method: 'GET', url: '/control' })).json()
  t.match(state, { lease: null, requests: [{ message: 'please solve the CAPTCHA', since: ISO, until: ISO }] })
  t.match((await app.inject({ method: 'GET', url: '/health' })).json().control, { taken_over: false, waiting: 1, oldest_wait_ms: Number })
  t.equal((await post(app, '/computer', { action: 'take_screenshot' })).status, 200, 'the queue is not held by the wait')
  await post(app, '/control/takeover', { holder: 'alice' })
  await new Promise((resolve) => setTimeout(resolve, 50))
  await post(app, '/control/release', { message: 'solved it' })
  const answer = await asking
  t.equal(answer.status, 200)
  t.match(answer.body, { output: /^alice took the desktop over for \d+ s and handed it back: solved it$/, error: null, base64_image: null, cursor_position: [Number, Number] })
  t.match(answer.body.human, { outcome: 'released', message: 'solved it', holder: 'alice', held_ms: Number, waited_ms: Number })
  t.ok(answer.body.human.held_ms >= 50)
  t.strictSame((await app.inject({ method: 'GET', url: '/health' })).json().control, { taken_over: false, waiting: 0, oldest_wait_ms: null })

  const alone = await post(app, '/computer', { action: 'request_human', message: 'anyone?', timeout_s: 1 })
  t.equal(alone.status, 200, 'nobody came: still a 200')
  t.match(alone.body, { output: 'nobody took the desktop over within 1 s', human: { outcome: 'timed_out', message: null, holder: null, held_ms: null, waited_ms: Number } })
})

t.test("UI-TARS's call_user() blocks until the release and returns the person's message", async (t) => {
  const { app } = await build(t)
  const asking = app.inject({ method: 'POST', url: '/computer/uitars', headers: { 'content-type': 'text/plain' }, payload: "Thought: a login form.\nAction: call_user(content='Please log in for me')" })
  t.ok(await until(async () => (await app.inject({ method: 'GET', url: '/control' })).json().requests.length === 1, 5000))
  t.equal((await app.inject({ method: 'GET', url: '/control' })).json().requests[0].message, 'Please log in for me')
  await post(app, '/control/takeover', { holder: 'bob' })
  await post(app, '/control/release', { message: 'logged in as demo' })
  const answer = (await asking).json()
  t.match(answer, { call_user: 'Please log in for me', human: { outcome: 'released', message: 'logged in as demo', holder: 'bob' }, error: null })
  t.match(answer.calls, [{ name: 'call_user', status: 'done', actions: [{ action: 'request_human', message: 'Please log in for me' }] }])
})

t.test('the webhook gets {desktop, message, since} and no token; its failure is logged without the message', async (t) => {
  const received: Array<{ headers: IncomingHttpHeaders, body: string }> = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => { body += chunk })
    request.on('end', () => { received.push({ headers: request.headers, body }); response.end() })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const { app } = await build(t, { token: 'control-test-token-0123456789', humanWebhook: url, desktopName: 'desk-1' })
  const auth = { authorization: 'Bearer control-test-token-0123456789' }
  const asking = post(app, '/computer', { action: 'request_human', message: 'secret-free question', timeout_s: 1 }, auth)
  t.ok(await until(() => received.length === 1, 5000), 'the webhook was called')
  const [hook] = received
  t.match(JSON.parse(hook!.body), { desktop: 'desk-1', message: 'secret-free question', since: ISO })
  t.strictSame(Object.keys(JSON.parse(hook!.body)).sort(), ['desktop', 'message', 'since'])
  t.equal(hook!.headers.authorization, undefined, 'no token goes with it')
  t.equal((await asking).body.human.outcome, 'timed_out')

  const failing = createServer((request, response) => { request.resume(); response.statusCode = 500; response.end('no') })
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => failing.close(resolve)))
  const erring = await build(t, { humanWebhook: `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hook` })
  await post(erring.app, '/computer', { action: 'request_human', message: 'keep me out of logs', timeout_s: 1 })
  t.ok(await until(() => erring.logs.some((line) => line.msg === 'the human webhook answered an error' && line.status === 500), 5000), 'an error answer is logged with its status')
  t.notOk(erring.lines.some((line) => line.includes('keep me out of logs')), 'without the message')

  const closed = await build(t, { humanWebhook: 'http://127.0.0.1:1/hook' })
  await post(closed.app, '/computer', { action: 'request_human', message: 'do not log me', timeout_s: 1 })
  t.ok(await until(() => closed.logs.some((line) => line.msg === 'the human webhook could not be reached'), 5000), 'the failure is logged')
  t.notOk(closed.lines.some((line) => line.includes('do not log me')), 'without the message')
})

t.test("a recording marks the person's span", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'control-recordings-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const { app } = await build(t, { recording: { dir, maxBytes: 1 << 30, maxAgeMs: 3_600_000, idleMs: 60_000, minFreeBytes: 0 } })
  t.equal((await post(app, '/computer', { action: 'click_mouse', button: 'left', coordinates: [5, 5] }, { 'x-recording-id': 'ep1' })).status, 200)
  await post(app, '/control/takeover', { holder: 'alice' })
  await post(app, '/control/release', { message: 'private words' })
  t.equal((await post(app, '/computer', { action: 'click_mouse', button: 'left', coordinates: [6, 6] }, { 'x-recording-id': 'ep1' })).status, 200)
  const steps = await until(async () => (await app.inject({ method: 'GET', url: '/recordings/ep1' })).json().steps?.length === 4, 5000)
  t.ok(steps, 'four steps')
  const detail = (await app.inject({ method: 'GET', url: '/recordings/ep1' })).json()
  t.strictSame(detail.steps.map((step: { method: string, route: string }) => `${step.method} ${step.route}`), ['POST /computer', 'EVENT /control/takeover', 'EVENT /control/release', 'POST /computer'])
  t.match(detail.steps[1].payload, { holder: 'alice', since: ISO, via: 'api' })
  t.match(detail.steps[2].payload, { holder: 'alice', since: ISO, reason: 'released', held_ms: Number })
  t.notOk(JSON.stringify(detail).includes('private words'), 'the person\'s message is not kept')
})

t.test('--human-webhook: an http(s) URL, else a configuration error naming the flag', async (t) => {
  const { loadConfig } = await import('../src/runtime/config.ts')
  t.equal(loadConfig([], {}).humanWebhook, undefined, 'off by default')
  t.equal(loadConfig(['--human-webhook', 'https://hooks.example/desk?x=1'], {}).humanWebhook, 'https://hooks.example/desk?x=1')
  t.equal(loadConfig([], { HUMAN_WEBHOOK: 'http://127.0.0.1:9000/h' }).humanWebhook, 'http://127.0.0.1:9000/h')
  for (const [value, message] of <Array<[string, string]>>[
    ['hooks.example/desk', '--human-webhook must be an absolute http(s) URL, not "hooks.example/desk"'],
    ['ftp://hooks.example/desk', '--human-webhook must be an http(s) URL, not ftp:'],
  ]) {
    t.throws(() => loadConfig(['--human-webhook', value], {}), { code: 'ERR_INVALID_CONFIG', message }, value)
  }
})

t.test('closing the server answers a waiting request_human with a 503 at once', async (t) => {
  const { app } = await build(t)
  const asking = post(app, '/computer', { action: 'request_human', message: 'anyone?', timeout_s: 600 })
  t.ok(await until(() => app.control.requests.length === 1, 5000))
  const started = Date.now()
  await app.close()
  const answer = await asking
  t.ok(Date.now() - started < 5000, 'without waiting out its timeout')
  t.strictSame(answer.body, { statusCode: 503, code: 'ERR_DESKTOP_UNAVAILABLE', error: 'Service Unavailable', message: 'the server is shutting down: nobody will answer this request for a person here; ask again once it is back' })
})

t.test('MCP: request_human is a tool, answered when the person hands back', async (t) => {
  const { app } = await build(t)
  const asking = mcpCall(app, 'request_human', { message: 'confirm the purchase?', timeout_s: 60 })
  t.ok(await until(() => app.control.requests.length === 1, 5000), 'it waits')
  app.control.takeover({ holder: 'carol' })
  await app.control.release({ message: 'confirmed' })
  const result = await asking as { isError?: boolean, structuredContent?: { human?: unknown } }
  t.notOk(result.isError)
  t.match(result.structuredContent?.human, { outcome: 'released', message: 'confirmed', holder: 'carol' })
})
