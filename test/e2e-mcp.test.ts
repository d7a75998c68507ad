/**
 * End to end: MCP clients (the official SDK's Client over Streamable HTTP, and over stdio
 * against `computer-gateway mcp`) driving the real nut driver on an Xvfb of this file's own,
 * every effect checked in Chromium (the event oracle, test/helpers/oracle.ts) or in X.
 */
import { decode } from './helpers/pixels.ts'
import pino from 'pino'
import t from 'tap'
import AjvModule from 'ajv/dist/2020.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { buildApp } from '../src/http/app.ts'
import { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { xEnv } from '../drivers/x11/authority.ts'
import { heldOnX, startDesktop, until } from './helpers/desktop.ts'
import { startOracle, type OracleEvent } from './helpers/oracle.ts'
import { which } from './helpers/processes.ts'
import { running } from './helpers/process-table.ts'

const Ajv2020 = AjvModule.default
const TOKEN = 'e2e-mcp-token-0123456789abcdef'
const of = (events: OracleEvent[], type: string) => events.filter((e) => e.type === type)
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Content = Array<{ type: string, text?: string, data?: string, mimeType?: string }>
const textOf = (result: unknown) => ((result as { content: Content }).content)[0]!.text!
const imageOf = (result: unknown) => ((result as { content: Content }).content).find((c) => c.type === 'image')

// Set up in t.before, so that a failure there still runs every teardown (no stray processes).
let display: string
let app: Awaited<ReturnType<typeof buildApp>>
let url: string
let oracle: Awaited<ReturnType<typeof startOracle>>
t.before(async () => {
  display = (await startDesktop(t)).display
    // The nut driver as the server runs it: with window control (the oracle's jwm manages the windows).
  const silent = pino({ level: 'silent' })
  app = await buildApp({ driver: new SupervisedDesktop({ display, screen: '1280x800x24', log: silent }), token: TOKEN, logger: silent, desktop: { display } })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/mcp`
  oracle = await startOracle(t, display)
})

async function httpClient (t: { teardown: (fn: () => unknown) => void }, name = 'e2e-mcp') {
  const client = new Client({ name, version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }))
  t.teardown(() => client.close())
  return client
}

/** Clicks into the textarea and empties it, so a test types into a clean field. */
async function clearTextarea (client: Client) {
  await client.callTool({ name: 'click_mouse', arguments: { button: 'left', coordinates: [300, 100] } })
  await client.callTool({ name: 'press_key', arguments: { keys: ['ctrl', 'a'] } })
  await client.callTool({ name: 'press_key', arguments: { keys: ['BackSpace'] } })
  await pause(600) // past Chromium's multi-click interval
  oracle.clear()
}

t.test('tools/list over HTTP: every tool, the window tools too (jwm runs)', async (t) => {
  const client = await httpClient(t)
  const { tools } = await client.listTools()
  const ajv = new Ajv2020({ strict: true })
  for (const tool of tools) {
    t.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name}: a valid input schema`)
    t.doesNotThrow(() => ajv.compile(tool.outputSchema!), `${tool.name}: a valid output schema`)
  }
  const names = tools.map((tool) => tool.name)
  t.strictSame(names.sort(), [
    'batch', 'click_mouse', 'drag_mouse', 'element_action', 'focus_window', 'get_accessibility_tree', 'get_cursor_position',
    'launch_app', 'list_windows', 'move_mouse', 'press_key', 'request_human', 'scroll', 'set_window_geometry', 'take_screenshot', 'type_text', 'wait',
  ])
})

t.test('a click through MCP reaches Chromium at the right pixel, also in a declared space', async (t) => {
  const client = await httpClient(t)
  oracle.clear()
  const result = await client.callTool({ name: 'click_mouse', arguments: { button: 'left', coordinates: [700, 600] } })
  t.notOk(result.isError, textOf(result))
  let events = await oracle.until((e) => of(e, 'click').length >= 1)
  t.match(of(events, 'mousedown'), [{ button: 0, x: 700, y: 600 }])
  t.match(of(events, 'click'), [{ x: 700, y: 600 }])
  await pause(600)
  oracle.clear()
  // 1024x640 is the 1280x800 screen at 0.8: the client's (512, 480) is the real (640, 600).
  const scaled = await client.callTool({ name: 'click_mouse', arguments: { button: 'right', coordinates: [512, 480], display_width_px: 1024, display_height_px: 640 } })
  t.match(scaled.structuredContent, { cursor_position: [512, 480] })
  events = await oracle.until((e) => of(e, 'mouseup').length >= 1)
  t.match(of(events, 'mousedown'), [{ button: 2, x: 640, y: 600 }])
  // Close the context menu a right click may open.
  await client.callTool({ name: 'press_key', arguments: { keys: ['escape'] } })
  await pause(600)
})

t.test('type_text of non-ASCII text arrives exactly', async (t) => {
  const client = await httpClient(t)
  await clearTextarea(client)
  const text = 'Grüße, señor — 日本語 € Ωμέγα ✓'
  const result = await client.callTool({ name: 'type_text', arguments: { text } })
  t.notOk(result.isError, textOf(result))
  const events = await oracle.until((e) => of(e, 'input').at(-1)?.value === text, 10_000)
  t.equal(of(events, 'input').at(-1)?.value, text)
  t.strictSame(await heldOnX(display), [], 'nothing held')
})

t.test('take_screenshot is a PNG at the declared size showing what the page drew', async (t) => {
  const client = await httpClient(t)
  const result = await client.callTool({ name: 'take_screenshot', arguments: { display_width_px: 1024, display_height_px: 640 } })
  const image = imageOf(result)!
  t.equal(image.mimeType, 'image/png')
  const png = await decode(image.data!)
  t.strictSame([png.width, png.height], [1024, 640])
  // page.html: the red #target at 900,100 (100x60), the green pad from y 240; at 0.8 scale.
  t.strictSame(png.at(760, 104), [255, 0, 0], 'the red target')
  t.strictSame(png.at(500, 500), [0xe0, 0xff, 0xe0], 'the green pad')
  t.strictSame(png.at(880, 40), [255, 255, 255], 'the white page')
  const full = await client.callTool({ name: 'take_screenshot', arguments: {} })
  const real = await decode(imageOf(full)!.data!)
  t.strictSame([real.width, real.height], [1280, 800], 'no size declared: the real screen')
  t.strictSame(real.at(950, 130), [255, 0, 0])
})

t.test('an unknown key is isError with the HTTP route\'s message, and nothing is held in X', async (t) => {
  const client = await httpClient(t)
  const http = await app.inject({ method: 'POST', url: '/computer', headers: { authorization: `Bearer ${TOKEN}` }, payload: { action: 'press_key', keys: ['shift', 'nosuchkey'] } })
  t.equal(http.statusCode, 400)
  oracle.clear()
  const result = await client.callTool({ name: 'press_key', arguments: { keys: ['shift', 'nosuchkey'] } })
  t.equal(result.isError, true)
  t.equal(textOf(result), http.json().message)
  t.match(textOf(result), /unknown key 'nosuchkey'/)
  const batch = await client.callTool({ name: 'batch', arguments: { actions: [{ action: 'press_key', keys: ['shift'], press_type: 'down' }, { action: 'press_key', keys: ['nosuchkey'] }] } })
  t.equal(batch.isError, true)
  t.match(textOf(batch), /^actions\[1\]: unknown key 'nosuchkey'/)
  t.strictSame(await heldOnX(display), [], 'nothing held in X')
  t.strictSame(of(await oracle.until(() => false, 300), 'keydown'), [], 'no key reached the page')
})

t.test('a request without the token is 401', async (t) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'click_mouse', arguments: { button: 'left', coordinates: [10, 10] } } }),
  })
  t.equal(response.status, 401)
  t.match(await response.json(), { code: 'ERR_UNAUTHORIZED' })
  const client = new Client({ name: 'no-token', version: '1.0.0' })
  await t.rejects(client.connect(new StreamableHTTPClientTransport(new URL(url))), { message: /401/ })
})

t.test('two MCP clients at once never interleave their input', async (t) => {
  const [first, second] = [await httpClient(t, 'first'), await httpClient(t, 'second')]
  await clearTextarea(first)
  const a = 'aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa '
  const b = 'BBBB BBBB BBBB BBBB BBBB BBBB BBBB BBBB '
  const [one, two] = await Promise.all([
    first.callTool({ name: 'type_text', arguments: { text: a } }),
    second.callTool({ name: 'batch', arguments: { actions: [{ action: 'type_text', text: b.slice(0, 20) }, { action: 'type_text', text: b.slice(20) }] } }),
  ])
  t.notOk(one.isError)
  t.notOk(two.isError)
  const done = (value: unknown) => value === a + b || value === b + a
  const events = await oracle.until((e) => done(of(e, 'input').at(-1)?.value), 10_000)
  const value = of(events, 'input').at(-1)?.value
  t.ok(done(value), `one client's text, then the other's: ${JSON.stringify(value)}`)
})

t.test('stdio: `computer-gateway mcp` on the same desktop clicks and takes screenshots', async (t) => {
  const setpriv = which('setpriv')
  const server = [process.execPath, '--import', 'tsx', 'src/runtime/server.ts', 'mcp', '--driver', 'nut', '--mcp-display-size', '1024x640', '--log-level', 'info']
  // The SDK spawns the server; it dies with this process (setpriv) and is ended by PID at teardown.
  const transport = new StdioClientTransport({
    command: setpriv ?? server[0]!,
    args: setpriv ? ['--pdeathsig', 'SIGKILL', '--', ...server] : server.slice(1),
    env: { ...process.env, ...xEnv(display), DISPLAY: display } as Record<string, string>,
    cwd: new URL('..', import.meta.url).pathname,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk) => { stderr += chunk })
  t.teardown(async () => {
    const pid = transport.pid
    if (pid === null) return
    try { process.kill(pid, 'SIGTERM') } catch { return }
    if (!await until(() => !running(pid), 10_000)) process.kill(pid, 'SIGKILL')
  })
  const client = new Client({ name: 'e2e-stdio', version: '1.0.0' })
  await client.connect(transport)
  t.ok((await client.listTools()).tools.some((tool) => tool.name === 'click_mouse'))
  oracle.clear()
  // --mcp-display-size 1024x640: (480, 400) is the real (600, 500).
  const clicked = await client.callTool({ name: 'click_mouse', arguments: { button: 'left', coordinates: [480, 400] } })
  t.notOk(clicked.isError, textOf(clicked))
  const events = await oracle.until((e) => of(e, 'click').length >= 1)
  t.match(of(events, 'mousedown'), [{ button: 0, x: 600, y: 500 }])
  const shot = await client.callTool({ name: 'take_screenshot', arguments: {} })
  const png = await decode(imageOf(shot)!.data!)
  t.strictSame([png.width, png.height], [1024, 640])
  t.strictSame(png.at(760, 104), [255, 0, 0], 'the red target')
  const refused = await client.callTool({ name: 'press_key', arguments: { keys: ['ctrl', 'nosuchkey'] } })
  t.equal(refused.isError, true)
  t.match(textOf(refused), /^unknown key 'nosuchkey' \(closest known names: /, 'the same refusal over stdio')
  t.match(stderr, /serving MCP on stdin\/stdout/, 'logs go to stderr')
  const pid = transport.pid!
  await client.close()
  t.ok(await until(() => !running(pid), 10_000), 'the server exits when its client closes stdin')
  t.strictSame(await heldOnX(display), [], 'nothing held')
})
