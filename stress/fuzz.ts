/**
 * Generated requests that the contract (SPEC §7) says must be refused with a 4xx before any
 * input: malformed and adversarial bodies, queries and content types on the unified, batch and
 * every adapter route. Seeded, so a failing case can be replayed. Each generator only builds
 * requests that are invalid whatever the server's leniency elsewhere (a wrong type, a missing
 * field, a value beyond a bound, a point off the screen, bytes that are not JSON…): a case that
 * could legitimately succeed would make "nothing typed, nothing clicked" meaningless.
 */
import { prng } from './harness.ts'

export interface FuzzCase {
  kind: string
  path: string
  body: Buffer
  contentType: string | null
  /** undefined: the server's token; null: none; a string: that (wrong) token. */
  token?: string | null
  headers?: Record<string, string>
}

export interface Screen { width: number, height: number }

type R = () => number

const ADAPTERS = ['anthropic', 'openai', 'uitars', 'gemini', 'qwen', 'hud', 'conatus', 'operator', 'cup'] as const

const pick = <T>(r: R, list: readonly T[]): T => list[Math.floor(r() * list.length)]!
const int = (r: R, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1))

const json = (value: unknown) => Buffer.from(JSON.stringify(value))

/** Values of every JSON type, none of them a valid point, key list, number of notches or text. */
const WRONG: unknown[] = [
  null, true, false, 'x', '', '12,34', {}, { x: 1, y: 2 }, [], [[]], [null], ['a', 'b'], { '0': 1, '1': 2 },
]
/** Never a point in any dialect (no null: some take a missing point as "where the pointer is"). */
const WRONG_POINT: unknown[] = ['x', '12,34', {}, [], [1], ['a', 'b'], true, { x: 'a', y: 'b' }, [[1, 2]]]
const HUGE = [1e308, -1e308, 2 ** 53, -(2 ** 53), 2 ** 31, -(2 ** 31), 1e21, 4294967296, Number.MAX_SAFE_INTEGER]

function offScreen (r: R, s: Screen): [number, number] {
  switch (int(r, 0, 5)) {
    case 0: return [s.width + int(r, 0, 5000), int(r, 0, s.height - 1)]
    case 1: return [int(r, 0, s.width - 1), s.height + int(r, 0, 5000)]
    case 2: return [-int(r, 1, 5000), int(r, 0, s.height - 1)]
    case 3: return [int(r, 0, s.width - 1), -int(r, 1, 5000)]
    case 4: return [pick(r, HUGE), int(r, 0, s.height - 1)]
    default: return [int(r, 0, s.width - 1), pick(r, HUGE)]
  }
}

const onScreen = (r: R, s: Screen): [number, number] => [int(r, 0, s.width - 1), int(r, 0, s.height - 1)]

/** A random string with the characters parsers stumble on: quotes, brackets, escapes, controls, astral. */
function garbage (r: R, max = 200): string {
  const alphabet = ['a', 'Z', '0', ' ', '"', "'", '(', ')', '[', ']', '{', '}', '<', '>', ',', ':', '=', '\\', '\n', '\t', '\u0000', '\u001b', 'é', '中', '😀', '\u202e', '\ufeff', '%', '$', '`']
  let out = ''
  const n = int(r, 1, max)
  for (let i = 0; i < n; i++) out += pick(r, alphabet)
  return out
}

/** A random JSON value, nested up to `depth`, whose keys are random (so never an action's field). */
function randomValue (r: R, depth: number): unknown {
  const k = depth <= 0 ? int(r, 0, 3) : int(r, 0, 5)
  switch (k) {
    case 0: return r() < 0.5 ? pick(r, HUGE) : (r() - 0.5) * 1e6
    case 1: return garbage(r, 30)
    case 2: return pick(r, [null, true, false])
    case 3: return -int(r, 0, 100)
    case 4: return Array.from({ length: int(r, 1, 4) }, () => randomValue(r, depth - 1))
    default: return Object.fromEntries(Array.from({ length: int(r, 1, 4) }, () => [`k_${garbage(r, 8)}`, randomValue(r, depth - 1)]))
  }
}

// ---------------------------------------------------------------- the unified action space

/** Invalid unified actions: each variant breaks a rule the seed's schema or a bound states. */
function badAction (r: R, s: Screen): Record<string, unknown> {
  const p = () => onScreen(r, s)
  const variants: Array<() => Record<string, unknown>> = [
    () => ({ action: 'move_mouse' }),
    () => ({ action: 'move_mouse', coordinates: pick(r, [...WRONG, [1], [1, 2, 3], [1.5, 2], ['1', '2'], [[1, 2]]]) }),
    () => ({ action: 'move_mouse', coordinates: offScreen(r, s) }),
    () => ({ action: 'move_mouse', coordinates: p(), hold_keys: pick(r, [[1], [{}], ['no_such_key_zz'], [null], Array.from({ length: 11 }, (_, i) => `f${i + 1}`)]) }),
    () => ({ action: 'click_mouse' }),
    () => ({ action: 'click_mouse', button: pick(r, ['lft', 'wheel', '', 7, null, ['left'], {}]), coordinates: p() }),
    () => ({ action: 'click_mouse', button: 'left', coordinates: offScreen(r, s) }),
    () => ({ action: 'click_mouse', button: 'left', coordinates: p(), num_clicks: pick(r, [0, -1, 11, 1e9, 2.5, '2', null, ...HUGE]) }),
    () => ({ action: 'click_mouse', button: 'left', click_type: pick(r, ['press', 'hold', '', 3, null]) }),
    () => ({ action: 'drag_mouse' }),
    () => ({ action: 'drag_mouse', path: pick(r, [[], [p()], '1,1 2,2', [[1, 2], 'x'], [[1, 2], [3]], {}, null]) }),
    () => ({ action: 'drag_mouse', path: [p(), offScreen(r, s)] }),
    () => ({ action: 'drag_mouse', path: Array.from({ length: 1001 }, () => p()) }),
    () => ({ action: 'scroll', coordinates: p(), delta_x: 0, delta_y: 0 }),
    () => ({ action: 'scroll', coordinates: p(), delta_y: pick(r, [...WRONG, '3']) }),
    () => ({ action: 'scroll', coordinates: offScreen(r, s), delta_y: 1 }),
    () => ({ action: 'press_key' }),
    () => ({ action: 'press_key', keys: pick(r, [[], ...WRONG.filter((v) => !Array.isArray(v) || (v as unknown[]).length === 0 || typeof (v as unknown[])[0] !== 'string'), ['no_such_key_zz'], ['ctrl', 'nokey'], [garbage(r, 40) + '\u0000']]) }),
    () => ({ action: 'press_key', keys: Array.from({ length: 11 }, (_, i) => String.fromCharCode(97 + i)) }),
    () => ({ action: 'press_key', keys: ['a'], duration: pick(r, [-1, 0, 31, 1e9, '1', null, ...HUGE]) }),
    () => ({ action: 'press_key', keys: ['a'], press_type: pick(r, ['hold', 'tap', '', 1]) }),
    () => ({ action: 'press_key', keys: ['a'], press_type: 'down', duration: 1 }),
    () => ({ action: 'type_text' }),
    () => ({ action: 'type_text', text: pick(r, ['', 5, null, ['a'], { t: 'a' }, true]) }),
    () => ({ action: 'type_text', text: 'a'.repeat(100_001) }),
    () => ({ action: 'wait' }),
    () => ({ action: 'wait', duration: pick(r, [0, -1, -0.001, 61, 1e9, '1', null, [], ...HUGE]) }),
    () => ({ action: 'take_screenshot', region: pick(r, ['all', [0, 0, 10], [10, 10, 5, 5], [0, 0, s.width + 100, s.height + 100], [-5, 0, 10, 10], null, {}]) }),
    () => ({ action: pick(r, ['get_cursor_position', 'take_screenshot']), [`unknown_${int(r, 0, 999)}`]: randomValue(r, 2) }),
    () => ({ action: 'move_mouse', coordinates: p(), [pick(r, ['coords', 'coordinate', 'x', 'extra', 'Action'])]: 1 }),
    () => ({ action: pick(r, ['fly', '', 'move', 'click', 'key', 'screenshot', 'left_click', 'mouse_move', garbage(r, 20)]) }),
    () => ({ action: pick(r, [5, null, true, [], {}]) }),
    () => ({ coordinates: p() }),
    () => ({ action: 'a'.repeat(int(r, 1000, 60_000)) }),
    () => ({ action: 'type_text', text: 'x', [`k${'y'.repeat(int(r, 1000, 20_000))}`]: 1 }),
  ]
  return pick(r, variants)()
}

/** A valid action, only as the base of a case made invalid another way (truncation, content type, token). */
function validAction (r: R, s: Screen): Record<string, unknown> {
  const p = onScreen(r, s)
  return pick(r, [
    { action: 'move_mouse', coordinates: p },
    { action: 'click_mouse', button: 'left', coordinates: p },
    { action: 'type_text', text: 'must not arrive' },
    { action: 'press_key', keys: ['ctrl', 'c'] },
    { action: 'scroll', coordinates: p, delta_y: 3 },
    { action: 'drag_mouse', path: [p, [5, 5]] },
  ])
}

// ---------------------------------------------------------------- adapters

/** Each adapter's payloads that its own schema (or the screen) must refuse. */
function badAdapter (r: R, s: Screen, adapter: typeof ADAPTERS[number]): { body: Buffer, contentType: string } {
  const asJson = (v: unknown) => ({ body: json(v), contentType: 'application/json' })
  const asText = (t: string | Buffer) => ({ body: Buffer.isBuffer(t) ? t : Buffer.from(t), contentType: 'text/plain' })
  const off = offScreen(r, s)
  switch (adapter) {
    case 'anthropic': return asJson(pick(r, [
      { action: pick(r, ['fly', 'click', '', 'left_clack', 7, null]) },
      { action: 'left_click', coordinate: off },
      { action: 'left_click', coordinate: pick(r, WRONG_POINT) },
      { action: 'mouse_move' },
      { action: 'type' },
      { action: 'type', text: pick(r, [5, null, [], {}]) },
      { action: 'key', text: pick(r, ['no_such_key_zz', '', 5, null]) },
      { action: 'scroll', coordinate: onScreen(r, s), scroll_direction: pick(r, ['sideways', '', 5, null]), scroll_amount: 3 },
      { action: 'scroll', coordinate: onScreen(r, s), scroll_direction: 'down', scroll_amount: pick(r, [-1, 'x', null]) },
      { action: 'left_click_drag', start_coordinate: onScreen(r, s), coordinate: off },
      { action: 'wait', duration: pick(r, [-1, 1e9, 'x']) },
      { action: 'zoom', region: pick(r, [[0, 0], 'x', [10, 10, 5, 5]]) },
      { type: 'tool_use', id: 'toolu_x', name: 'computer', input: { action: 'fly' } },
      randomValue(r, 3),
    ]))
    case 'openai': return asJson(pick(r, [
      { type: 'computer_call', call_id: 'c1', action: { type: pick(r, ['teleport', '', 5, null]) } },
      { type: 'click', button: 'left', x: off[0], y: off[1] },
      { type: 'click', button: pick(r, ['lft', 5, null]), x: 5, y: 5 },
      { type: 'click', button: 'left' },
      { type: 'type' },
      { type: 'keypress', keys: pick(r, [['no_such_key_zz'], 'x', 5, null]) },
      { type: 'scroll', x: 5, y: 5, scroll_x: 'a', scroll_y: 0 },
      { type: 'drag', path: pick(r, [[], [{ x: 1 }], 'x']) },
      { type: 'move', x: pick(r, WRONG_POINT), y: 5 },
      { type: 'computer_call', call_id: 'c2', actions: [{ type: 'click', button: 'left', x: 5, y: 5 }, { type: 'fly' }] },
      randomValue(r, 3),
    ]))
    case 'gemini': return asJson(pick(r, [
      { name: pick(r, ['fly_to', '', 'click', 'type_text']), args: { x: 'abc', y: null } },
      { name: 'click_at', args: { x: pick(r, [1000, -1, 5000, ...HUGE]), y: 5 } },
      { name: 'click_at', args: {} },
      { name: 'type_text_at', args: { x: 5, y: 5 } },
      { name: 'scroll_document', args: { direction: pick(r, ['sideways', '', 5]) } },
      { name: 'key_combination', args: { keys: pick(r, ['no_such_key_zz', '', 5]) } },
      { functionCall: { name: 'click_at', args: { x: 'a', y: 'b' } } },
      [{ text: 'x' }, { functionCall: { name: 'fly', args: {} } }],
      randomValue(r, 3),
    ]))
    case 'uitars': return r() < 0.2
      ? asJson(pick(r, [{ response: pick(r, [5, null, [], {}]) }, { reply: 'x' }, randomValue(r, 2)]))
      : asText(pick(r, [
        () => garbage(r, 300).replace(/Action/gi, ''),
        () => `Thought: ${garbage(r, 60)}\nAction: ${pick(r, ['frobnicate()', 'click(start_box=)', "click(start_box='(abc)')", "click(start_box='(1,2,3,4,5)')", "type(content='x'", 'click(', "drag(start_box='(1,1)')", "scroll(start_box='(5,5)', direction='sideways')", "hotkey(key='no_such_key_zz')"])}`,
        () => `Action: click(start_box='${garbage(r, 40)}')`,
        () => Buffer.concat([Buffer.from("Action: click(start_box='("), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from(")')")]),
        () => '\ud800'.repeat(int(r, 1, 50)) + ' click()',
      ])())
    case 'qwen': return r() < 0.3
      ? asJson(pick(r, [
        { action: pick(r, ['fly', '', 5]), coordinate: [5, 5] },
        { action: 'left_click', coordinate: pick(r, [off, 'x', [1], null]) },
        { name: 'computer_use', arguments: '{"action": "left_click", "coordinate": [5, ' },
        { name: 'computer_use', arguments: { action: 'key', keys: pick(r, [['no_such_key_zz'], 'x', []]) } },
        { name: 'not_computer_use', arguments: { action: 'wait', time: 1 } },
      ]))
      : asText(pick(r, [
        () => garbage(r, 300).replace(/tool_call/gi, ''),
        () => `<tool_call>\n${garbage(r, 80)}\n</tool_call>`,
        () => '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1240, ',
        () => `<tool_call>\n{"name": "computer_use", "arguments": {"action": "${pick(r, ['fly', 'teleport', ''])}"}}\n</tool_call>`,
        () => `<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [${off[0]}, ${off[1]}]}}\n</tool_call>`,
        () => Buffer.concat([Buffer.from('<tool_call>\n{"name": "computer_use", "arguments": {"action": "'), Buffer.from([0xc0, 0x80, 0xff]), Buffer.from('"}}\n</tool_call>')]),
      ])())
    case 'hud': return asJson(pick(r, [
      { type: pick(r, ['warp', '', 5, null]) },
      { type: 'click', point: { x: off[0], y: off[1] }, button: 'left' },
      { type: 'click', point: pick(r, WRONG_POINT), button: 'left' },
      { type: 'type' },
      { type: 'press', keys: pick(r, [['no_such_key_zz'], 'x', 5]) },
      [{ type: 'click', point: { x: 5, y: 5 }, button: 'left' }, { type: 'warp' }],
      randomValue(r, 3),
    ]))
    case 'conatus': return asJson(pick(r, [
      { type: pick(r, ['zap', '', 5, null]) },
      { type: 'click', xy: off },
      { type: 'click', xy: pick(r, WRONG_POINT) },
      { type: 'keypress', keys: pick(r, [['no_such_key_zz'], 5, null]) },
      { name: 'computer', returned_arguments: '{"type": "click", "xy": [1, ', call_id: 'x' },
      { name: 'computer', returned_arguments: { type: 'zap' }, call_id: 'x' },
      randomValue(r, 3),
    ]))
    case 'operator': return asJson(pick(r, [
      { action: pick(r, ['fly', '', 5, null]) },
      { action: 'click', x: off[0], y: off[1] },
      { action: 'click', x: 'abc', y: 'def' },
      { action: 'type' },
      { action: 'shortcut', keys: pick(r, ['no_such_key_zz', 5, []]) },
      { action: 'app', mode: 'launch', name: 'not-allowed-app' },
      { action: 'wait', seconds: pick(r, [-1, 1e9, 'x']) },
      randomValue(r, 3),
    ]))
    case 'cup': return asJson(pick(r, [
      { action: pick(r, ['fly', '', 5, null]), element_id: 'e1' },
      { action: 'click', element_id: pick(r, ['e99999', 'zz', '', 5, null]) },
      { action: 'press_keys', keys: pick(r, ['no_such_key_zz', 5, null, '']) },
      { action: 'wait', ms: pick(r, ['x', [], {}]) }, // out-of-range ms is clamped, as the SDKs do: valid
      [{ action: 'wait', ms: 1 }, { action: 'fly' }],
      randomValue(r, 3),
    ]))
  }
}

/** Valid adapter payloads, only as bases for truncation and wrong content types. */
const VALID_ADAPTER: Record<string, unknown> = {
  anthropic: { action: 'mouse_move', coordinate: [20, 20] },
  openai: { type: 'computer_call', call_id: 'call_1', action: { type: 'move', x: 20, y: 20 } },
  gemini: { name: 'hover_at', args: { x: 20, y: 20 } },
  uitars: { response: "Action: click(start_box='(500,500)')" },
  qwen: { name: 'computer_use', arguments: { action: 'mouse_move', coordinate: [20, 20] } },
  hud: { type: 'move', point: { x: 20, y: 20 } },
  conatus: { type: 'move', xy: [20, 20] },
  operator: { action: 'move', x: 20, y: 20 },
  cup: { action: 'wait', ms: 1 },
}

// ---------------------------------------------------------------- whole requests

const WRONG_TYPES = ['text/html', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'image/png', 'application/octet-stream', 'application/json-patch+json', 'foo/bar', null]

function bodyKind (r: R, s: Screen): FuzzCase {
  const route = r()
  if (route < 0.35) {
    const target = pick(r, ['/computer', '/computer', '/computer', '/v1/instance/abc/computer'])
    const action = badAction(r, s)
    // The seed SDK's route takes a top-level null option as absent (its Python SDK sends every
    // option it was not given as null): an action whose fault is a null goes to /computer.
    const path = Object.values(action).includes(null) ? '/computer' : target
    return { kind: 'unified: invalid action', path, body: json(action), contentType: 'application/json' }
  }
  if (route < 0.5) {
    const ok = () => validAction(r, s)
    const body = pick(r, [
      () => ({ actions: [ok(), badAction(r, s)] }),
      () => ({ actions: [badAction(r, s), ok()] }),
      () => ({ actions: [] }),
      () => ({ actions: Array.from({ length: 101 }, ok) }),
      () => ({ actions: pick(r, WRONG.filter((v) => !Array.isArray(v))) }),
      () => ({}),
      () => ({ actions: [ok()], extra: 1 }),
      () => ({ action: 'move_mouse', coordinates: [5, 5] }),
      () => [ok()],
    ])()
    return { kind: 'batch: invalid', path: '/computer/batch', body: json(body), contentType: 'application/json' }
  }
  const adapter = pick(r, ADAPTERS)
  const { body, contentType } = badAdapter(r, s, adapter)
  return { kind: `adapter ${adapter}: invalid payload`, path: `/computer/${adapter}`, body, contentType }
}

function anyPath (r: R): string {
  return pick(r, ['/computer', '/computer/batch', ...ADAPTERS.map((a) => `/computer/${a}`)])
}

/** Bytes that are not the JSON they claim to be, or JSON that is not the object it must be. */
function malformed (r: R, s: Screen): FuzzCase {
  const path = anyPath(r)
  const adapter = path.split('/')[2]
  const valid = JSON.stringify(adapter && adapter !== 'batch' ? VALID_ADAPTER[adapter] : path.endsWith('batch') ? { actions: [validAction(r, s)] } : validAction(r, s))
  const variant = int(r, 0, 9)
  const c = (kind: string, body: Buffer | string, contentType: string | null = 'application/json'): FuzzCase =>
    ({ kind, path, body: Buffer.isBuffer(body) ? body : Buffer.from(body), contentType })
  switch (variant) {
    case 0: return c('truncated JSON', valid.slice(0, int(r, 1, valid.length - 1)))
    case 1: {
      const depth = int(r, 1000, 150_000)
      return c('deep nesting', r() < 0.5 ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth))
    }
    case 2: return c('prototype pollution', pick(r, [
      `{"__proto__":${valid}}`,
      valid.replace(/^\{/, '{"__proto__":{"isAdmin":true},'),
      valid.replace(/^\{/, '{"constructor":{"prototype":{"polluted":1}},'),
      `{"constructor":{"prototype":${valid}}}`,
    ]))
    case 3: return c('invalid UTF-8', Buffer.concat([Buffer.from(valid.slice(0, 2)), Buffer.from(pick(r, [[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xf0, 0x90, 0x80], [0xed, 0xa0, 0x80], [0xc0, 0xaf]])), Buffer.from(valid.slice(2))]))
    case 4: return c('lone surrogate in a name', valid.replace(/"(action|type|name)":"/, `"$1":"\\ud800`).replace(/^\{"/, '{"\\udfff'))
    case 5: return c('not JSON', pick(r, ['NaN', 'Infinity', '-', '{"action":NaN}', "{'action':'move_mouse'}", '{"a":1,}', '\u0000', '', '\ufeff{', 'null', 'true', '12', '"str"', garbage(r, 200)]))
    case 6: {
      // A body valid for its route, under a content type the route must not parse as JSON.
      const type = pick(r, WRONG_TYPES)
      return c('wrong content type', valid, type)
    }
    case 7: return c('JSON under text/plain', adapter === 'uitars' || adapter === 'qwen' ? '{"not":"a model reply"' : valid.slice(0, -1), 'text/plain')
    case 8: return r() < 0.3 ? c('over the body limit', Buffer.alloc(1_048_577 + int(r, 0, 1000), 0x20)) : c('empty body', '', pick(r, ['application/json', 'text/plain', null]))
    default: return c('random JSON', json({ [`k_${garbage(r, 6)}`]: randomValue(r, 5) }))
  }
}

/** Queries that no route may accept, on bodies that would otherwise run. */
function badQuery (r: R, s: Screen): FuzzCase {
  const path = anyPath(r)
  const adapter = path.split('/')[2]
  const body = json(adapter && adapter !== 'batch' ? VALID_ADAPTER[adapter] : path.endsWith('batch') ? { actions: [validAction(r, s)] } : validAction(r, s))
  const query = pick(r, [
    `display_width_px=${pick(r, ['1e9', '-1', '0', 'abc', 'NaN', '1.5', '99999999999999999999', '', '16385', 'Infinity'])}&display_height_px=768`,
    `display_width_px=1024&display_height_px=${pick(r, ['-5', '0', 'x', '1e308'])}`,
    `screenshot=${pick(r, ['maybe', '2', '[]'])}`,
    ...(adapter === 'anthropic' ? ['tool_version=computer_19990101', 'tool_version='] : []),
    ...(adapter === 'uitars' ? ['coordinates=sideways'] : []),
    ...(adapter === 'qwen' ? ['version=9', 'version=abc'] : []),
    ...(adapter === 'openai' ? ['scroll_px_per_notch=0', 'scroll_px_per_notch=-3', 'wait_seconds=-1'] : []),
  ])
  return { kind: 'invalid query', path: `${path}?${query}`, body, contentType: 'application/json' }
}

/** A valid request without the token, or with a wrong one: 401, and nothing runs. */
function badToken (r: R, s: Screen): FuzzCase {
  const path = pick(r, ['/computer', '/computer/batch', '/v1/instance/abc/computer'])
  const body = json(path.endsWith('batch') ? { actions: [validAction(r, s)] } : validAction(r, s))
  const variant = int(r, 0, 3)
  if (variant === 0) return { kind: 'no token', path, body, contentType: 'application/json', token: null }
  if (variant === 1) return { kind: 'wrong token', path, body, contentType: 'application/json', token: garbage(r, 40).replace(/[^\x21-\x7e]/g, 'x') }
  if (variant === 2) return { kind: 'wrong token', path, body, contentType: 'application/json', token: null, headers: { authorization: pick(r, ['Basic dXNlcjpwYXNz', 'Bearer', 'bearer  ', 'Token abc']) } }
  return { kind: 'wrong token', path: '/v1/instance/abc/computer', body, contentType: 'application/json', token: null, headers: { 'x-api-key': 'not-the-token' } }
}

/** `count` light cases (each refused at once), shuffled by the seed. */
export function fuzzCases (seed: number, count: number, screen: Screen): FuzzCase[] {
  const r = prng(seed)
  const out: FuzzCase[] = []
  for (let i = 0; i < count; i++) {
    const k = r()
    out.push(k < 0.55 ? bodyKind(r, screen) : k < 0.85 ? malformed(r, screen) : k < 0.95 ? badQuery(r, screen) : badToken(r, screen))
  }
  return out
}

/**
 * Requests beyond the bounds SPEC §7 names for the desktop's sake (scroll notches per action,
 * the declared display size, a batch's total time): each must be a 400 before any input. Run
 * one at a time after the light cases, since a server that accepts one is busy for long.
 */
export function heavyCases (screen: Screen): FuzzCase[] {
  const c = (kind: string, path: string, body: unknown): FuzzCase => ({ kind, path, body: json(body), contentType: 'application/json' })
  const centre = [Math.floor(screen.width / 2), Math.floor(screen.height / 2)]
  return [
    c('huge scroll (unified)', '/computer', { action: 'scroll', delta_y: 2_000_000 }),
    c('huge scroll (unified, x)', '/computer', { action: 'scroll', coordinates: centre, delta_x: -1e9 }),
    c('huge scroll (anthropic)', '/computer/anthropic?tool_version=computer_20251124', { action: 'scroll', coordinate: centre, scroll_direction: 'down', scroll_amount: 1_000_000 }),
    c('huge scroll (openai, px)', '/computer/openai', { type: 'scroll', x: centre[0], y: centre[1], scroll_x: 0, scroll_y: 1e9 }),
    c('huge scroll in a batch', '/computer/batch', { actions: Array.from({ length: 100 }, () => ({ action: 'scroll', delta_y: 100_000 })) }),
    c('batch of 100 waits (100 × 60 s)', '/computer/batch', { actions: Array.from({ length: 100 }, () => ({ action: 'wait', duration: 60 })) }),
    c('batch of 100 key holds (100 × 30 s)', '/computer/batch', { actions: Array.from({ length: 100 }, () => ({ action: 'press_key', keys: ['shift'], duration: 30 })) }),
    c('huge declared display', '/computer?display_width_px=16384&display_height_px=16384', { action: 'take_screenshot' }),
    c('huge declared display (anthropic)', '/computer/anthropic?tool_version=computer_20251124&display_width_px=16384&display_height_px=16384', { action: 'screenshot' }),
  ]
}
