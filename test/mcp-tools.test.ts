/**
 * The MCP endpoint's logic over the fake driver, through the official SDK client on a real
 * socket: the tool list and its schemas, calls reaching the driver through the executor,
 * refusals as isError with the HTTP route's very messages, and the app's token and Origin
 * rules on /mcp.
 */
import { request as httpRequest } from 'node:http'
import t from 'tap'
import AjvModule from 'ajv/dist/2020.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { build, post, type BuildOptions } from './helpers/build.ts'
import { until } from './helpers/desktop.ts'
import { recordedSource } from './helpers/a11y.ts'

const Ajv2020 = AjvModule.default
const TOKEN = 'mcp-test-token-0123456789'

type Built = Awaited<ReturnType<typeof build>>

async function listening (t: { teardown: (fn: () => unknown) => void }, options: BuildOptions = {}) {
  const built = await build(t, { token: TOKEN, ...options })
  await built.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = built.app.server.address() as { port: number }
  return { ...built, url: `http://127.0.0.1:${port}/mcp` }
}
/** fetch will not send a Host of our choosing; node:http will. Resolves with the status. */
function rawPost (url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers }, (response) => { response.resume(); resolve(response.statusCode!) })
    request.on('error', reject)
    request.end(body)
  })
}

async function connect (t: { teardown: (fn: () => unknown) => void }, url: string, token: string | undefined = TOKEN) {
  const client = new Client({ name: 'mcp-tools-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token && { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

const ALL_TOOLS = [
  'move_mouse', 'click_mouse', 'drag_mouse', 'scroll', 'press_key', 'type_text', 'wait', 'take_screenshot',
  'get_cursor_position', 'list_windows', 'focus_window', 'launch_app', 'set_window_geometry',
  'get_accessibility_tree', 'element_action', 'request_human', 'batch',
]
const READ_ONLY = ['wait', 'take_screenshot', 'get_cursor_position', 'list_windows', 'get_accessibility_tree', 'request_human']

t.test('tools/list: every tool, with input and output schemas a JSON Schema validator compiles', async (t) => {
  const { url } = await listening(t)
  const client = await connect(t, url)
  const { tools } = await client.listTools()
  t.strictSame(tools.map((tool) => tool.name).sort(), [...ALL_TOOLS].sort())
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  for (const tool of tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name}: input is an object`)
    t.ok(tool.description && tool.description.length > 40, `${tool.name}: described for a model`)
    t.equal(tool.annotations?.readOnlyHint, READ_ONLY.includes(tool.name), `${tool.name}: readOnlyHint`)
    const input = ajv.compile(tool.inputSchema)
    ajv.compile(tool.outputSchema!)
    t.notOk(JSON.stringify(tool.inputSchema).includes('errorMessage'), `${tool.name}: no server-only keywords`)
    if (tool.name === 'click_mouse') {
      t.ok(input({ button: 'left', coordinates: [10, 20], display_width_px: 1024, display_height_px: 640 }), 'a click validates')
      t.notOk(input({ button: 'nope' }), 'a wrong button does not')
      t.notOk(input({ action: 'click_mouse', button: 'left' }), 'the action tag is the tool name, not an argument')
    }
    if (tool.name === 'batch') {
      t.ok(input({ actions: [{ action: 'move_mouse', coordinates: [1, 2] }, { action: 'focus_window', window: { title: 'x' } }] }), 'a batch validates, $refs resolved')
      t.notOk(input({ actions: [{ action: 'fly' }] }))
    }
  }
})

t.test('the window tools are listed only when the desktop has a window manager', async (t) => {
  const { url, driver } = await listening(t)
  driver.windows!.unavailableReason = 'no window manager runs on :99'
  const client = await connect(t, url)
  const names = (await client.listTools()).tools.map((tool) => tool.name)
  t.notOk(names.includes('list_windows') || names.includes('focus_window') || names.includes('launch_app') || names.includes('set_window_geometry'))
  t.ok(names.includes('click_mouse'))
  const called = await client.callTool({ name: 'list_windows', arguments: {} })
  t.equal(called.isError, true, 'called anyway: refused as a tool result')
  t.match((called.content as Array<{ text: string }>)[0]!.text, /no window manager/)
})

t.test('a call runs through the executor: driver calls, scaling, structured result', async (t) => {
  const { url, driver } = await listening(t)
  const client = await connect(t, url)
  const clicked = await client.callTool({ name: 'click_mouse', arguments: { button: 'left', coordinates: [512, 320], display_width_px: 1024, display_height_px: 640 } })
  t.notOk(clicked.isError)
  t.strictSame(driver.calls.filter((c) => c.call !== 'screenshot'), [
    { call: 'moveMouse', x: 640, y: 400 }, { call: 'buttonDown', button: 'left' }, { call: 'buttonUp', button: 'left' },
  ], 'scaled from the declared 1024x640 to the 1280x800 screen')
  t.match(clicked.structuredContent, { error: null, cursor_position: [512, 320] })
  t.notOk(Object.hasOwn(clicked.structuredContent ?? {}, 'base64_image'), 'no image in the JSON')
  t.match((clicked.content as Array<{ type: string, text: string }>)[0], { type: 'text', text: /cursor at \(512, 320\)/ })

  const shot = await client.callTool({ name: 'take_screenshot', arguments: { display_width_px: 640, display_height_px: 400 } })
  const image = (shot.content as Array<{ type: string, data?: string, mimeType?: string }>).find((c) => c.type === 'image')!
  t.equal(image.mimeType, 'image/png')
  const png = Buffer.from(image.data!, 'base64')
  t.strictSame([png.readUInt32BE(16), png.readUInt32BE(20)], [640, 400], 'the PNG is the declared size')

  const batch = await client.callTool({ name: 'batch', arguments: { actions: [{ action: 'move_mouse', coordinates: [5, 6] }, { action: 'get_cursor_position' }] } })
  t.notOk(batch.isError)
  t.match(batch.structuredContent, { results: [{ cursor_position: [5, 6] }, { cursor_position: [5, 6] }] })
})

t.test('the server option sets the size a client sees when a call declares none', async (t) => {
  const { url, driver } = await listening(t, { mcpDisplay: { width: 640, height: 400 } })
  const client = await connect(t, url)
  await client.callTool({ name: 'move_mouse', arguments: { coordinates: [320, 200] } })
  // Pixel centre to pixel centre: the client's pixel 320 covers the real 640 and 641.
  t.match(driver.calls.at(-1), { call: 'moveMouse', x: 641, y: 401 })
  const shot = await client.callTool({ name: 'take_screenshot', arguments: {} })
  const png = Buffer.from((shot.content as Array<{ data?: string }>).find((c) => c.data)!.data!, 'base64')
  t.strictSame([png.readUInt32BE(16), png.readUInt32BE(20)], [640, 400])
  const declared = await client.callTool({ name: 'get_cursor_position', arguments: { display_width_px: 1280, display_height_px: 800 } })
  t.match(declared.structuredContent, { cursor_position: [641, 401] }, 'a call\'s own size wins')
  t.equal((declared.content as Array<{ text: string }>)[0]!.text, 'cursor at (641, 401)', 'said once')
})

t.test('get_accessibility_tree answers compact CUP text by default; element_action acts on its ids', async (t) => {
  const { url } = await listening(t, { accessibility: await recordedSource() })
  const client = await connect(t, url)
  const compact = await client.callTool({ name: 'get_accessibility_tree', arguments: { scope: 'full' } })
  t.notOk(compact.isError)
  const text = (compact.content as Array<{ text: string }>)[0]!.text
  t.match(text, /^# CUP \d+\.\d+\.\d+ \| linux \| 1280x800/m, 'CUP compact text')
  t.match(compact.structuredContent, { text: String, truncated: false })
  t.notOk(Object.hasOwn(compact.structuredContent ?? {}, 'accessibility'), 'no envelope unless asked')
  const save = /\[(e\d+)\] btn "Save"/.exec(text)
  t.ok(save, 'the Save button has an id')
  // The SDK client checks structuredContent against the tool's outputSchema: the recursive CUP schema resolves.
  const json = await client.callTool({ name: 'get_accessibility_tree', arguments: { scope: 'full', format: 'json' } })
  t.match(json.structuredContent, { accessibility: { platform: 'linux', tree: Array } })
  const clicked = await client.callTool({ name: 'element_action', arguments: { element: save![1], verb: 'click' } })
  t.notOk(clicked.isError, (clicked.content as Array<{ text: string }>)[0]!.text)
  t.match(clicked.structuredContent, { element: { role: 'button', name: 'Save' } })
  const stale = await client.callTool({ name: 'element_action', arguments: { element: 'e9999', verb: 'click' } })
  t.equal(stale.isError, true)
  t.match((stale.content as Array<{ text: string }>)[0]!.text, /take a new snapshot/)
})

/** What POST /computer (or /computer/batch) answers for the same action, and what MCP does. */
async function both (t: { teardown: (fn: () => unknown) => void }, built: Built & { url: string }, client: Client, name: string, args: Record<string, unknown>, query = '') {
  const auth = { authorization: `Bearer ${TOKEN}` }
  const http = name === 'batch'
    ? await post(built.app, `/computer/batch${query}`, args, auth)
    : await post(built.app, `/computer${query}`, { action: name, ...args }, auth)
  const mcpArgs = { ...args, ...Object.fromEntries([...new URLSearchParams(query.slice(1)).entries()].map(([k, v]) => [k, Number(v)])) }
  const mcp = await client.callTool({ name, arguments: mcpArgs })
  return { http, mcp, text: (mcp.content as Array<{ text: string }>)[0]!.text }
}

t.test('refusals are isError results with the HTTP route\'s message, and leave nothing held', async (t) => {
  const built = await listening(t)
  const client = await connect(t, built.url)
  const cases: Array<[string, Record<string, unknown>, string?]> = [
    ['press_key', { keys: ['ctrl', 'nosuchkey'] }],
    ['press_key', { keys: [] }],
    ['click_mouse', { coordinates: [1, 2] }],
    ['click_mouse', { button: 'left', coordinates: [1300, 2] }],
    ['click_mouse', { button: 'left', colour: 'red' }],
    ['move_mouse', { coordinates: [1100, 700] }, '?display_width_px=1024&display_height_px=640'],
    ['move_mouse', { coordinates: [1, 1] }, '?display_width_px=9000&display_height_px=640'],
    ['type_text', { text: '' }],
    ['wait', { duration: 600 }],
    ['focus_window', { window: { title: 'no such window' } }],
    ['launch_app', { name: 'calculator' }],
    ['batch', { actions: [{ action: 'move_mouse', coordinates: [1, 1] }, { action: 'press_key', keys: ['nosuchkey'] }] }],
    ['batch', { actions: [{ action: 'move_mouse', coordinates: [1, 1] }, { action: 'type_text' }] }],
  ]
  for (const [name, args, query] of cases) {
    const { http, mcp, text } = await both(t, built, client, name, args, query)
    t.ok(http.status >= 400, `${name} ${JSON.stringify(args)}: HTTP refuses (${http.status})`)
    t.equal(mcp.isError, true, `${name}: MCP answers isError`)
    t.equal(text, http.body.message, `${name}: the same message: ${text}`)
  }
  const shot = await client.callTool({ name: 'click_mouse', arguments: { button: 'left', coordinates: [9, 9], screenshot: true } })
  t.strictSame((shot.content as Array<{ type: string }>).map((c) => c.type), ['text', 'image'], 'screenshot: true attaches an image')
  t.strictSame(built.app.executor.held(), { keys: [], buttons: [] }, 'nothing held')

  const failing = await listening(t, { fake: { beforeCall: (call) => { if (call.call === 'buttonUp') throw new Error('the X server broke') } } })
  const failingClient = await connect(t, failing.url)
  const { http, mcp, text } = await both(t, failing, failingClient, 'click_mouse', { button: 'left', coordinates: [3, 4] })
  t.equal(http.status, 500)
  t.equal(mcp.isError, true)
  t.equal(text, http.body.message, `a driver failure: ${text}`)
  t.strictSame(failing.app.executor.held(), { keys: [], buttons: [] }, 'the button was released')

  const unknown = await client.callTool({ name: 'teleport', arguments: {} })
  t.equal(unknown.isError, true)
  t.match((unknown.content as Array<{ text: string }>)[0]!.text, /unknown tool 'teleport' \(one of: move_mouse, click_mouse/)
})

t.test('a client that goes away mid-call stops its action, and nothing stays held', async (t) => {
  const { url, app } = await listening(t)
  const controller = new AbortController()
  const call = fetch(url, {
    method: 'POST',
    signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'batch', arguments: { actions: [{ action: 'press_key', keys: ['shift'], press_type: 'down' }, { action: 'wait', duration: 30 }] } } }),
  }).catch((error: Error) => error)
  t.ok(await until(() => app.executor.held().keys.length === 1), 'shift is down, the wait runs')
  controller.abort()
  t.type(await call, Error, 'the client gave up')
  t.ok(await until(() => app.executor.pending === 0 && app.executor.held().keys.length === 0), 'the wait stopped and shift was released at once, not after 30 s')
})

t.test('/mcp is behind the token and the Origin/Host rules', async (t) => {
  const { url, lines } = await listening(t)
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } })
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const none = await fetch(url, { method: 'POST', headers, body: initialize })
  t.equal(none.status, 401)
  t.match(await none.json(), { code: 'ERR_UNAUTHORIZED', message: /Authorization: Bearer/ })
  const wrong = await fetch(url, { method: 'POST', headers: { ...headers, authorization: 'Bearer nope' }, body: initialize })
  t.equal(wrong.status, 401)
  await t.rejects(connect(t, url, ''), { message: /401[^]*Authorization: Bearer/ }, 'the SDK client without the token cannot connect')
  const page = await fetch(url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' }, body: initialize })
  t.equal(page.status, 403)
  t.match(await page.json(), { code: 'ERR_FORBIDDEN_ORIGIN' })
  const rebound = await rawPost(url, { ...headers, authorization: `Bearer ${TOKEN}`, host: 'attacker.example' }, initialize)
  t.equal(rebound, 403, 'a foreign Host (DNS rebinding) is refused')
  const ok = await fetch(url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${TOKEN}` }, body: initialize })
  t.equal(ok.status, 200)
  t.match(await ok.json(), { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'computer-gateway' }, capabilities: { tools: {} } } })
  const get = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' } })
  t.equal(get.status, 405)
  t.equal(get.headers.get('allow'), 'POST, DELETE')
  t.match(await get.json(), { code: 'ERR_METHOD_NOT_ALLOWED' })
  t.notOk(lines.some((line) => line.includes(TOKEN)), 'the token is never logged')
})

t.test('an allowed origin gets its CORS header on the MCP answer', async (t) => {
  const { url } = await listening(t, { allowOrigins: ['http://localhost:6274'] })
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, origin: 'http://localhost:6274' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  t.equal(response.status, 200)
  t.equal(response.headers.get('access-control-allow-origin'), 'http://localhost:6274')
})
