/**
 * The openai adapter on recorded computer use payloads (test/fixtures/openai, each case naming
 * its source): every action of both tool versions → unified actions through the translate
 * route; outcomes → computer_call_output items over the fake driver; the safety-check hold;
 * and every refusal, whole.
 */
import t from 'tap'
import { openaiAdapter } from '../adapters/openai/index.ts'
import { ACTION_TYPES } from '../adapters/openai/actions.ts'
import { build, post } from './helpers/build.ts'
import { type AdapterCase, adapterCases, fixture as adapterFixture, recordedRefusals } from './helpers/adapter-cases.ts'

interface NativeAction { type: string }
interface TranslateFields {
  version?: string
  query?: string
  payload: NativeAction | NativeAction[] | { type: 'computer_call', action?: NativeAction, actions?: NativeAction[] }
  actions: unknown[]
  call_id?: string
  sources?: number[]
  acknowledged?: unknown[]
  display?: [number, number]
}
type TranslateCase = AdapterCase<TranslateFields>

const fixture = <T>(name: string): T => adapterFixture<T>('openai', name)

/** The call's own actions, in order, as the adapter reads them. */
function nativeActions (body: TranslateCase['payload']): NativeAction[] {
  if (Array.isArray(body)) return body
  if (body.type !== 'computer_call') return [body]
  const call = body as { action?: NativeAction, actions?: NativeAction[] }
  return call.actions ?? (call.action ? [call.action] : [])
}

t.test('recorded calls → unified actions', async (t) => {
  const { app, driver } = await build(t, { adapters: [openaiAdapter] })
  const cases = adapterCases<TranslateFields>('openai')
  for (const c of cases) {
    const version = c.version ?? 'computer'
    const query = [`tool_version=${version}`, c.query].filter(Boolean).join('&')
    const { status, body } = await post(app, `/computer/openai/translate?${query}`, c.payload)
    const native = nativeActions(c.payload)
    t.equal(status, 200, `${c.source}: ${c.name}`)
    t.strictSame(body, {
      adapter: 'openai',
      version,
      actions: c.actions,
      screenshot: true,
      display_width_px: c.display?.[0] ?? 1280,
      display_height_px: c.display?.[1] ?? 800,
      meta: {
        call_id: c.call_id ?? null,
        acknowledged_safety_checks: c.acknowledged ?? [],
        actions: native.map((action) => action.type),
        sources: c.sources ?? c.actions.map((_, i) => Math.min(i, Math.max(0, native.length - 1))),
      },
    }, `${c.source}: ${c.name}: ${JSON.stringify(c.payload)}`)
  }
  const covered = (version: string) => new Set(cases.filter((c) => (c.version ?? 'computer') === version).flatMap((c) => nativeActions(c.payload).map((a) => a.type)))
  t.strictSame(ACTION_TYPES.filter((type) => !covered('computer').has(type)), [], 'every action has a recorded case (computer)')
  t.ok(covered('computer_use_preview').size >= 3, 'computer_use_preview has recorded cases of its own')
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

t.test('the version defaults to the computer tool', async (t) => {
  const { app } = await build(t, { adapters: [openaiAdapter] })
  const { body } = await post(app, '/computer/openai/translate', [{ type: 'wait' }])
  t.equal(body.version, 'computer')
  t.strictSame(body.actions, [{ action: 'wait', duration: 2 }])
})

t.test('refusals before anything runs, whole', async (t) => {
  const { app, driver } = await build(t, { adapters: [openaiAdapter] })
  await recordedRefusals(t, app, driver, 'openai', (c) => c.query ? `?${c.query}` : '')
})

/** Checks that the screenshot is a PNG data URL and stands in its size for the bytes. */
function sized (item: { output?: { image_url?: string } }) {
  const url = item.output?.image_url
  if (url === undefined) return item
  const prefix = 'data:image/png;base64,'
  if (!url.startsWith(prefix)) throw new Error(`not a PNG data URL: ${url.slice(0, 40)}`)
  const png = Buffer.from(url.slice(prefix.length), 'base64')
  if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('the image is not a PNG')
  return { ...item, output: { ...item.output, image_url: { png: [png.readUInt32BE(16), png.readUInt32BE(20)] } } }
}

const shot = (width: number, height: number, detail = true) =>
  ({ type: 'computer_screenshot', image_url: { png: [width, height] }, ...(detail && { detail: 'original' }) })
const CHECK = {
  id: 'cu_sc_67cb',
  code: 'malicious_instructions',
  message: "We've detected instructions that may cause your application to perform malicious or unauthorized actions. Please acknowledge this warning if you'd like to proceed.",
}
const HELD_CLICK = {
  type: 'computer_call',
  id: 'cu_67cb',
  call_id: 'call_nEJ',
  action: { type: 'click', button: 'left', x: 135, y: 193 },
  pending_safety_checks: [CHECK],
  status: 'completed',
}

interface RunCase {
  name: string
  query?: string
  body: unknown
  status?: number
  result: unknown
  calls?: unknown[]
  /** Compare only this many calls at each end (the driver interpolates the middle of a drag). */
  ends?: number
}

const RUNS: RunCase[] = [
  {
    name: 'a computer_call batch runs in order and is answered with one screenshot, paired by call_id',
    body: {
      type: 'computer_call',
      call_id: 'call_abc123',
      actions: [{ type: 'screenshot' }, { type: 'click', button: 'left', x: 405, y: 157, keys: ['SHIFT'] }, { type: 'type', text: 'penguin' }, { type: 'keypress', keys: ['CTRL', 'A'] }],
      status: 'completed',
    },
    result: { type: 'computer_call_output', call_id: 'call_abc123', output: shot(1280, 800) },
    calls: [
      { call: 'keyDown', key: 'shift' }, { call: 'moveMouse', x: 405, y: 157 }, { call: 'buttonDown', button: 'left' }, { call: 'buttonUp', button: 'left' }, { call: 'keyUp', key: 'shift' },
      { call: 'typeText', text: 'penguin' },
      { call: 'keyDown', key: 'ctrl' }, { call: 'keyDown', key: 'a' }, { call: 'keyUp', key: 'a' }, { call: 'keyUp', key: 'ctrl' },
      { call: 'screenshot' },
    ],
  },
  {
    name: 'computer_use_preview: the screenshot at the declared display, without detail',
    query: 'tool_version=computer_use_preview&display_width_px=1024&display_height_px=768',
    body: { type: 'computer_call', id: 'cu_67d841873c1081908bfc88b90a8555e0', call_id: 'call_wwEnfFDqQr1Z4Edk62Fyo7Nh', action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' },
    result: { type: 'computer_call_output', call_id: 'call_wwEnfFDqQr1Z4Edk62Fyo7Nh', output: shot(1024, 768, false) },
    calls: [{ call: 'screenshot' }],
  },
  {
    name: 'points are in the declared display: (512, 384) of 1024x768 is (640, 400) on the screen',
    query: 'display_width_px=1024&display_height_px=768&call_id=call_zw3',
    body: { type: 'double_click', x: 512, y: 384, keys: null },
    result: { type: 'computer_call_output', call_id: 'call_zw3', output: shot(1024, 768) },
    calls: [
      { call: 'moveMouse', x: 640, y: 400 }, { call: 'buttonDown', button: 'left' }, { call: 'buttonUp', button: 'left' },
      { call: 'buttonDown', button: 'left' }, { call: 'buttonUp', button: 'left' }, { call: 'screenshot' },
    ],
  },
  {
    name: 'an acknowledged safety check runs the call and is echoed',
    query: 'tool_version=computer_use_preview&acknowledge_safety_checks=cu_sc_67cb',
    body: HELD_CLICK,
    result: { type: 'computer_call_output', call_id: 'call_nEJ', output: shot(1280, 800, false), acknowledged_safety_checks: [CHECK] },
    calls: [{ call: 'moveMouse', x: 135, y: 193 }, { call: 'buttonDown', button: 'left' }, { call: 'buttonUp', button: 'left' }, { call: 'screenshot' }],
  },
  {
    name: 'scroll: pixels to notches at the point; wheel is the middle button',
    query: 'screenshot=false',
    body: [{ type: 'scroll', x: 640, y: 400, scroll_x: 0, scroll_y: -300 }, { type: 'click', button: 'wheel', x: 10, y: 20 }],
    result: { type: 'computer_call_output', output: { type: 'computer_screenshot' } },
    calls: [
      { call: 'moveMouse', x: 640, y: 400 }, { call: 'wheel', dx: 0, dy: -3 },
      { call: 'moveMouse', x: 10, y: 20 }, { call: 'buttonDown', button: 'middle' }, { call: 'buttonUp', button: 'middle' },
    ],
  },
  {
    name: 'drag through the path, holding a key',
    query: 'screenshot=false',
    body: { type: 'drag', path: [{ x: 100, y: 200 }, { x: 150, y: 250 }, { x: 200, y: 300 }], keys: ['CTRL'] },
    result: { type: 'computer_call_output', output: { type: 'computer_screenshot' } },
    calls: [
      { call: 'keyDown', key: 'ctrl' }, { call: 'moveMouse', x: 100, y: 200 }, { call: 'buttonDown', button: 'left' },
      // (the driver interpolates the moves in between)
      { call: 'moveMouse', x: 200, y: 300 }, { call: 'buttonUp', button: 'left' }, { call: 'keyUp', key: 'ctrl' },
    ],
    ends: 3,
  },
  {
    name: 'wait for wait_seconds, then the screen',
    query: 'wait_seconds=0.05',
    body: { type: 'computer_call', call_id: 'call_w', actions: [{ type: 'wait' }] },
    result: { type: 'computer_call_output', call_id: 'call_w', output: shot(1280, 800) },
    calls: [{ call: 'screenshot' }],
  },
]

t.test('outcomes → computer_call_output items', async (t) => {
  for (const run of RUNS) {
    t.test(run.name, async (t) => {
      const { app, driver } = await build(t, { adapters: [openaiAdapter] })
      const { status, body } = await post(app, `/computer/openai${run.query ? `?${run.query}` : ''}`, run.body)
      t.equal(status, run.status ?? 200)
      t.strictSame(sized(body), run.result)
      const calls = driver.calls.map(({ call, ...rest }) => ({ call, ...rest }))
      if (run.calls && run.ends) {
        t.strictSame([...calls.slice(0, run.ends), ...calls.slice(-run.ends)], run.calls)
        t.ok(calls.slice(run.ends, -run.ends).some((c) => JSON.stringify(c) === JSON.stringify({ call: 'moveMouse', x: 150, y: 250 })), 'through the middle point')
      } else if (run.calls) {
        t.strictSame(calls, run.calls)
      }
    })
  }
})

t.test('failures: the item marked incomplete, with our error and the error status', async (t) => {
  t.test('a point off the declared display is refused before anything runs', async (t) => {
    const { app, driver } = await build(t, { adapters: [openaiAdapter] })
    const { status, body } = await post(app, '/computer/openai?display_width_px=1024&display_height_px=768', {
      type: 'computer_call', call_id: 'call_oob', actions: [{ type: 'move', x: 3, y: 4 }, { type: 'click', button: 'left', x: 1024, y: 10 }],
    })
    t.equal(status, 400)
    t.strictSame(body, {
      type: 'computer_call_output',
      call_id: 'call_oob',
      output: { type: 'computer_screenshot' },
      status: 'incomplete',
      error: {
        code: 'ERR_POINT_OUT_OF_BOUNDS',
        message: 'actions[1]: coordinates (1024, 10) is outside the 1024x768 coordinate space declared by display_width_px/display_height_px: x must be 0..1023 and y 0..767',
      },
    })
    t.strictSame(driver.calls, [])
  })

  t.test('the driver failing in the second action: 500, the index of that action, and nothing held', async (t) => {
    const { app, driver } = await build(t, { adapters: [openaiAdapter] })
    let failed = false
    driver.setBeforeCall((call) => {
      if (call.call === 'buttonUp' && !failed) {
        failed = true
        throw new Error('pointer unplugged')
      }
    })
    const { status, body } = await post(app, '/computer/openai', {
      type: 'computer_call', call_id: 'call_fail', actions: [{ type: 'screenshot' }, { type: 'type', text: 'hi' }, { type: 'click', button: 'left', x: 10, y: 20, keys: ['SHIFT'] }, { type: 'wait' }],
    })
    t.equal(status, 500)
    t.strictSame(sized(body), {
      type: 'computer_call_output',
      call_id: 'call_fail',
      // The screen after the failure, so the item can go back to the model as it must.
      output: shot(1280, 800),
      status: 'incomplete',
      error: { code: 'ERR_DRIVER_FAILURE', message: 'the driver failed: pointer unplugged', failed_action: 2 },
    })
    const calls = driver.calls.map(({ call, ...rest }) => ({ call, ...rest }))
    t.strictSame(calls.slice(0, 4), [{ call: 'typeText', text: 'hi' }, { call: 'keyDown', key: 'shift' }, { call: 'moveMouse', x: 10, y: 20 }, { call: 'buttonDown', button: 'left' }])
    t.strictSame(new Set(calls.slice(4, 6).map((c) => JSON.stringify(c))), new Set([{ call: 'keyUp', key: 'shift' }, { call: 'buttonUp', button: 'left' }].map((c) => JSON.stringify(c))),
      'afterwards the held shift and button were released: no wait')
    t.strictSame(calls.slice(6), [{ call: 'screenshot' }], 'then one screenshot of the screen after the failure')
  })
})
