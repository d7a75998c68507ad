/**
 * The anthropic adapter on recorded `computer` tool calls (test/fixtures/anthropic, each case
 * naming its source): every action of every version → unified actions through the translate
 * route; outcomes → tool_result blocks over the fake driver; and every refusal, whole.
 */
import t from 'tap'
import { anthropicAdapter } from '../adapters/anthropic/index.ts'
import { ACTIONS_20241022 } from '../adapters/anthropic/computer_20241022.ts'
import { ACTIONS_20250124 } from '../adapters/anthropic/computer_20250124.ts'
import { ACTIONS_20251124 } from '../adapters/anthropic/computer_20251124.ts'
import { build, post } from './helpers/build.ts'
import { adapterCases, fixture as adapterFixture, recordedRefusals } from './helpers/adapter-cases.ts'

interface TranslateFields {
  query?: string
  payload: { action?: string, input?: { action: string } }
  actions: unknown[]
  screenshot: boolean
  tool_use_id?: string
  display?: [number, number]
}

const fixture = <T>(name: string): T => adapterFixture<T>('anthropic', name)

/** The computer tool these tests speak when a case names no version: the toolset is the default now. */
const TOOL = 'tool_version=computer_20251124'
const versioned = (query?: string) => query?.includes('tool_version=') ? query : [TOOL, query].filter(Boolean).join('&')

const VERSIONS = {
  computer_20241022: ACTIONS_20241022,
  computer_20250124: ACTIONS_20250124,
  computer_20251124: ACTIONS_20251124,
}

for (const [version, table] of Object.entries(VERSIONS)) {
  t.test(`${version}: recorded calls → unified actions`, async (t) => {
    const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
    const cases = adapterCases<TranslateFields>('anthropic', `translate-${version}.json`)
    for (const c of cases) {
      const query = [`tool_version=${version}`, c.query].filter(Boolean).join('&')
      const { status, body } = await post(app, `/computer/anthropic/translate?${query}`, c.payload)
      const input = c.payload.input ?? c.payload
      t.equal(status, 200, `${c.source}: ${c.name}`)
      t.strictSame(body, {
        adapter: 'anthropic',
        version,
        actions: c.actions,
        screenshot: c.screenshot,
        display_width_px: c.display?.[0] ?? 1280,
        display_height_px: c.display?.[1] ?? 800,
        meta: { tool_use_id: c.tool_use_id ?? null, action: input.action },
      }, `${c.source}: ${c.name}: ${JSON.stringify(c.payload)}`)
    }
    const covered = new Set(cases.map((c) => (c.payload.input ?? c.payload).action))
    t.strictSame(Object.keys(table).filter((action) => !covered.has(action)), [], 'every action of the version has a recorded case')
    t.strictSame(driver.calls, [], 'translating runs nothing')
  })
}

t.test('the version defaults to the newest, the computer toolset; the newest computer tool is named in the query', async (t) => {
  const { app } = await build(t, { adapters: [anthropicAdapter] })
  const toolset = await post(app, '/computer/anthropic/translate', { type: 'tool_use', id: 'toolu_1', name: 'zoom', toolset_name: 'computer', input: { region: [10, 20, 110, 70] } })
  t.equal(toolset.body.version, 'computer_toolset_20260801')
  const { body } = await post(app, `/computer/anthropic/translate?${TOOL}`, { action: 'zoom', region: [10, 20, 110, 70] })
  t.equal(body.version, 'computer_20251124')
  t.strictSame(body.actions, [{ action: 'take_screenshot', region: [10, 20, 110, 70] }])
})

t.test('a null means absent only where the SDK types the field nullable: left_click with coordinate null clicks where the pointer is', async (t) => {
  const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
  // BetaComputerLeftClickInput: `coordinate?: Array<number> | null`, "at the specified (x, y)
  // pixel coordinate, or the current cursor position if `coordinate` is omitted".
  const input = { action: 'left_click', coordinate: null, text: null }
  const bare = await post(app, '/computer/anthropic/translate?tool_version=computer_20250124', input)
  t.equal(bare.status, 200)
  t.strictSame(bare.body.actions, [{ action: 'click_mouse', button: 'left' }])
  const wrapped = await post(app, '/computer/anthropic/translate?tool_version=computer_20250124', block(input))
  t.strictSame(wrapped.body.actions, bare.body.actions)
  await post(app, '/computer/batch', { actions: [{ action: 'move_mouse', coordinates: [40, 50] }] })
  driver.calls.length = 0
  const run = await post(app, `/computer/anthropic?${TOOL}&screenshot=false`, input)
  t.equal(run.status, 200)
  t.strictSame(driver.calls.map((c) => c.call), ['buttonDown', 'buttonUp'], 'clicked without moving: where the pointer was')
  t.strictSame(run.body.content, [{ type: 'text', text: 'clicked left' }])

  // Nulls the SDK never sends are refused, not guessed at.
  const refusals: Array<[string, Record<string, unknown>, string]> = [
    ['computer_20250124', { action: 'left_click', coordinate: [100, 200], start_coordinate: null },
      "anthropic computer_20250124: start_coordinate is not accepted for action 'left_click' in computer_20250124 (it takes coordinate, text)"],
    ['computer_20251124', { action: 'mouse_move', coordinate: null }, 'anthropic computer_20251124: coordinate must be a list of exactly 2 integers [x, y]'],
    ['computer_20251124', { action: 'type', text: null }, 'anthropic computer_20251124: text must be a non-empty string'],
    ['computer_20251124', { action: 'left_click_drag', start_coordinate: [1, 1], coordinate: null }, 'anthropic computer_20251124: coordinate must be a list of exactly 2 integers [x, y]'],
  ]
  for (const [version, body, message] of refusals) {
    const answer = await post(app, `/computer/anthropic/translate?tool_version=${version}`, body)
    t.strictSame(answer.body, { statusCode: 400, code: 'ERR_INVALID_PAYLOAD', error: 'Bad Request', message }, JSON.stringify(body))
  }
})

t.test('refusals before anything runs, whole', async (t) => {
  const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
  await recordedRefusals(t, app, driver, 'anthropic', (c) => `?${versioned(c.query)}`)
})

/** Checks that an image decodes as a PNG and stands in its size for the bytes. */
function sized (result: { content?: Array<Record<string, unknown>> }) {
  return {
    ...result,
    content: result.content?.map((block) => {
      if (block.type !== 'image') return block
      const source = block.source as { data: string }
      const png = Buffer.from(source.data, 'base64')
      if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('the image is not a PNG')
      return { ...block, source: { ...source, data: { width: png.readUInt32BE(16), height: png.readUInt32BE(20) } } }
    }),
  }
}

const image = (width: number, height: number) =>
  ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: { width, height } } })
const text = (value: string) => ({ type: 'text', text: value })
const ID = 'toolu_01A09q90qw90lq917835lq9'
const block = (input: Record<string, unknown>) => ({ type: 'tool_use', id: ID, name: 'computer', input })

interface RunCase {
  name: string
  query?: string
  /** Sent first, its answer unchecked: puts the pointer somewhere. */
  before?: Record<string, unknown>
  body: unknown
  result: unknown
  calls?: unknown[]
}

const RUNS: RunCase[] = [
  {
    name: 'a forwarded block: the answer pairs with it by tool_use_id, with a screenshot after the click',
    body: block({ action: 'left_click', coordinate: [640, 400] }),
    result: { type: 'tool_result', tool_use_id: ID, content: [text('clicked left at (640, 400)'), image(1280, 800)], is_error: false },
    calls: [{ call: 'moveMouse', x: 640, y: 400 }, { call: 'buttonDown', button: 'left' }, { call: 'buttonUp', button: 'left' }, { call: 'screenshot' }],
  },
  {
    name: 'a bare input with the id in the query',
    query: `tool_use_id=${ID}`,
    body: { action: 'right_click', coordinate: [500, 300], text: 'ctrl+shift' },
    result: { type: 'tool_result', tool_use_id: ID, content: [text('clicked right at (500, 300) holding ctrl+shift'), image(1280, 800)], is_error: false },
    calls: [
      { call: 'keyDown', key: 'ctrl' }, { call: 'keyDown', key: 'shift' }, { call: 'moveMouse', x: 500, y: 300 },
      { call: 'buttonDown', button: 'right' }, { call: 'buttonUp', button: 'right' },
      { call: 'keyUp', key: 'shift' }, { call: 'keyUp', key: 'ctrl' }, { call: 'screenshot' },
    ],
  },
  {
    name: '20241022 left_click_drag: press where the pointer is, move, release',
    query: 'tool_version=computer_20241022',
    before: { action: 'mouse_move', coordinate: [10, 20] },
    body: { action: 'left_click_drag', coordinate: [30, 40] },
    result: { type: 'tool_result', content: [text('pressed left\nmoved to (30, 40)\nreleased left'), image(1280, 800)], is_error: false },
    calls: [{ call: 'buttonDown', button: 'left' }, { call: 'moveMouse', x: 30, y: 40 }, { call: 'buttonUp', button: 'left' }, { call: 'screenshot' }],
  },
  {
    name: '20250124 left_click_drag from start_coordinate, holding shift',
    query: 'tool_version=computer_20250124&screenshot=false',
    body: { action: 'left_click_drag', start_coordinate: [10, 20], coordinate: [30, 40], text: 'shift' },
    result: { type: 'tool_result', content: [text('dragged from (10, 20) to (30, 40) through 2 points holding shift')], is_error: false },
  },
  {
    name: 'cursor_position answers "X=…,Y=…" in the declared display, without a screenshot',
    query: 'display_width_px=1024&display_height_px=768',
    before: { action: 'mouse_move', coordinate: [512, 384] },
    body: { action: 'cursor_position' },
    result: { type: 'tool_result', content: [text('X=512,Y=384')], is_error: false },
    calls: [],
  },
  {
    name: 'screenshot at the declared display size',
    query: 'display_width_px=1024&display_height_px=768',
    body: { action: 'screenshot' },
    result: { type: 'tool_result', content: [text('took a screenshot'), image(1024, 768)], is_error: false },
    calls: [{ call: 'screenshot' }],
  },
  {
    name: 'zoom: the region at its own size',
    body: { action: 'zoom', region: [10, 20, 110, 70] },
    result: { type: 'tool_result', content: [text('took a screenshot'), image(100, 50)], is_error: false },
    calls: [{ call: 'screenshot', region: { x: 10, y: 20, width: 100, height: 50 } }],
  },
  {
    name: 'type, then a screenshot',
    body: { action: 'type', text: 'Hello, World!' },
    result: { type: 'tool_result', content: [text('typed 13 characters'), image(1280, 800)], is_error: false },
    calls: [{ call: 'typeText', text: 'Hello, World!' }, { call: 'screenshot' }],
  },
  {
    name: 'key, with screenshot=false',
    query: 'screenshot=false',
    body: { action: 'key', text: 'ctrl+s' },
    result: { type: 'tool_result', content: [text('pressed ctrl+s')], is_error: false },
    calls: [{ call: 'keyDown', key: 'ctrl' }, { call: 'keyDown', key: 's' }, { call: 'keyUp', key: 's' }, { call: 'keyUp', key: 'ctrl' }],
  },
  {
    name: 'key with several combos presses each in turn',
    query: 'screenshot=false',
    body: { action: 'key', text: 'Down Down Down' },
    result: { type: 'tool_result', content: [text('pressed down\npressed down\npressed down')], is_error: false },
  },
  {
    name: 'scroll in notches at a point',
    query: 'screenshot=false',
    body: { action: 'scroll', coordinate: [640, 400], scroll_direction: 'down', scroll_amount: 3 },
    result: { type: 'tool_result', content: [text('scrolled 3 down at (640, 400)')], is_error: false },
    calls: [{ call: 'moveMouse', x: 640, y: 400 }, { call: 'wheel', dx: 0, dy: 3 }],
  },
  {
    name: 'hold_key for its duration',
    query: 'screenshot=false',
    body: { action: 'hold_key', text: 'shift', duration: 0.05 },
    result: { type: 'tool_result', content: [text('held shift for 0.05 s')], is_error: false },
    calls: [{ call: 'keyDown', key: 'shift' }, { call: 'keyUp', key: 'shift' }],
  },
  {
    name: 'wait, then a screenshot',
    body: { action: 'wait', duration: 0.05 },
    result: { type: 'tool_result', content: [text('waited 0.05 s'), image(1280, 800)], is_error: false },
  },
  {
    name: 'triple_click',
    query: 'screenshot=false',
    body: { action: 'triple_click', coordinate: [500, 300] },
    result: { type: 'tool_result', content: [text('triple-clicked left at (500, 300)')], is_error: false },
  },
  {
    name: 'left_mouse_down and left_mouse_up',
    query: 'screenshot=false',
    before: { action: 'left_mouse_down' },
    body: { action: 'left_mouse_up' },
    result: { type: 'tool_result', content: [text('released left')], is_error: false },
    calls: [{ call: 'buttonUp', button: 'left' }],
  },
]

t.test('outcomes → tool_result blocks', async (t) => {
  for (const run of RUNS) {
    t.test(run.name, async (t) => {
      const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
      const url = `/computer/anthropic?${versioned(run.query)}`
      if (run.before) t.equal((await post(app, url, run.before)).status, 200)
      const already = driver.calls.length
      const { status, body } = await post(app, url, run.body)
      t.equal(status, 200)
      t.strictSame(sized(body), run.result)
      if (run.calls) t.strictSame(driver.calls.slice(already).map(({ call, ...rest }) => ({ call, ...rest })), run.calls)
    })
  }
})

t.test('failures are tool_result blocks with is_error and the error status', async (t) => {
  t.test('an unknown key is refused before anything runs', async (t) => {
    const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
    const { status, body } = await post(app, `/computer/anthropic?${TOOL}`, block({ action: 'key', text: 'hyperspace' }))
    t.equal(status, 400)
    t.strictSame(body, {
      type: 'tool_result',
      tool_use_id: ID,
      content: [text("unknown key 'hyperspace' (closest known names: backspace, space, ampersand)")],
      is_error: true,
    })
    t.strictSame(driver.calls, [])
  })

  t.test('a point off the declared display', async (t) => {
    const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
    const { status, body } = await post(app, `/computer/anthropic?${TOOL}&display_width_px=1024&display_height_px=768`, { action: 'left_click', coordinate: [1024, 10] })
    t.equal(status, 400)
    t.strictSame(body, {
      type: 'tool_result',
      content: [text('coordinates (1024, 10) is outside the 1024x768 coordinate space declared by display_width_px/display_height_px: x must be 0..1023 and y 0..767')],
      is_error: true,
    })
    t.strictSame(driver.calls, [])
  })

  t.test('a zoom region off the screen', async (t) => {
    const { app } = await build(t, { adapters: [anthropicAdapter] })
    const { status, body } = await post(app, `/computer/anthropic?${TOOL}`, { action: 'zoom', region: [1200, 0, 1300, 10] })
    t.equal(status, 400)
    t.strictSame(body, {
      type: 'tool_result',
      content: [text('region [1200, 0, 1300, 10] is outside the 1280x800 screen: it must lie within [0, 0, 1280, 800]')],
      is_error: true,
    })
  })

  t.test('the driver failing midway through a 20241022 drag: 500, and the button is released', async (t) => {
    const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
    driver.setBeforeCall((call) => { if (call.call === 'moveMouse') throw new Error('pointer unplugged') })
    const { status, body } = await post(app, `/computer/anthropic?tool_version=computer_20241022&tool_use_id=${ID}`, { action: 'left_click_drag', coordinate: [30, 40] })
    t.equal(status, 500)
    t.strictSame(body, { type: 'tool_result', tool_use_id: ID, content: [text('the driver failed: pointer unplugged')], is_error: true })
    // The screen after the failure is read for every adapter; Anthropic's error result carries text only.
    t.strictSame(driver.calls.map((c) => c.call), ['buttonDown', 'buttonUp', 'screenshot'])
  })
})
