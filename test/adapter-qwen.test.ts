/**
 * The qwen adapter: every computer_use action of Qwen2.5-VL and Qwen3-VL translated (whole
 * translate bodies), every payload shape (arguments, call, JSON-string arguments, {response},
 * text/plain), the result (whole bodies, screenshots decoded), and every 4xx. Payloads come
 * from test/fixtures/qwen/translate.json (sources named there).
 */
import t from 'tap'
import { qwenAdapter } from '../adapters/qwen/index.ts'
import type { UnifiedAction } from '../src/actions/index.ts'
import { build } from './helpers/build.ts'
import { adapterCases, pngSize, leftClickAt } from './helpers/adapter-cases.ts'
import { errorBody } from './helpers/error-body.ts'

const CASES = new Map(adapterCases('qwen').map((c) => [c.name, c.payload]))
const recorded = (name: string) => CASES.get(name) ?? t.fail(`no recorded output ${name}`) as never
const args = (name: string) => recorded(name) as { action: string } & Record<string, unknown>
const text = (name: string) => recorded(name) as string

type App = Awaited<ReturnType<typeof build>>['app']

/** POSTs JSON, or text/plain when the body is a string. */
async function send (app: App, url: string, body: unknown) {
  const plain = typeof body === 'string'
  const response = await app.inject({
    method: 'POST',
    url,
    payload: plain ? body : JSON.stringify(body),
    headers: { 'content-type': plain ? 'text/plain' : 'application/json' },
  })
  return { status: response.statusCode, body: response.json() }
}

/** The result with its screenshot replaced by the PNG's size. */
const sized = (body: { screenshot: string | null }) => ({ ...body, screenshot: body.screenshot && pngSize(body.screenshot) })

const callsMeta = (...calls: Array<[string, number]>) => {
  let first = 0
  return calls.map(([action, count]) => {
    const meta = { action, first, count }
    first += count
    return meta
  })
}

const translations25: Array<[string, UnifiedAction[]]> = [
  ['left_click', [{ action: 'click_mouse', button: 'left', coordinates: [1240, 783] }]],
  ['left_click_here', [{ action: 'click_mouse', button: 'left' }]],
  ['right_click', [{ action: 'click_mouse', button: 'right', coordinates: [10, 20] }]],
  ['middle_click', [{ action: 'click_mouse', button: 'middle', coordinates: [10, 20] }]],
  ['double_click', [{ action: 'click_mouse', button: 'left', coordinates: [54, 311], num_clicks: 2 }]],
  ['mouse_move', [{ action: 'move_mouse', coordinates: [600, 400] }]],
  ['left_click_drag', [
    { action: 'click_mouse', button: 'left', click_type: 'down' },
    { action: 'move_mouse', coordinates: [800, 500] },
    { action: 'click_mouse', button: 'left', click_type: 'up' },
  ]],
  ['key', [{ action: 'press_key', keys: ['ctrl', 'c'] }]],
  ['type', [{ action: 'type_text', text: '测试' }]],
  // Negative pixels scroll down; 300 px is 2.5 notches of 120 px, rounded to 3.
  ['scroll_down', [{ action: 'scroll', delta_y: 3 }]],
  // 500 px up: 4 notches.
  ['scroll_up_at', [{ action: 'scroll', coordinates: [640, 400], delta_y: -4 }]],
  ['wait', [{ action: 'wait', duration: 3 }]],
  ['terminate', []],
]

const translations3: Array<[string, UnifiedAction[]]> = [
  // 1000 is read as the grid's last unit.
  ['triple_click', [{ action: 'click_mouse', button: 'left', coordinates: [500, 999], num_clicks: 3 }]],
  // Negative pixels scroll left: 2 notches.
  ['hscroll', [{ action: 'scroll', delta_x: -2 }]],
  ['answer', []],
  ['double_click', [{ action: 'click_mouse', button: 'left', coordinates: [54, 311], num_clicks: 2 }]],
]

t.test('every Qwen2.5-VL action translates, on the smart-resized screenshot', async (t) => {
  const { app, driver } = await build(t, { adapters: [qwenAdapter] })
  for (const [name, actions] of translations25) {
    const { status, body } = await send(app, '/computer/qwen/translate', args(name))
    t.equal(status, 200, name)
    t.strictSame(body, {
      adapter: 'qwen',
      version: '2.5',
      actions,
      screenshot: actions.length > 0,
      // smart_resize(1280x800) with factor 28.
      display_width_px: 1288,
      display_height_px: 812,
      meta: {
        calls: callsMeta([args(name).action, actions.length]),
        terminate: name === 'terminate' ? 'success' : null,
        answer: null,
      },
    }, name)
  }
  const declared = await send(app, '/computer/qwen/translate?display_width_px=1920&display_height_px=1080', args('left_click'))
  t.strictSame([declared.body.display_width_px, declared.body.display_height_px], [1932, 1092], 'the space follows the declared display')
  t.strictSame(driver.calls, [])
})

t.test('Qwen3-VL adds triple_click, hscroll and answer, on the 0–999 grid', async (t) => {
  const { app } = await build(t, { adapters: [qwenAdapter] })
  for (const [name, actions] of translations3) {
    const { status, body } = await send(app, '/computer/qwen/translate?version=3', args(name))
    t.equal(status, 200, name)
    t.strictSame(body, {
      adapter: 'qwen',
      version: '3',
      actions,
      screenshot: actions.length > 0,
      display_width_px: 1000,
      display_height_px: 1000,
      meta: {
        calls: callsMeta([args(name).action, actions.length]),
        terminate: name === 'answer' ? 'success' : null,
        answer: name === 'answer' ? 'The order number is 1042.' : null,
      },
    }, name)
  }
})

t.test('every payload shape carries the same call', async (t) => {
  const { app } = await build(t, { adapters: [qwenAdapter] })
  const call = { name: 'computer_use', arguments: args('scroll_down') }
  const shapes: unknown[] = [
    args('scroll_down'),
    call,
    { name: 'computer_use', arguments: JSON.stringify(args('scroll_down')) },
    { response: text('scroll_text') },
    text('scroll_text'),
    `Action: scroll down\n<tool_call>\n${JSON.stringify(call)}\n</tool_call>`,
    // The model stopped before closing its block.
    `<tool_call>\n${JSON.stringify(call)}\n`,
  ]
  for (const shape of shapes) {
    const { status, body } = await send(app, '/computer/qwen/translate', shape)
    t.equal(status, 200, JSON.stringify(shape))
    t.strictSame(body.actions, [{ action: 'scroll', delta_y: 3 }], JSON.stringify(shape))
  }
})

t.test('several tool calls in one output run in order; terminate is reported', async (t) => {
  const { app, driver } = await build(t, { adapters: [qwenAdapter] })
  const translated = await send(app, '/computer/qwen/translate?version=3', { response: text('gui_owl_steps') })
  t.strictSame(translated.body.actions, [
    { action: 'click_mouse', button: 'left', coordinates: [54, 311], num_clicks: 2 },
    { action: 'type_text', text: '测试' },
  ])
  t.strictSame(translated.body.meta, {
    calls: callsMeta(['double_click', 1], ['type', 1], ['terminate', 0]),
    terminate: 'success',
    answer: null,
  })

  const { status, body } = await send(app, '/computer/qwen?version=3&display_width_px=640&display_height_px=400', text('gui_owl_steps'))
  t.equal(status, 200)
  t.strictSame(sized(body), {
    calls: [
      { action: 'double_click', status: 'done' },
      { action: 'type', status: 'done' },
      { action: 'terminate', status: 'reported' },
    ],
    terminate: 'success',
    answer: null,
    cursor: [54, 311],
    screenshot: { width: 640, height: 400 },
    coordinate_space: { width: 1000, height: 1000 },
    error: null,
  }, 'the screenshot is at the display size, the cursor on the grid')
  t.strictSame(driver.calls, [
    // (54, 311) on the grid is the pixel centre (69, 249) of the 1280x800 screen.
    ...leftClickAt(69, 249),
    { call: 'buttonDown', button: 'left' },
    { call: 'buttonUp', button: 'left' },
    { call: 'typeText', text: '测试' },
    { call: 'screenshot' },
  ])
})

t.test('the result: cursor in the model space, the screen, and the space to tell the model', async (t) => {
  const { app, driver } = await build(t, { adapters: [qwenAdapter] })
  const { status, body } = await send(app, '/computer/qwen', { name: 'computer_use', arguments: args('left_click') })
  t.equal(status, 200)
  t.strictSame(sized(body), {
    calls: [{ action: 'left_click', status: 'done' }],
    terminate: null,
    answer: null,
    cursor: [1240, 783],
    screenshot: { width: 1280, height: 800 },
    coordinate_space: { width: 1288, height: 812 },
    error: null,
  })
  t.strictSame(driver.calls.slice(0, 1), [{ call: 'moveMouse', x: 1232, y: 771 }], '(1240, 783) of 1288x812 is (1232, 771) of 1280x800')

  const answer = await send(app, '/computer/qwen?version=3', { name: 'computer_use', arguments: args('answer') })
  t.strictSame(answer.body, {
    calls: [{ action: 'answer', status: 'reported' }],
    terminate: 'success',
    answer: 'The order number is 1042.',
    cursor: null,
    screenshot: null,
    coordinate_space: { width: 1000, height: 1000 },
    error: null,
  }, 'nothing runs for an answer')

  const quiet = await send(app, '/computer/qwen?screenshot=false', args('key'))
  t.equal(quiet.body.screenshot, null, 'screenshot=false leaves it out')
})

t.test('a failure names the call that failed; the ones after it did not run', async (t) => {
  const { app, driver } = await build(t, { adapters: [qwenAdapter] })
  driver.setBeforeCall((c) => { if (c.call === 'typeText') throw new Error('keyboard unplugged') })
  const { status, body } = await send(app, '/computer/qwen?version=3', text('gui_owl_steps').replace('terminate", "status": "success"', 'wait", "time": 1'))
  t.equal(status, 500)
  t.strictSame(sized(body), {
    calls: [
      { action: 'double_click', status: 'done' },
      { action: 'type', status: 'failed' },
      { action: 'wait', status: 'not_run' },
    ],
    terminate: null,
    answer: null,
    cursor: [54, 311],
    // The screen after the failure: what the double click changed.
    screenshot: { width: 1280, height: 800 },
    coordinate_space: { width: 1000, height: 1000 },
    error: { statusCode: 500, code: 'ERR_DRIVER_FAILURE', error: 'Internal Server Error', message: 'the driver failed: keyboard unplugged' },
  })

  driver.setBeforeCall(undefined)
  const off = await send(app, '/computer/qwen', { action: 'left_click', coordinate: [1288, 5] })
  t.equal(off.status, 400)
  t.strictSame(off.body, {
    calls: [{ action: 'left_click', status: 'not_run' }],
    terminate: null,
    answer: null,
    cursor: null,
    screenshot: null,
    coordinate_space: { width: 1288, height: 812 },
    error: errorBody(400, 'ERR_POINT_OUT_OF_BOUNDS', "coordinates (1288, 5) is outside Qwen2.5-VL's 1288x812 smart-resized screenshot: x must be 0..1287 and y 0..811"),
  }, 'a point off the smart-resized screenshot is refused natively, naming the space')
})

t.test('payload and model-output errors are 400s that quote what failed', async (t) => {
  const { app, driver } = await build(t, { adapters: [qwenAdapter] })
  const ACTIONS_25 = '"key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "scroll", "wait", "terminate"'
  const invalid = (message: string) => ({ statusCode: 400, code: 'ERR_INVALID_PAYLOAD', error: 'Bad Request', message })
  const unparseable = (message: string) => ({ statusCode: 400, code: 'ERR_UNPARSEABLE_OUTPUT', error: 'Bad Request', message })
  const cases: Array<[string, unknown, object]> = [
    ['', args('hscroll'), invalid(`qwen 2.5: action must be one of ${ACTIONS_25}, not "hscroll"`)],
    ['', { name: 'computer_use', arguments: { action: 'fly' } }, invalid(`qwen 2.5: arguments.action must be one of ${ACTIONS_25}, not "fly"`)],
    ['', { action: 'left_click_drag' }, invalid("qwen 2.5: left_click_drag needs 'coordinate'")],
    ['', { action: 'key' }, invalid("qwen 2.5: key needs 'keys'")],
    ['', { action: 'scroll', pixels: 0 }, invalid('qwen 2.5: scroll: pixels must not be 0')],
    ['', { action: 'wait', time: 0 }, invalid('qwen 2.5: time must be > 0')],
    ['', { action: 'left_click', coordinate: [1, 2, 3] }, invalid('qwen 2.5: coordinate must NOT have more than 2 items')],
    ['', { action: 'terminate', status: 'done' }, invalid('qwen 2.5: status must be one of "success", "failure", not "done"')],
    ['', { action: 'left_click', thought: 'x' }, invalid("qwen 2.5: unknown field 'thought' for action 'left_click' (allowed: action, keys, text, coordinate, pixels, time, status, name, arguments, response, role, content, reasoning_content, tool_calls)")],
    ['', { action: 'left_click', response: 'x' }, invalid('qwen 2.5: payload mixes response and action: send the arguments {"action", …}, the call {"name", "arguments"}, the chat message {"tool_calls"} or {"response"}, one of them')],
    ['', {}, invalid('qwen 2.5: payload is empty: send the arguments {"action", …}, the call {"name", "arguments"}, the chat message {"tool_calls"} or {"response"}')],
    ['', { arguments: args('key') }, invalid("qwen 2.5: missing required field 'name' (\"computer_use\") beside 'arguments'")],
    ['', { name: 'computer_use' }, invalid("qwen 2.5: missing required field 'arguments' beside 'name'")],
    ['', { name: 'mobile_use', arguments: args('key') }, invalid('qwen 2.5: name must be one of "computer_use", "computer", not "mobile_use"')],
    ['', 42, invalid('qwen 2.5: payload must be a JSON object')],
    ['', { name: 'computer_use', arguments: '{"action": "left_click", ' }, unparseable('qwen 2.5: arguments is not JSON: "{\\"action\\": \\"left_click\\", "')],
    ['', { name: 'computer_use', arguments: '{"action": "key"}' }, invalid("qwen 2.5: key needs 'keys'")],
    ['', { response: 'I clicked the button.' }, unparseable('qwen 2.5: no <tool_call> in the model output: "I clicked the button."')],
    ['', 'x'.repeat(300), unparseable(`qwen 2.5: no <tool_call> in the model output: "${'x'.repeat(200)}…"`)],
    ['', '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1,}}\n</tool_call>', unparseable('qwen 2.5: tool_call 1 is not JSON: "{\\"name\\": \\"computer_use\\", \\"arguments\\": {\\"action\\": \\"left_click\\", \\"coordinate\\": [1,}}"')],
    ['', `${text('scroll_text')}<tool_call>[1, 2]</tool_call>`, unparseable('qwen 2.5: tool_call 2 is not a JSON object {"name", "arguments"}: "[1, 2]"')],
    // Qwen2.5-VL's mobile agent calls mobile_use (QwenLM cookbooks mobile_agent.ipynb).
    ['', '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [935, 406]}}\n</tool_call>', invalid('qwen 2.5: tool_call 1 calls "mobile_use"; only "computer_use" or "computer" runs here')],
    ['', '<tool_call>{"name": "computer_use"}</tool_call>', invalid("qwen 2.5: tool_call 1 has no 'arguments'")],
    ['', '<tool_call>{"name": "computer_use", "arguments": {"action": "hscroll", "pixels": 5}}</tool_call>', invalid(`qwen 2.5: tool_call 1 arguments: action must be one of ${ACTIONS_25}, not "hscroll"`)],
    ['?version=3', '<tool_call>{"name": "computer_use", "arguments": {"action": "answer"}}</tool_call>', invalid("qwen 3: tool_call 1 answer needs 'text'")],
  ]
  for (const [query, payload, expected] of cases) {
    for (const route of ['/computer/qwen', '/computer/qwen/translate']) {
      const { status, body } = await send(app, route + query, payload)
      t.equal(status, 400, `${route}${query} ${JSON.stringify(payload)}`)
      t.strictSame(body, expected)
    }
  }
  const badVersion = await send(app, '/computer/qwen?version=2', args('key'))
  t.equal(badVersion.status, 400)
  t.equal(badVersion.body.code, 'ERR_INVALID_QUERY')
  t.strictSame(driver.calls, [])
})
