/**
 * The gemini adapter: every function of both Computer Use sets translated (whole translate
 * bodies), the function responses it answers with (whole bodies, screenshots decoded), the
 * safety hold, and every 4xx. Payloads and the actions they become are in
 * test/fixtures/gemini/translate.json (sources named there).
 */
import t from 'tap'
import { geminiAdapter } from '../adapters/gemini/index.ts'
import { build, post } from './helpers/build.ts'
import { adapterCases, pngSize, leftClickAt, pressed } from './helpers/adapter-cases.ts'
import { errorBody } from './helpers/error-body.ts'

const CASES = adapterCases<{ payload: { name: string, id?: string, args?: { intent?: string } } }>('gemini')
const call = (name: string) => CASES.find((c) => c.name === name)!.payload
const translations = CASES.filter((c) => c.actions)

/** The body with each inline screenshot replaced by its size. */
function withImageSizes (body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) =>
    key === 'inlineData' ? { mimeType: value.mimeType, png: pngSize(value.data) } : value)
}

const callMeta = (name: string, count: number, extra: Record<string, unknown> = {}) =>
  ({ name, id: null, first: 0, count, safety_acknowledgement: false, intent: null, ...extra })

t.test('every function of both sets translates to unified actions on the grid', async (t) => {
  const { app, driver } = await build(t, { adapters: [geminiAdapter] })
  t.equal(translations.length, 33, 'every recorded call with its actions')
  const named = new Set(translations.map(({ payload }) => payload.name))
  t.equal(named.size, 29, 'the 13 legacy and 20 newer functions (4 shared) are all covered')
  for (const { name, payload: fixture, actions } of translations) {
    const { status, body } = await post(app, '/computer/gemini/translate', fixture)
    t.equal(status, 200, name)
    t.strictSame(body, {
      adapter: 'gemini',
      version: 'computer_use',
      actions,
      screenshot: false,
      display_width_px: 1000,
      display_height_px: 1000,
      meta: {
        list: false,
        calls: [callMeta(fixture.name, actions!.length, {
          ...(fixture.id && { id: fixture.id }),
          ...(fixture.args?.intent && { intent: fixture.args.intent }),
        })],
      },
    }, name)
  }
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

t.test('a list of calls runs in order, each answered with its own function response and screenshot', async (t) => {
  const { app, driver } = await build(t, { adapters: [geminiAdapter] })
  const turn = [call('click'), call('type'), call('key_combination')]
  const translated = await post(app, '/computer/gemini/translate', turn)
  t.strictSame(translated.body.meta, {
    list: true,
    calls: [
      callMeta('click', 1, { id: 'call-1', intent: 'Open the search box' }),
      callMeta('type', 2, { first: 1 }),
      callMeta('key_combination', 1, { first: 3 }),
    ],
  })

  const { status, body } = await post(app, '/computer/gemini?display_width_px=640&display_height_px=400', turn)
  t.equal(status, 200)
  const image = { inlineData: { mimeType: 'image/png', png: { width: 640, height: 400 } } }
  t.strictSame(withImageSizes(body), [
    { functionResponse: { id: 'call-1', name: 'click', response: {}, parts: [image] } },
    { functionResponse: { name: 'type', response: {}, parts: [image] } },
    { functionResponse: { name: 'key_combination', response: {}, parts: [image] } },
  ], 'screenshots at the display size, not the grid size')
  t.strictSame(driver.calls, [
    // (500, 300) on the grid is the pixel centre (640, 240) of the 1280x800 screen.
    ...leftClickAt(640, 240),
    { call: 'screenshot' },
    { call: 'typeText', text: 'Buy groceries' },
    ...pressed('enter'),
    { call: 'screenshot' },
    ...pressed('ctrl+c'),
    { call: 'screenshot' },
  ])
})

t.test('the REST API\'s parts are forwarded as they come: calls run, text parts are skipped', async (t) => {
  const { app, driver } = await build(t, { adapters: [geminiAdapter] })
  // candidates[0].content.parts of a generateContent response (Gemini API reference, Part:
  // text, thought, functionCall, thoughtSignature).
  const parts = [
    { text: 'I will open the search box and type the query.', thought: true },
    { functionCall: call('click'), thoughtSignature: 'CiQB0e2Kb7Vq' },
    { functionCall: call('type') },
  ]
  const bare = await post(app, '/computer/gemini/translate', [call('click'), call('type')])
  const wrapped = await post(app, '/computer/gemini/translate', parts)
  t.equal(wrapped.status, 200)
  t.strictSame(wrapped.body.actions, bare.body.actions, 'the same actions as the bare calls')
  t.strictSame(wrapped.body.meta.calls, bare.body.meta.calls)

  const { status, body } = await post(app, '/computer/gemini?screenshot=false', parts)
  t.equal(status, 200)
  t.strictSame(body, [
    { functionResponse: { id: 'call-1', name: 'click', response: {} } },
    { functionResponse: { name: 'type', response: {} } },
  ], 'one response per call, none for the text part')
  const one = await post(app, '/computer/gemini?screenshot=false', { functionCall: call('go_back') })
  t.strictSame(one.body, { functionResponse: { name: 'go_back', response: {} } })
  t.equal(driver.calls.filter((c) => c.call === 'typeText').length, 1)
})

t.test('one call is answered with one part; screenshot=false leaves the image out', async (t) => {
  const { app } = await build(t, { adapters: [geminiAdapter] })
  const one = await post(app, '/computer/gemini', call('navigate'))
  t.equal(one.status, 200)
  t.strictSame(withImageSizes(one.body), {
    functionResponse: { name: 'navigate', response: {}, parts: [{ inlineData: { mimeType: 'image/png', png: { width: 1280, height: 800 } } }] },
  })
  const bare = await post(app, '/computer/gemini?screenshot=false', call('go_back'))
  t.strictSame(bare.body, { functionResponse: { name: 'go_back', response: {} } })
  const look = await post(app, '/computer/gemini?screenshot=false', call('take_screenshot'))
  t.strictSame(withImageSizes(look.body), {
    functionResponse: { name: 'take_screenshot', response: {}, parts: [{ inlineData: { mimeType: 'image/png', png: { width: 1280, height: 800 } } }] },
  }, 'take_screenshot returns the screen even then')
})

t.test('a call held for confirmation is a 409 until acknowledged, then echoed as Google asks', async (t) => {
  const { app, driver } = await build(t, { adapters: [geminiAdapter] })
  const held = await post(app, '/computer/gemini', [call('type'), call('safety_click')])
  t.equal(held.status, 409)
  t.strictSame(held.body, errorBody(409, 'ERR_SAFETY_CHECK_PENDING', "[1] click_at needs the user's confirmation: \"I have encountered a CAPTCHA challenge that requires interaction. I need you to complete the challenge by clicking the 'I'm not a robot' checkbox and any subsequent verification steps.\". Ask the user; if they agree, send it again with ?safety_acknowledgement=true"))
  t.strictSame(driver.calls, [], 'nothing of the turn ran')

  const translated = await post(app, '/computer/gemini/translate?safety_acknowledgement=true', call('safety_click'))
  t.strictSame(translated.body.meta.calls, [callMeta('click_at', 1, { safety_acknowledgement: true })])

  const { status, body } = await post(app, '/computer/gemini?safety_acknowledgement=true', [call('type'), call('safety_click')])
  t.equal(status, 200)
  const image = { inlineData: { mimeType: 'image/png', png: { width: 1280, height: 800 } } }
  t.strictSame(withImageSizes(body), [
    { functionResponse: { name: 'type', response: {}, parts: [image] } },
    { functionResponse: { name: 'click_at', response: { safety_acknowledgement: 'true' }, parts: [image] } },
  ])
})

t.test('a call that fails mid-turn answers with the error; the calls after it say they did not run', async (t) => {
  const { app, driver } = await build(t, { adapters: [geminiAdapter] })
  driver.setBeforeCall((c) => { if (c.call === 'typeText') throw new Error('keyboard unplugged') })
  const { status, body } = await post(app, '/computer/gemini', [call('click'), call('type_text_at'), call('go_back')])
  t.equal(status, 500)
  t.strictSame(withImageSizes(body), [
    { functionResponse: { id: 'call-1', name: 'click', response: {}, parts: [{ inlineData: { mimeType: 'image/png', png: { width: 1280, height: 800 } } }] } },
    { functionResponse: { name: 'type_text_at', response: { error: 'the driver failed: keyboard unplugged' } } },
    { functionResponse: { name: 'go_back', response: { error: 'not run: the earlier call type_text_at failed' } } },
  ])
})

t.test('a turn refused before it runs answers every call natively with the reason', async (t) => {
  const { app, driver } = await build(t, { adapters: [geminiAdapter] })
  const offGrid = await post(app, '/computer/gemini', [call('click_at'), { name: 'click_at', args: { x: 1000, y: 5 } }])
  t.equal(offGrid.status, 400)
  const reason = "not run: actions[1]: coordinates (1000, 5) is outside Gemini's 1000x1000 normalised grid: x must be 0..999 and y 0..999"
  t.strictSame(offGrid.body, [
    { functionResponse: { name: 'click_at', response: { error: reason } } },
    { functionResponse: { name: 'click_at', response: { error: reason } } },
  ])
  const badKey = await post(app, '/computer/gemini', { name: 'key_combination', args: { keys: 'Control+Zz' } })
  t.equal(badKey.status, 400)
  t.strictSame(badKey.body, {
    functionResponse: { name: 'key_combination', response: { error: "not run: unknown key 'Zz' in 'Control+Zz' (closest known names: z, f1, f2)" } },
  })
  t.strictSame(driver.calls, [])
})

t.test('payload errors are 400s that name the function and the field', async (t) => {
  const { app, driver } = await build(t, { adapters: [geminiAdapter] })
  const cases: Array<[unknown, string]> = [
    [{ name: 'click_at', args: { x: 1 } }, "gemini: missing required field 'y' in args"],
    [{ name: 'click_at', args: { x: 1, y: 2, z: 3 } }, "gemini: unknown field 'z' in args (allowed: x, y, safety_decision, intent)"],
    [{ name: 'click_at', args: { x: 1.5, y: 2 } }, 'gemini: args.x must be integer'],
    [{ name: 'fly', args: {} }, 'gemini: unknown name "fly" (one of: open_web_browser, click_at, hover_at, type_text_at, scroll_document, scroll_at, wait_5_seconds, go_back, go_forward, search, navigate, key_combination, drag_and_drop, click, double_click, triple_click, middle_click, right_click, mouse_down, mouse_up, move, type, wait, press_key, key_down, key_up, hotkey, take_screenshot, scroll)'],
    [{ args: { x: 1, y: 2 } }, "gemini: missing required field 'name'"],
    [{ functionCall: { name: 'click_at', args: { x: 1 } } }, "gemini: missing required field 'y' in functionCall.args"],
    [{ functionCall: call('click_at'), thought: true }, "gemini: unknown field 'thought' (allowed: functionCall, thoughtSignature)"],
    [[{ text: 'Done.' }], 'the parts hold no functionCall: the model answered in text, there is nothing to run'],
    [{ text: 'Done.' }, "gemini: missing required field 'name'"],
    [{ name: 'scroll_at', args: { x: 1, y: 2, direction: 'north' } }, 'gemini: args.direction must be one of "up", "down", "left", "right", not "north"'],
    [{ name: 'hotkey', args: { keys: [] } }, 'gemini: args.keys must NOT have fewer than 1 items'],
    [{ name: 'wait', args: { seconds: 0 } }, 'gemini: args.seconds must be > 0'],
    [{ name: 'navigate', args: {} }, "gemini: missing required field 'url' in args"],
    [{ name: 'click_at', args: { x: 1, y: 2 }, thought: 'x' }, "gemini: unknown field 'thought' (allowed: name, args, id)"],
    [[call('click'), { name: 'type', args: {} }], "gemini: missing required field 'text' in [1].args"],
    [[], 'gemini: payload must NOT have fewer than 1 items'],
    [[3], 'gemini: [0] must be object'],
    ['click', 'gemini: payload must be a JSON object'],
  ]
  for (const [payload, message] of cases) {
    // A call of a list at fault is named by its index, in the message and as failed_index.
    const at = /\[(\d+)\]/.exec(message)
    for (const route of ['/computer/gemini', '/computer/gemini/translate']) {
      const { status, body } = await post(app, route, JSON.stringify(payload), { 'content-type': 'application/json' })
      t.equal(status, 400, `${route} ${JSON.stringify(payload)}`)
      t.strictSame(body, { statusCode: 400, code: 'ERR_INVALID_PAYLOAD', error: 'Bad Request', message, ...(at && { failed_index: Number(at[1]) }) })
    }
  }
  const query = await post(app, '/computer/gemini?safety_acknowledgement=maybe', call('click'))
  t.equal(query.status, 400)
  t.equal(query.body.code, 'ERR_INVALID_QUERY')
  t.strictSame(driver.calls, [])
})
