/**
 * The qwen adapter on the family as it ships now (test/fixtures/qwen/families.json, each case
 * naming its source): Qwen3.5's XML form and its function `computer`, Kimi K2.5's chat
 * tool_calls, Qwen3-VL through an OpenAI-compatible server, and Fara-7B's actions. Whole
 * translate bodies, results over the fake driver, and every refusal, whole.
 */
import t from 'tap'
import { qwenAdapter } from '../adapters/qwen/index.ts'
import { build } from './helpers/build.ts'
import { adapterCases, badRequest, fixture, imageSize } from './helpers/adapter-cases.ts'

interface Extra { version: string, calls: Array<[string, number]>, facts?: string[] }
const CASES = adapterCases<Extra>('qwen', 'families.json') as Array<ReturnType<typeof adapterCases<Extra>>[number] & { actions: unknown[] }>
const SOURCES = fixture<{ sources: Record<string, string> }>('qwen', 'families.json').sources

type App = Awaited<ReturnType<typeof build>>['app']

/** POSTs JSON, or text/plain when the body is a string. */
async function send (app: App, url: string, body: unknown) {
  const plain = typeof body === 'string'
  const response = await app.inject({ method: 'POST', url, payload: plain ? body : JSON.stringify(body), headers: { 'content-type': plain ? 'text/plain' : 'application/json' } })
  return { status: response.statusCode, body: response.json() }
}

/** What each family's coordinates are in, on the fake driver's 1280x800 screen: Fara's smart_resize(1280x800) = 1288x812. */
const SPACE: Record<string, [number, number]> = { 3: [1000, 1000], 3.5: [1000, 1000], kimi: [1000, 1000], fara: [1288, 812] }

const spans = (calls: Array<[string, number]>) => {
  let first = 0
  return calls.map(([action, count]) => {
    const span = { action, first, count }
    first += count
    return span
  })
}

t.test('recorded outputs → unified actions, whole translate bodies', async (t) => {
  const { app, driver } = await build(t, { adapters: [qwenAdapter] })
  for (const c of CASES) {
    t.ok(SOURCES[c.source], `${c.name}: its source is named`)
    const { status, body } = await send(app, `/computer/qwen/translate?version=${c.version}`, c.payload)
    t.equal(status, 200, c.name)
    const [width, height] = SPACE[c.version]!
    t.strictSame(body, {
      adapter: 'qwen',
      version: c.version,
      actions: c.actions,
      screenshot: c.actions.length > 0,
      display_width_px: width,
      display_height_px: height,
      meta: { calls: spans(c.calls), terminate: null, answer: null, ...(c.facts && { facts: c.facts }) },
    }, c.name)
  }
  const fara = new Set(CASES.filter((c) => c.version === 'fara').flatMap((c) => c.calls.map(([action]) => action)))
  t.strictSame(['key', 'type', 'scroll', 'visit_url', 'web_search', 'history_back', 'refresh', 'pause_and_memorize_fact'].filter((a) => !fara.has(a)), [], "every Fara action of its own has a case")
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

t.test('results: the calls run in order, facts and the screen come back', async (t) => {
  const { app, driver } = await build(t, { adapters: [qwenAdapter] })
  const fara = CASES.find((c) => c.name === 'Fara memorizes a fact and clicks')!
  const { status, body } = await send(app, '/computer/qwen?version=fara', fara.payload)
  t.equal(status, 200)
  t.strictSame({ ...body, screenshot: imageSize(body.screenshot) }, {
    calls: [{ action: 'pause_and_memorize_fact', status: 'reported' }, { action: 'left_click', status: 'done' }],
    terminate: null,
    answer: null,
    facts: ['The flight costs $420.'],
    cursor: [1287, 811],
    screenshot: { width: 1280, height: 800 },
    coordinate_space: { width: 1288, height: 812 },
    error: null,
  })
  // The last pixel of 1288x812 is the screen's last: floor(1287.5 * 1280 / 1288) = 1279, floor(811.5 * 800 / 812) = 799.
  t.strictSame(driver.calls.find((c) => c.call === 'moveMouse'), { call: 'moveMouse', x: 1279, y: 799 })

  const xml = CASES.find((c) => c.name === 'Qwen3.5 XML left_click')!
  driver.calls.length = 0
  const clicked = await send(app, '/computer/qwen?version=3.5&screenshot=false', xml.payload)
  t.strictSame(clicked.body.calls, [{ action: 'left_click', status: 'done' }])
  // 0–1000 grid on 1280x800: floor(500.5 * 1280 / 1000) = 640, floor(300.5 * 800 / 1000) = 240.
  t.strictSame(driver.calls.find((c) => c.call === 'moveMouse'), { call: 'moveMouse', x: 640, y: 240 })
  t.strictSame(clicked.body.cursor, [500, 300], 'the cursor comes back on the grid')
})

t.test('a failing call stops the rest: Kimi tool_calls', async (t) => {
  const { app } = await build(t, { adapters: [qwenAdapter], fake: { beforeCall: (call) => { if (call.call === 'keyDown') throw new Error('keyboard unplugged') } } })
  const kimi = CASES.find((c) => c.name === 'Kimi K2.5 several tool_calls, screenshot last')!
  const { status, body } = await send(app, '/computer/qwen?version=kimi', kimi.payload)
  t.equal(status, 500)
  t.strictSame(body.calls, [{ action: 'type', status: 'done' }, { action: 'key', status: 'failed' }, { action: 'screenshot', status: 'not_run' }])
  t.equal(body.error.code, 'ERR_DRIVER_FAILURE')
})

t.test('refusals, whole, on both routes, and nothing runs', async (t) => {
  const { app, driver } = await build(t, { adapters: [qwenAdapter] })
  const invalid = (message: string, extra = {}) => ({ ...badRequest('ERR_INVALID_PAYLOAD', message), ...extra })
  const unparseable = (message: string) => badRequest('ERR_UNPARSEABLE_OUTPUT', message)
  const cases: Array<[string, unknown, object]> = [
    ['3.5', { name: 'computer', arguments: { action: 'visit_url', url: 'https://example.com' } },
      invalid('qwen 3.5: arguments.action must be one of "key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "scroll", "wait", "terminate", "triple_click", "hscroll", "answer", not "visit_url"')],
    ['fara', { name: 'computer_use', arguments: { action: 'left_click_drag', coordinate: [1, 2] } },
      invalid('qwen fara: arguments.action must be one of "key", "type", "mouse_move", "left_click", "scroll", "visit_url", "web_search", "history_back", "pause_and_memorize_fact", "wait", "refresh", "terminate", not "left_click_drag"')],
    ['fara', { name: 'computer_use', arguments: { action: 'visit_url' } }, invalid("qwen fara: visit_url needs 'url'")],
    ['fara', { name: 'computer_use', arguments: { action: 'web_search', query: '' } }, invalid('qwen fara: arguments.query must NOT have fewer than 1 characters')],
    ['fara', { name: 'computer_use', arguments: { action: 'scroll', pixels: 0 } }, invalid('qwen fara: scroll: pixels must not be 0')],
    ['3.5', '<tool_call>\n<function=computer>\n<parameter=action>\nleft_click\n</parameter>\nclick here\n</function>\n</tool_call>',
      unparseable('qwen 3.5: tool_call 1 has text outside its <parameter=…> tags: "click here"')],
    ['3.5', '<tool_call>\n<function=browser>\n<parameter=action>\nopen\n</parameter>\n</function>\n</tool_call>',
      invalid('qwen 3.5: tool_call 1 calls "browser"; only "computer_use" or "computer" runs here')],
    ['3.5', '<tool_call><function computer><parameter=action>wait</parameter></function></tool_call>',
      unparseable('qwen 3.5: tool_call 1 is not a call <function=NAME>…</function>: "<function computer><parameter=action>wait</parameter></function>"')],
    ['3.5', '<tool_call>\n<function=computer>\n<parameter=action>\nleft_click\n</parameter>\n<parameter=coordinate>\n[500]\n</parameter>\n</function>\n</tool_call>',
      invalid('qwen 3.5: tool_call 1 arguments: coordinate must NOT have fewer than 2 items')],
    ['kimi', { role: 'assistant', content: 'Done.', tool_calls: [] }, unparseable('qwen kimi: the chat message has no tool_calls and no <tool_call> in its content: "Done."')],
    ['kimi', { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'computer', arguments: '{"action": "left_click", ' } }] },
      unparseable('qwen kimi: tool_calls[0]: arguments is not JSON: "{\\"action\\": \\"left_click\\", "')],
    ['kimi', { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'browser', arguments: '{}' } }] },
      invalid('qwen kimi: tool_calls[0].function.name must be one of "computer_use", "computer", not "browser"')],
    ['kimi', { role: 'assistant', tool_calls: [], action: 'wait', time: 1 },
      invalid('qwen kimi: payload mixes tool_calls and action: send the arguments {"action", …}, the call {"name", "arguments"}, the chat message {"tool_calls"} or {"response"}, one of them')],
  ]
  for (const [version, payload, expected] of cases) {
    for (const route of ['/computer/qwen', '/computer/qwen/translate']) {
      const { status, body } = await send(app, `${route}?version=${version}`, payload)
      t.equal(status, 400, `${route} ${version} ${JSON.stringify(payload).slice(0, 80)}`)
      t.strictSame(body, expected, `${route} ${version} ${JSON.stringify(payload).slice(0, 80)}`)
    }
  }
  t.strictSame(driver.calls, [], 'nothing ran')
})

t.test('GET /adapters lists every family with its coordinates', async (t) => {
  const { app } = await build(t, { adapters: [qwenAdapter] })
  const response = await app.inject({ method: 'GET', url: '/adapters' })
  const qwen = response.json().adapters.find((a: { name: string }) => a.name === 'qwen')
  t.strictSame(qwen.versions.map((v: { name: string }) => v.name), ['2.5', '3', '3.5', 'kimi', 'fara'])
  t.equal(qwen.coordinates, 'version 2.5 and fara: pixels of the smart-resized display; version 3: the 0–999 relative grid; versions 3.5 and kimi: the 0–1000 relative grid')
})
