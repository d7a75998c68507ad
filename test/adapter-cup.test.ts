/**
 * The cup adapter: CUP action specs, one or a batch, → unified actions (translate route, whole
 * bodies, from test/fixtures/cup), outcomes → CUP ActionResults (execute route over the fake
 * driver; element verbs on the recorded Chromium page and GTK form), and every refusal with
 * its whole body — ids that no longer resolve above all.
 */
import t from 'tap'
import { cupAdapter } from '../adapters/cup/index.ts'
import type { CupNode } from '../src/accessibility/schema.ts'
import { flatten, recordedSource } from './helpers/a11y.ts'
import { build, post } from './helpers/build.ts'
import { type Refusal, badRequest, adapterCases, refusedOnBothRoutes, leftClickAt, pressed } from './helpers/adapter-cases.ts'

const cases = adapterCases<{ actions: unknown[], steps: unknown[], batch?: boolean }>('cup')

const ACTION_LIST = 'press_keys, press, wait, click, collapse, decrement, dismiss, doubleclick, expand, focus, increment, longpress, rightclick, scroll, select, setvalue, toggle, type'

t.test('translate: recorded CUP specs become unified actions', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const context = { version: 'cup_0_1', screen: { width: 1280, height: 800 }, display: { width: 1280, height: 800 }, query: {} }
  for (const c of cases) {
    const { status, body } = await post(app, '/computer/cup/translate', c.payload)
    if (c.actions.some((action) => (action as { action: string }).action === 'element_action')) {
      // The route plans what it translated, and this desktop has no accessibility tree to
      // resolve element ids on: the translation itself is checked on the adapter, the route
      // against what executing would answer.
      const translation = cupAdapter.translate(cupAdapter.prepare!(c.payload) as Parameters<typeof cupAdapter.translate>[0], context)
      t.strictSame(translation.actions, c.actions, `${c.name} (${c.source})`)
      t.strictSame(translation.meta, { batch: c.batch ?? false, steps: c.steps }, c.name)
      const executed = await post(app, '/computer/cup', c.payload)
      t.equal(status, executed.status, `${c.name}: translate refuses as execute does`)
      const failed = Array.isArray(executed.body) ? executed.body.at(-1) : executed.body
      t.strictSame(failed, { success: false, message: '', error: body.message }, `${c.name}: the same message`)
      continue
    }
    t.equal(status, 200, c.name)
    t.strictSame(body, {
      adapter: 'cup',
      version: 'cup_0_1',
      actions: c.actions,
      screenshot: false,
      display_width_px: 1280,
      display_height_px: 800,
      meta: { batch: c.batch ?? false, steps: c.steps },
    }, `${c.name} (${c.source})`)
  }
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

const refusals: Refusal[] = [
  {
    name: 'an element verb without element_id (python-sdk tests/test_batch.py)',
    payload: { action: 'click' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: missing required field 'element_id' for action 'click'"),
  },
  {
    name: 'press_keys without keys (python-sdk tests/test_batch.py)',
    payload: { action: 'press_keys' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: missing required field 'keys' for action 'press_keys'"),
  },
  {
    name: 'press_keys with empty keys',
    payload: { action: 'press_keys', keys: '' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: keys must be a key combination such as 'ctrl+s'"),
  },
  {
    name: 'an element id that is not one',
    payload: { element_id: '14', action: 'toggle' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'cup: element_id must be a CUP element id such as "e14"'),
  },
  {
    name: 'a type without its value',
    payload: { element_id: 'e5', action: 'type' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: missing required field 'value' for action 'type'"),
  },
  {
    name: 'a value for a verb that takes none',
    payload: { element_id: 'e5', action: 'click', value: 'x' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: unknown field 'value' for action 'click' (allowed: action, element_id)"),
  },
  {
    name: 'a scroll direction CUP does not have',
    payload: { element_id: 'e5', action: 'scroll', direction: 'sideways' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: direction must be one of 'up', 'down', 'left', 'right'"),
  },
  {
    name: 'an unknown action',
    payload: { action: 'hover', element_id: 'e1' },
    body: badRequest('ERR_INVALID_PAYLOAD', `cup: unknown action "hover" (one of: ${ACTION_LIST})`),
  },
  {
    name: 'no action',
    payload: { keys: 'ctrl+s' },
    body: badRequest('ERR_INVALID_PAYLOAD', `cup: missing field 'action' (one of: ${ACTION_LIST})`),
  },
  {
    name: 'a field the action does not take',
    payload: { action: 'wait', ms: 100, keys: 'a' },
    body: badRequest('ERR_INVALID_PAYLOAD', "cup: unknown field 'keys' for action 'wait' (allowed: action, ms)"),
  },
  {
    name: 'a wait of text',
    payload: { action: 'wait', ms: '500' },
    body: badRequest('ERR_INVALID_PAYLOAD', 'cup: ms must be a number of milliseconds'),
  },
  {
    name: 'a bad spec inside a batch',
    payload: [{ action: 'wait' }, { action: 'press_keys' }],
    body: { ...badRequest('ERR_INVALID_PAYLOAD', "cup: [1]: missing required field 'keys' for action 'press_keys'"), failed_index: 1 },
  },
  {
    name: 'a batch item that is not an object',
    payload: ['ctrl+s'],
    body: { ...badRequest('ERR_INVALID_PAYLOAD', 'cup: [0] must be object'), failed_index: 0 },
  },
  {
    name: 'a screenshot asked for, which CUP results cannot carry',
    url: '?screenshot=true',
    payload: { action: 'press_keys', keys: 'ctrl+s' },
    body: badRequest('ERR_INVALID_QUERY', 'cup: CUP action results carry no image (its screenshot is a tool of its own); take one with POST /computer {"action": "take_screenshot"}'),
  },
]

t.test('refusals before anything runs are the usual error body, on both routes', (t) => refusedOnBothRoutes(t, cupAdapter, refusals))

t.test('execute: one press_keys answers one ActionResult', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const { status, body } = await post(app, '/computer/cup', { action: 'press_keys', keys: 'ctrl+s' })
  t.equal(status, 200)
  t.strictSame(body, { success: true, message: 'Pressed ctrl+s', error: null })
  t.strictSame(driver.calls, pressed('ctrl+s'))
})

t.test('execute: a batch answers one result per action, in order', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const started = performance.now()
  const { status, body } = await post(app, '/computer/cup', [
    { action: 'press_keys', keys: 'tab' },
    { action: 'wait', ms: 10 },
    { action: 'press', keys: 'Enter' },
  ])
  t.equal(status, 200)
  t.ok(performance.now() - started >= 50, 'the wait is clamped to 50 ms, as the SDKs do')
  t.strictSame(body, [
    { success: true, message: 'Pressed tab', error: null },
    { success: true, message: 'Waited 50ms', error: null },
    { success: true, message: 'Pressed Enter', error: null },
  ])
  t.strictSame(driver.calls, pressed('tab', 'enter'))
})

t.test('execute: an empty batch runs nothing and answers an empty list', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const { status, body } = await post(app, '/computer/cup', [])
  t.equal(status, 200)
  t.strictSame(body, [])
  t.strictSame(driver.calls, [])
})

t.test('execute: a batch stops at the failing action, whose result carries the error', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  driver.setBeforeCall((call) => { if (call.call === 'keyDown' && call.key === 'enter') throw new Error('keyboard unplugged') })
  const { status, body } = await post(app, '/computer/cup', [
    { action: 'press_keys', keys: 'tab' },
    { action: 'press_keys', keys: 'enter' },
    { action: 'press_keys', keys: 'tab' },
  ])
  t.equal(status, 500)
  t.strictSame(body, [
    { success: true, message: 'Pressed tab', error: null },
    { success: false, message: '', error: "Failed to press keys 'enter': the driver failed: keyboard unplugged" },
  ])
  t.strictSame(driver.calls.map((c) => c.call), ['keyDown', 'keyUp', 'keyUp'], 'tab pressed; enter released after its failed press; the third never ran')
})

t.test('execute: an unknown key refuses the request before any input, answered natively', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const single = await post(app, '/computer/cup', { action: 'press_keys', keys: 'ctrl+hyperspace' })
  t.equal(single.status, 400)
  t.match(single.body.error, /^unknown key 'hyperspace'/)
  t.strictSame(single.body, { success: false, message: '', error: single.body.error })

  const batch = await post(app, '/computer/cup', [{ action: 'press_keys', keys: 'tab' }, { action: 'press_keys', keys: 'hyperspace' }])
  t.equal(batch.status, 400)
  t.match(batch.body[0]?.error, /^actions\[1\]: unknown key 'hyperspace' \(closest known names: /, 'names the action at fault')
  t.strictSame(batch.body, [{ success: false, message: '', error: batch.body[0]?.error }], 'one failed result: the batch was refused whole')
  t.strictSame(driver.calls, [], 'nothing ran: the batch is planned whole first')
})

type TestContext = Parameters<Parameters<typeof t.test>[0]>[0]

/** The app over the fake driver and the recorded desktop, with a snapshot taken as a CUP client takes it. */
async function withTree (t: TestContext) {
  const source = await recordedSource()
  const built = await build(t, { adapters: [cupAdapter], accessibility: source })
  const snapshot = await built.app.inject({ method: 'GET', url: '/accessibility?scope=full' })
  t.equal(snapshot.statusCode, 200, 'snapshot taken')
  const tree = snapshot.json().tree as CupNode[]
  const id = (name: string, role: string) => flatten(tree).find((node) => node.name === name && node.role === role)!.id
  built.driver.calls.length = 0
  source.calls.length = 0
  return { ...built, source, tree, id }
}

const NEW_SNAPSHOT = 'take a new snapshot (GET /accessibility or get_accessibility_tree) and use its ids'

t.test('execute: an element verb is the element action on the same id, answered as the SDK words it', async (t) => {
  const { app, driver, source, id } = await withTree(t)
  const save = id('Save', 'button')
  const clicked = await post(app, '/computer/cup', { element_id: save, action: 'click' })
  t.equal(clicked.status, 200)
  t.strictSame(clicked.body, { success: true, message: `Clicked ${save} (button "Save"): by its AT-SPI action "press"`, error: null })
  t.strictSame(source.calls, [['inspect', 'Save'], ['doAction', 'Save', 0]])
  t.strictSame(driver.calls, [], "the application's own action: no input")

  source.calls.length = 0
  const volume = id('Volume', 'slider')
  const set = await post(app, '/computer/cup', { element_id: volume, action: 'setvalue', value: '3', keys: null, direction: null })
  t.strictSame(set.body, { success: true, message: `Set the value of ${volume} (slider "Volume"): Value.CurrentValue set to 3`, error: null })
  t.strictSame(source.calls, [['inspect', 'Volume'], ['setValue', 'Volume', 3]])
})

t.test('execute: a verb the element has no interface for is real input at its centre', async (t) => {
  const { app, driver, id } = await withTree(t)
  const save = id('Save', 'button')
  const double = await post(app, '/computer/cup', { element_id: save, action: 'doubleclick' })
  t.equal(double.status, 200)
  t.strictSame(double.body, { success: true, message: `Double-clicked ${save} (button "Save"): real input at (160, 120): left double click`, error: null })
  t.strictSame(driver.calls, [
    ...leftClickAt(160, 120),
    { call: 'buttonDown', button: 'left' },
    { call: 'buttonUp', button: 'left' },
  ])
})

t.test('execute: the documented batch — element verbs, a wait and a key press — one result each', async (t) => {
  const { app, driver, source, id } = await withTree(t)
  const ok = id('OK', 'button')
  const recipient = id('Recipient', 'textbox')
  const { status, body } = await post(app, '/computer/cup', [
    { element_id: ok, action: 'click' },
    { action: 'wait', ms: 50 },
    { element_id: recipient, action: 'type', value: 'hello' },
    { action: 'press_keys', keys: 'enter' },
  ])
  t.equal(status, 200)
  t.strictSame(body, [
    { success: true, message: `Clicked ${ok} (button "OK"): by its AT-SPI action "click"`, error: null },
    { success: true, message: 'Waited 50ms', error: null },
    { success: true, message: `Typed into ${recipient} (textbox "Recipient"): EditableText.SetTextContents (5 characters)`, error: null },
    { success: true, message: 'Pressed enter', error: null },
  ])
  t.strictSame(source.calls.filter(([call]) => call !== 'inspect'), [['doAction', 'OK', 0], ['setText', '', 'hello']])
  t.strictSame(driver.calls.map((call) => call.call), ['keyDown', 'keyUp'], 'only the key press is input')
})

t.test('execute: an id that no longer resolves is a failed ActionResult with status 409, saying to take a new snapshot', async (t) => {
  const none = await build(t, { adapters: [cupAdapter], accessibility: await recordedSource() })
  const early = await post(none.app, '/computer/cup', { element_id: 'e3', action: 'click' })
  t.equal(early.status, 409)
  t.strictSame(early.body, { success: false, message: '', error: `element e3: no accessibility snapshot has been taken yet; ${NEW_SNAPSHOT}` })

  const { app, driver, source, tree, id } = await withTree(t)
  const last = flatten(tree).length - 1
  const unknown = await post(app, '/computer/cup', { element_id: 'e999', action: 'toggle' })
  t.equal(unknown.status, 409)
  t.strictSame(unknown.body, { success: false, message: '', error: `element e999 is not in the last accessibility snapshot (its ids are e0..e${last}); ${NEW_SNAPSHOT}` })

  const save = id('Save', 'button')
  const ref = source.node('Save', 'push button').ref
  source.gone.add(`${ref.bus}${ref.path}`)
  const gone = await post(app, '/computer/cup', { element_id: save, action: 'click' })
  t.equal(gone.status, 409)
  t.strictSame(gone.body, { success: false, message: '', error: `element ${save} (button "Save") is gone since the snapshot; ${NEW_SNAPSHOT}` })

  // Known while planning: the batch is refused whole, before its key press.
  const batch = await post(app, '/computer/cup', [{ action: 'press_keys', keys: 'tab' }, { element_id: 'e999', action: 'click' }])
  t.equal(batch.status, 409)
  t.strictSame(batch.body, [{ success: false, message: '', error: `actions[1]: element e999 is not in the last accessibility snapshot (its ids are e0..e${last}); ${NEW_SNAPSHOT}` }])

  // Found gone while running: the batch stops there, after what ran.
  const stopped = await post(app, '/computer/cup', [{ action: 'press_keys', keys: 'tab' }, { element_id: save, action: 'click' }, { action: 'press_keys', keys: 'tab' }])
  t.equal(stopped.status, 409)
  t.strictSame(stopped.body, [
    { success: true, message: 'Pressed tab', error: null },
    { success: false, message: '', error: `element ${save} (button "Save") is gone since the snapshot; ${NEW_SNAPSHOT}` },
  ])
  t.strictSame(driver.calls.map((call) => call.call), ['keyDown', 'keyUp'], 'one tab pressed, nothing else')
})

t.test('execute: a verb the element cannot take is refused before any input, answered natively', async (t) => {
  const { app, driver, source, id } = await withTree(t)
  const save = id('Save', 'button')
  const typed = await post(app, '/computer/cup', [{ action: 'press_keys', keys: 'tab' }, { element_id: save, action: 'type', value: 'x' }])
  t.equal(typed.status, 400)
  t.strictSame(typed.body, [{ success: false, message: '', error: `actions[1]: element ${save} (button "Save") takes no text: type needs an editable text element` }])
  t.strictSame(driver.calls, [])
  t.strictSame(source.calls, [])
})

t.test('execute: without an accessibility tree, element verbs are a 400 that says so', async (t) => {
  const { app, driver } = await build(t, { adapters: [cupAdapter] })
  const { status, body } = await post(app, '/computer/cup', { element_id: 'e1', action: 'focus' })
  t.equal(status, 400)
  t.strictSame(body, { success: false, message: '', error: 'this desktop has no X display, so it has no accessibility tree (the fake driver)' })
  t.strictSame(driver.calls, [])
})
