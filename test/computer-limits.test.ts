/**
 * Every input is bounded, on every route that takes one: the limits (SPEC §7) hold on the
 * unified routes and on what each adapter translates to, are refused before any input with a
 * 400 that names the limit, its value and its flag, and /translate refuses exactly what
 * executing would. Refused batches name the action at fault; bodies that are not Unicode text
 * are refused.
 */
import t from 'tap'
import { Type } from '@sinclair/typebox'
import type { Adapter } from '../src/pipeline/adapter.ts'
import { DEFAULT_LIMITS, type UnifiedAction } from '../src/actions/index.ts'
import { build, post } from './helpers/build.ts'

const badRequest = (code: string, message: string) => ({ statusCode: 400, code, error: 'Bad Request', message })
const invalid = (message: string) => badRequest('ERR_INVALID_ACTION', message)

const LONG_TEXT = 'x'.repeat(DEFAULT_LIMITS.maxTextLength + 1)
const ELEVEN_KEYS = Array.from({ length: 11 }, (_, i) => `f${i + 1}`)
const points = (n: number) => Array.from({ length: n }, (_, i) => [i % 100, 1])

const TEXT = 'text may be at most 100000 characters (--max-text)'
const KEYS = 'keys may hold at most 10 keys (--max-combo)'
const PATH = 'path may have at most 1000 points (--max-path)'
const WAIT = 'duration may be at most 60 seconds (--max-wait)'
const HOLD = 'duration may be at most 30 seconds (--max-key-hold)'
const notches = (field: string, value: number | string) => `scroll ${field} ${value} is over the limit of 100 notches (--max-scroll-notches)`

/** One action over each limit the unified space has, with its refusal. */
const OVER: Array<[string, Record<string, unknown>, ReturnType<typeof badRequest>]> = [
  ['scroll far down', { action: 'scroll', delta_y: 2_000_000 }, invalid(notches('delta_y', 2000000))],
  ['a fraction over rounds to 101 notches', { action: 'scroll', delta_x: -100.5 }, invalid(notches('delta_x', -100.5))],
  ['a long wait', { action: 'wait', duration: 61 }, invalid(WAIT)],
  ['a long key hold', { action: 'press_key', keys: ['shift'], duration: 31 }, invalid(HOLD)],
  ['a long text', { action: 'type_text', text: LONG_TEXT }, invalid(TEXT)],
  ['a long path', { action: 'drag_mouse', path: points(1001) }, invalid(PATH)],
  ['many clicks', { action: 'click_mouse', button: 'left', num_clicks: 11 }, invalid('num_clicks must be an integer from 1 to 10 (--max-clicks)')],
  ['a combo of eleven keys', { action: 'press_key', keys: ELEVEN_KEYS }, invalid(KEYS)],
  ['eleven held keys', { action: 'type_text', text: 'a', hold_keys: ELEVEN_KEYS }, invalid('hold_keys may hold at most 10 keys (--max-combo)')],
  ['a lone surrogate', { action: 'type_text', text: '\ud800' },
    badRequest('ERR_INVALID_ENCODING', 'text has a lone surrogate (\\ud800) at index 0: it must be valid Unicode text')],
]

t.test('each limit on a single action and in a batch: a 400 naming limit, value and flag, before any input', async (t) => {
  const { app, driver } = await build(t)
  for (const [name, action, body] of OVER) {
    const single = await post(app, '/computer', action)
    t.strictSame({ status: single.status, body: single.body }, { status: 400, body }, `${name}: single`)
    const batch = await post(app, '/computer/batch', { actions: [{ action: 'move_mouse', coordinates: [1, 1] }, action] })
    t.strictSame({ status: batch.status, body: batch.body }, { status: 400, body: { ...body, message: `actions[1]: ${body.message}`, failed_index: 1 } }, `${name}: batch`)
  }
  t.strictSame(driver.calls, [], 'nothing ran')
  // At the limit is allowed.
  const most = await post(app, '/computer', { action: 'scroll', delta_y: 100 })
  t.equal(most.status, 200)
  t.strictSame(driver.calls, [{ call: 'wheel', dx: 0, dy: 100 }])
})

t.test('a batch is bounded in size and in the time its waits and holds take together', async (t) => {
  const { app, driver } = await build(t)
  const many = await post(app, '/computer/batch', { actions: Array.from({ length: 101 }, () => ({ action: 'get_cursor_position' })) })
  t.strictSame(many.body, invalid('a batch may have at most 100 actions (--max-batch)'))
  // 100 × wait 60 held the desktop 100 minutes; now the third wait of 60 s is over the 120 s.
  const waits = await post(app, '/computer/batch', { actions: Array.from({ length: 100 }, () => ({ action: 'wait', duration: 60 })) })
  t.strictSame(waits.body, {
    ...invalid("actions[2]: the batch's waits and key holds come to 180 seconds by here, over the limit of 120 seconds (--max-batch-seconds)"),
    failed_index: 2,
  })
  const holds = await post(app, '/computer/batch', { actions: [
    { action: 'wait', duration: 60 }, { action: 'press_key', keys: ['shift'], duration: 30 }, { action: 'type_text', text: 'a' }, { action: 'wait', duration: 30.5 },
  ] })
  t.strictSame(holds.body, {
    ...invalid("actions[3]: the batch's waits and key holds come to 120.5 seconds by here, over the limit of 120 seconds (--max-batch-seconds)"),
    failed_index: 3,
  })
  t.strictSame(driver.calls, [], 'nothing ran')
})

t.test('a refused batch names the action at fault, whether validation or planning refuses it', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string, unknown[], Record<string, unknown>]> = [
    ['schema', [{ action: 'get_cursor_position' }, { action: 'wait', duration: 0 }], { ...invalid('actions[1]: duration must be positive'), failed_index: 1 }],
    ['unknown field', [{ action: 'get_cursor_position' }, { action: 'get_cursor_position' }, { action: 'wait', duration: 1, seconds: 2 }],
      { ...invalid("actions[2]: unknown field 'seconds' for action 'wait' (allowed: action, duration, screenshot)"), failed_index: 2 }],
    ['unknown key', [{ action: 'get_cursor_position' }, { action: 'press_key', keys: ['nokey'] }],
      { ...badRequest('ERR_UNKNOWN_KEY', "actions[1]: unknown key 'nokey' (closest known names: oskey, home, keya)"), failed_index: 1 }],
    ['off screen', [{ action: 'click_mouse', button: 'left', coordinates: [-5, 10] }],
      { ...badRequest('ERR_POINT_OUT_OF_BOUNDS', 'actions[0]: coordinates (-5, 10) is outside the 1280x800 screen: x must be 0..1279 and y 0..799'), failed_index: 0 }],
    ['cross-field rule', [{ action: 'get_cursor_position' }, { action: 'scroll' }],
      { ...invalid('actions[1]: at least one of delta_x or delta_y must be non-zero'), failed_index: 1 }],
  ]
  for (const [name, actions, body] of cases) {
    const { status, body: answer } = await post(app, '/computer/batch', { actions })
    t.strictSame({ status, answer }, { status: body.statusCode, answer: body }, name)
  }
  // A single action keeps the seed's message: no index.
  const single = await post(app, '/computer', { action: 'press_key', keys: ['nokey'] })
  t.strictSame(single.body, badRequest('ERR_UNKNOWN_KEY', "unknown key 'nokey' (closest known names: oskey, home, keya)"))
})

t.test('the declared display size is bounded on every route that takes it', async (t) => {
  const { app, driver } = await build(t)
  const over = (field: string, value: number) => badRequest('ERR_INVALID_QUERY', `${field} ${value} is over the limit of 4096 pixels (--max-display-size)`)
  const routes: Array<[string, unknown]> = [
    ['/computer', { action: 'take_screenshot' }],
    ['/v1/instance/i-1/computer', { action: 'take_screenshot' }],
    ['/computer/batch', { actions: [{ action: 'take_screenshot' }] }],
    ...ADAPTER_PAYLOADS.flatMap(([name, payload]): Array<[string, unknown]> => [[`/computer/${name}`, payload], [`/computer/${name}/translate`, payload]]),
  ]
  for (const [url, body] of routes) {
    const wide = await post(app, `${url}?display_width_px=16384&display_height_px=800`, body)
    t.strictSame({ status: wide.status, body: wide.body }, { status: 400, body: over('display_width_px', 16384) }, url)
    const tall = await post(app, `${url}?display_width_px=1024&display_height_px=4097`, body)
    t.strictSame(tall.body, over('display_height_px', 4097), url)
  }
  const tree = await app.inject({ method: 'GET', url: '/accessibility?display_width_px=16384&display_height_px=16384' })
  t.strictSame(tree.json(), over('display_width_px', 16384), 'GET /accessibility')
  t.strictSame(driver.calls, [])
  const most = await post(app, '/computer?display_width_px=4096&display_height_px=4096', { action: 'get_cursor_position' })
  t.equal(most.status, 200, 'at the limit is allowed')
})

t.test('limits are the configured ones on adapters too', async (t) => {
  const { app } = await build(t, { limits: { ...DEFAULT_LIMITS, maxScrollNotches: 3, maxDisplaySide: 2000, maxBatchSeconds: 10 } })
  const scroll = await post(app, '/computer/anthropic/translate', member('scroll', { scroll_direction: 'up', scroll_amount: 4 }))
  t.strictSame(scroll.body, invalid('scroll delta_y -4 is over the limit of 3 notches (--max-scroll-notches)'))
  const display = await post(app, '/computer/openai/translate?display_width_px=2001&display_height_px=100', { type: 'screenshot' })
  t.strictSame(display.body, badRequest('ERR_INVALID_QUERY', 'display_width_px 2001 is over the limit of 2000 pixels (--max-display-size)'))
  const waits = await post(app, '/computer/hud/translate', [{ type: 'wait', time: 6000 }, { type: 'wait', time: 6000 }])
  t.strictSame(waits.body, { ...invalid("actions[1]: the batch's waits and key holds come to 12 seconds by here, over the limit of 10 seconds (--max-batch-seconds)"), failed_index: 1 })
})

/** A member call of Claude's computer toolset, the anthropic adapter's default version. */
const member = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id: 'toolu_limits', name, toolset_name: 'computer', input })

/** A harmless payload per adapter. */
const ADAPTER_PAYLOADS: Array<[string, unknown]> = [
  ['anthropic', member('screenshot', {})],
  ['openai', { type: 'screenshot' }],
  ['uitars', { response: 'Action: wait()' }],
  ['gemini', { name: 'wait_5_seconds', args: {} }],
  ['qwen', { name: 'computer_use', arguments: { action: 'wait', time: 1 } }],
  ['hud', { type: 'wait', time: 1 }],
  ['conatus', { type: 'screenshot' }],
  ['operator', { action: 'wait', duration: 1 }],
  ['cup', { action: 'wait', ms: 1 }],
]

const F11 = ELEVEN_KEYS.join('+')

/**
 * Refusals on every adapter, limits first: the translate route's whole body, and the execute
 * route's status and native answer carrying the same message.
 */
const REFUSALS: Array<[string, unknown, ReturnType<typeof badRequest> & { failed_index?: number }]> = [
  ['anthropic', member('scroll', { coordinate: [10, 10], scroll_direction: 'down', scroll_amount: 101 }), invalid(notches('delta_y', 101))],
  ['anthropic', member('type', { text: LONG_TEXT }), invalid(TEXT)],
  ['anthropic', member('key', { text: F11 }), invalid(KEYS)],
  ['anthropic', member('hold_key', { text: 'shift', duration: 31 }), invalid(HOLD)],
  ['anthropic', member('wait', { duration: 61 }), invalid(WAIT)],
  ['anthropic', member('left_click', { coordinate: [-5, 10] }),
    badRequest('ERR_POINT_OUT_OF_BOUNDS', 'coordinates (-5, 10) is outside the 1280x800 screen: x must be 0..1279 and y 0..799')],
  ['anthropic', member('key', { text: 'nokey' }), badRequest('ERR_UNKNOWN_KEY', "unknown key 'nokey' (closest known names: oskey, home, keya)")],
  ['openai', { type: 'drag', path: points(5000).map(([x, y]) => ({ x, y })) }, invalid(PATH)],
  ['openai', { type: 'keypress', keys: Array.from({ length: 50 }, (_, i) => `f${(i % 24) + 1}`) }, invalid(KEYS)],
  ['openai', { type: 'type', text: 'x'.repeat(150_000) }, invalid(TEXT)],
  ['openai', { type: 'scroll', x: 1, y: 1, scroll_x: 0, scroll_y: 2_000_000 }, invalid(notches('delta_y', 16667))],
  ['openai', { type: 'computer_call', call_id: 'c1', actions: [{ type: 'move', x: 1, y: 1 }, { type: 'click', button: 'left', x: 1280, y: 1 }] },
    { ...badRequest('ERR_POINT_OUT_OF_BOUNDS', 'actions[1]: coordinates (1280, 1) is outside the 1280x800 screen: x must be 0..1279 and y 0..799'), failed_index: 1 }],
  ['uitars', { response: `Action: hotkey(key='${ELEVEN_KEYS.join(' ')}')` }, invalid(KEYS)],
  ['uitars', { response: `Action: type(content='${LONG_TEXT}')` }, invalid(TEXT)],
  ['gemini', { name: 'scroll_at', args: { x: 500, y: 500, direction: 'down', magnitude: 999_999 } }, invalid(notches('delta_y', 6667))],
  ['gemini', { name: 'type_text_at', args: { x: 1, y: 1, text: LONG_TEXT } }, { ...invalid(`actions[3]: ${TEXT}`), failed_index: 3 }],
  ['gemini', { name: 'key_combination', args: { keys: F11 } }, invalid(KEYS)],
  ['qwen', { name: 'computer_use', arguments: { action: 'scroll', pixels: -2_000_000 } }, invalid(notches('delta_y', 16667))],
  ['qwen', { name: 'computer_use', arguments: { action: 'type', text: LONG_TEXT } }, invalid(TEXT)],
  ['qwen', { name: 'computer_use', arguments: { action: 'key', keys: ELEVEN_KEYS } }, invalid(KEYS)],
  ['qwen', { name: 'computer_use', arguments: { action: 'wait', time: 61 } }, invalid(WAIT)],
  ['hud', { type: 'scroll', point: { x: 1, y: 1 }, scroll: { x: 0, y: 101 } }, invalid(notches('delta_y', 101))],
  ['hud', { type: 'type', text: LONG_TEXT }, invalid(TEXT)],
  ['hud', { type: 'press', keys: ELEVEN_KEYS }, invalid(KEYS)],
  ['hud', { type: 'wait', time: 61_000 }, invalid(WAIT)],
  ['hud', { type: 'drag', path: points(1001).map(([x, y]) => ({ x, y })) }, invalid(PATH)],
  ['hud', { type: 'click', point: { x: 1, y: 1 }, pattern: Array.from({ length: 10 }, () => 10) }, invalid('num_clicks must be an integer from 1 to 10 (--max-clicks)')],
  ['hud', Array.from({ length: 3 }, () => ({ type: 'wait', time: 60_000 })),
    { ...invalid("actions[2]: the batch's waits and key holds come to 180 seconds by here, over the limit of 120 seconds (--max-batch-seconds)"), failed_index: 2 }],
  ['hud', Array.from({ length: 101 }, () => ({ type: 'wait', time: 1 })), invalid('a batch may have at most 100 actions (--max-batch)')],
  ['conatus', { type: 'scroll', start_xy: null, distance_xy: null, magnitude: 101, direction: 'down' }, invalid(notches('delta_y', 101))],
  ['conatus', { type: 'type', text: LONG_TEXT }, invalid(TEXT)],
  ['conatus', { type: 'keypress_hold', keys: ['shift'], duration: 31 }, invalid(HOLD)],
  ['conatus', { type: 'keypress_hold', keys: ELEVEN_KEYS, duration: 1 }, invalid(KEYS)],
  ['conatus', { type: 'wait', duration: 61 }, invalid(WAIT)],
  ['conatus', { type: 'drag', xy: points(1001) }, invalid(PATH)],
  ['operator', { action: 'type', text: LONG_TEXT }, invalid(TEXT)],
  ['operator', { action: 'wait', duration: 61 }, invalid(WAIT)],
  ['operator', { action: 'shortcut', shortcut: F11 }, invalid(KEYS)],
  ['operator', { action: 'app', mode: 'launch', name: 'xterm' },
    { statusCode: 403, code: 'ERR_APP_NOT_ALLOWED', error: 'Forbidden', message: "app 'xterm' is not in the allow-list; none is allowed (the server's --allow-app / ALLOW_APPS is empty)" }],
  ['cup', { action: 'press_keys', keys: F11 }, invalid(KEYS)],
  // CUP's waits are clamped to 5 s by CUP itself: only a combo can be over a limit.
  ['cup', [{ action: 'press_keys', keys: 'tab' }, { action: 'press_keys', keys: F11 }], { ...invalid(`actions[1]: ${KEYS}`), failed_index: 1 }],
]

t.test('every adapter: /translate refuses what executing refuses, with the same status and message, and nothing runs', async (t) => {
  const { app, driver } = await build(t)
  const covered = new Set<string>()
  for (const [name, payload, body] of REFUSALS) {
    covered.add(name)
    const label = `${name} ${JSON.stringify(payload).slice(0, 80)}`
    const translated = await post(app, `/computer/${name}/translate`, payload)
    t.strictSame({ status: translated.status, body: translated.body }, { status: body.statusCode, body }, `${label}: translate`)
    const executed = await post(app, `/computer/${name}`, payload)
    t.equal(executed.status, body.statusCode, `${label}: execute, same status`)
    // Each dialect answers in its own form; the message is the one translate gave.
    t.ok(JSON.stringify(executed.body).includes(JSON.stringify(body.message).slice(1, -1)), `${label}: execute, same message`)
  }
  t.strictSame([...covered].sort(), ADAPTER_PAYLOADS.map(([name]) => name).sort(), 'every adapter has refusals')
  t.strictSame(driver.calls, [], 'nothing ran')
})

t.test('bodies that are not Unicode text are refused, on every kind of route', async (t) => {
  const { app, driver } = await build(t)
  // {"action":"type_text","text":"<0xff>"}: a byte that starts no UTF-8 sequence.
  const bytes = Buffer.concat([Buffer.from('{"action":"type_text","text":"'), Buffer.from([0xff]), Buffer.from('"}')])
  const notUtf8 = badRequest('ERR_INVALID_ENCODING', 'the request body is not valid UTF-8 (byte 0xff at offset 30); send text encoded as UTF-8')
  for (const url of ['/computer', '/computer/anthropic', '/computer/anthropic/translate']) {
    const response = await app.inject({ method: 'POST', url, payload: bytes, headers: { 'content-type': 'application/json' } })
    t.strictSame({ status: response.statusCode, body: response.json() }, { status: 400, body: notUtf8 }, url)
  }
  const text = Buffer.concat([Buffer.from("Action: type(content='"), Buffer.from([0xc3, 0x28]), Buffer.from("')")])
  for (const url of ['/computer/uitars', '/computer/uitars/translate']) {
    const response = await app.inject({ method: 'POST', url, payload: text, headers: { 'content-type': 'text/plain' } })
    t.strictSame(response.json(), badRequest('ERR_INVALID_ENCODING', 'the request body is not valid UTF-8 (byte 0xc3 at offset 22); send text encoded as UTF-8'), url)
  }
  const lone = (field: string, unit: string, at: number) => badRequest('ERR_INVALID_ENCODING', `${field} has a lone surrogate (\\u${unit}) at index ${at}: it must be valid Unicode text`)
  for (const url of ['/computer/anthropic', '/computer/anthropic/translate']) {
    const claude = await post(app, url, { action: 'type', text: 'ok \udc00' })
    t.strictSame(claude.body, lone('text', 'dc00', 3), url)
  }
  const batch = await post(app, '/computer/batch', { actions: [{ action: 'type_text', text: 'fine' }, { action: 'type_text', text: 'a\ud83d' }] })
  t.strictSame(batch.body, { ...badRequest('ERR_INVALID_ENCODING', 'actions[1]: text has a lone surrogate (\\ud83d) at index 1: it must be valid Unicode text'), failed_index: 1 })
  const pair = await post(app, '/computer', { action: 'type_text', text: 'a\ud83d\ude00' })
  t.equal(pair.status, 200, 'a surrogate pair is a character')
  t.strictSame(driver.calls.map((c) => c.call), ['typeText'], 'only the well-formed text was typed')
})

/** An adapter that hands its payload over as unified actions, unchecked: whatever an adapter produces. */
const raw: Adapter<{ actions: UnifiedAction[] }, null> = {
  name: 'raw',
  description: 'Unified actions, as an adapter might translate them.',
  coordinates: 'the display',
  versions: [{ name: 'v1', description: 'Any list.', schema: Type.Object({ actions: Type.Array(Type.Any()) }, { $id: 'RawV1', title: 'RawV1' }) }],
  translate: (input) => ({ actions: input.actions, screenshot: false, meta: null }),
  result: (outcome) => ({ said: outcome.error?.message ?? 'ok' }),
  resultSchema: Type.Object({ said: Type.String() }, { $id: 'RawResult', title: 'RawResult' }),
}

t.test('the planning check holds whatever an adapter translates to, not only what the schemas would see', async (t) => {
  const { app, driver } = await build(t, { adapters: [raw] })
  const cases: Array<[UnifiedAction, string]> = [
    [{ action: 'wait', duration: -100 }, 'duration must be positive'],
    [{ action: 'wait', duration: 0 }, 'duration must be positive'],
    [{ action: 'press_key', keys: ['a'], duration: -1 }, 'duration must be positive'],
    [{ action: 'press_key', keys: ['ctrl+shift+alt+super+f1+f2+f3+f4+f5+f6+f7'] }, KEYS],
    [{ action: 'element_action', element: 'e1', verb: 'type', value: LONG_TEXT }, 'value may be at most 100000 characters (--max-text)'],
    [{ action: 'type_text', text: '😀'.repeat(DEFAULT_LIMITS.maxTextLength) }, ''],
  ]
  for (const [action, message] of cases) {
    const actions = [{ action: 'get_cursor_position' }, action]
    const translated = await post(app, '/computer/raw/translate', { actions })
    if (message === '') {
      t.equal(translated.status, 200, 'characters are counted, not UTF-16 units: 100000 emoji are at the limit')
      continue
    }
    t.equal(translated.status, 400, message)
    t.equal(translated.body.message, `actions[1]: ${message}`)
    t.equal(translated.body.failed_index, 1)
    const executed = await post(app, '/computer/raw', { actions })
    t.strictSame({ status: executed.status, body: executed.body }, { status: 400, body: { said: `actions[1]: ${message}` } })
  }
  t.strictSame(driver.calls, [])
})
