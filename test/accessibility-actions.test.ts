/**
 * The accessibility actions above AT-SPI: get_accessibility_tree and element_action through
 * POST /computer over the fake driver and a source answering from the recorded Chromium page
 * and GTK form (test/fixtures/accessibility) — which way each verb takes (the application's
 * own interface, else real input at the element's centre, whose driver calls are asserted),
 * the fallbacks when the application declines, ids that no longer resolve (409), refusals
 * before any input (whole bodies), scaling, and the environment launched applications get.
 */
import AjvModule from 'ajv'
import t from 'tap'
import { CupEnvelope, type CupNode } from '../src/accessibility/schema.ts'
import type { AtspiRef } from '../src/accessibility/source.ts'
import { attempts, centreOf } from '../src/accessibility/strategy.ts'
import { AtspiState, stateWords } from '../src/accessibility/states.ts'
import { build, post } from './helpers/build.ts'
import { flatten, recordedSource } from './helpers/a11y.ts'
import { badRequest, errorBody } from './helpers/error-body.ts'

const Ajv = AjvModule.default
const validate = new Ajv({ strict: false, allErrors: true }).compile(CupEnvelope)
const SCREEN = { width: 1280, height: 800 }
const key = (ref: AtspiRef) => `${ref.bus}${ref.path}`

type TestContext = Parameters<Parameters<typeof t.test>[0]>[0]

async function setup (t: TestContext, options: Parameters<typeof build>[1] = {}) {
  const source = await recordedSource()
  const built = await build(t, { accessibility: source, ...options })
  const snapshot = async (query = '') => {
    const response = await post(built.app, `/computer${query}`, { action: 'get_accessibility_tree', scope: 'full' })
    t.equal(response.status, 200, 'snapshot taken')
    return response.body.accessibility as { tree: CupNode[] }
  }
  const id = (envelope: { tree: CupNode[] }, name: string, role?: string) =>
    flatten(envelope.tree).find((node) => node.name === name && (!role || node.role === role))!.id
  const act = (element: string, verb: string, extra: Record<string, unknown> = {}, query = '') =>
    post(built.app, `/computer${query}`, { action: 'element_action', element, verb, ...extra })
  /** A snapshot and its Save button, the driver's calls so far forgotten: what follows is the actions' alone. */
  const atSave = async (query = '') => {
    const tree = await snapshot(query)
    built.driver.calls.length = 0
    return { tree, save: id(tree, 'Save', 'button') }
  }
  return { ...built, source, snapshot, id, act, atSave }
}

const conflict = (message: string) => errorBody(409, 'ERR_STALE_ELEMENT', message)
const NEW_SNAPSHOT = 'take a new snapshot (GET /accessibility or get_accessibility_tree) and use its ids'

t.test('the ways to each verb, best first', async (t) => {
  const live = [AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING]
  const button = { role: 'button' as const, actions: ['press', 'showContextMenu'], interfaces: ['Action', 'Component'], states: stateWords(...live), bounds: { x: 100, y: 100, width: 120, height: 40 } }
  const at = { x: 160, y: 120 }
  t.strictSame(attempts('click', button, {}, SCREEN), [
    { via: 'accessibility', op: 'do_action', name: 'press', index: 0 },
    { via: 'input', at, focus: false, steps: [{ kind: 'click', button: 'left', count: 1 }] },
  ])
  t.strictSame(attempts('doubleclick', button, {}, SCREEN), [{ via: 'input', at, focus: false, steps: [{ kind: 'click', button: 'left', count: 2 }] }], 'no accessibility action double-clicks')
  t.strictSame(attempts('rightclick', button, {}, SCREEN), [{ via: 'input', at, focus: false, steps: [{ kind: 'click', button: 'right', count: 1 }] }],
    "Chromium's showContextMenu is not counted as a right click")
  t.strictSame(attempts('longpress', button, {}, SCREEN), [{ via: 'input', at, focus: false, steps: [{ kind: 'long_press', ms: 800 }] }])
  t.strictSame(attempts('scroll', button, { direction: 'up' }, SCREEN), [{ via: 'input', at, focus: false, steps: [{ kind: 'wheel', dx: 0, dy: -5 }] }])
  t.strictSame(attempts('focus', button, {}, SCREEN)[0], { via: 'accessibility', op: 'grab_focus' })
  t.strictSame(attempts('dismiss', button, {}, SCREEN), [{ via: 'input', at, focus: true, steps: [{ kind: 'keys', keys: ['Escape'] }] }])
  t.strictSame(attempts('type', button, { value: 'x' }, SCREEN), [], 'a button takes no text')

  const chromiumEntry = { role: 'textbox' as const, actions: ['activate', 'showContextMenu'], interfaces: ['Action', 'Component', 'Text'], states: stateWords(...live, AtspiState.EDITABLE), bounds: { x: 100, y: 200, width: 260, height: 32 } }
  t.strictSame(attempts('type', chromiumEntry, { value: 'hi' }, SCREEN), [
    { via: 'input', at: { x: 230, y: 216 }, focus: false, steps: [{ kind: 'click', button: 'left', count: 1 }, { kind: 'keys', keys: ['ctrl+a'] }, { kind: 'text', text: 'hi' }] },
  ], 'Chromium inputs have no EditableText: typed over by real input')
  t.strictSame(attempts('type', chromiumEntry, { value: '' }, SCREEN)[0], {
    via: 'input', at: { x: 230, y: 216 }, focus: false, steps: [{ kind: 'click', button: 'left', count: 1 }, { kind: 'keys', keys: ['ctrl+a'] }, { kind: 'keys', keys: ['BackSpace'] }],
  }, 'typing nothing empties it')
  const gtkEntry = { ...chromiumEntry, interfaces: ['Action', 'Component', 'EditableText', 'Text'] }
  t.strictSame(attempts('setvalue', gtkEntry, { value: 'Ada' }, SCREEN)[0], { via: 'accessibility', op: 'set_text', text: 'Ada' })
  const slider = { role: 'slider' as const, actions: ['doDefault', 'showContextMenu', 'decrement', 'increment'], interfaces: ['Action', 'Component', 'Value'], states: stateWords(...live), bounds: { x: 500, y: 300, width: 200, height: 24 } }
  t.strictSame(attempts('setvalue', slider, { value: ' 3 ' }, SCREEN), [{ via: 'accessibility', op: 'set_value', value: 3 }])
  t.strictSame(attempts('increment', slider, {}, SCREEN), [{ via: 'accessibility', op: 'do_action', name: 'increment', index: 3 }, { via: 'accessibility', op: 'step_value', sign: 1 }])
  const checkbox = { role: 'checkbox' as const, actions: ['uncheck', 'showContextMenu'], interfaces: ['Action', 'Component'], states: stateWords(...live, AtspiState.CHECKED), bounds: { x: 100, y: 320, width: 20, height: 20 } }
  t.strictSame(attempts('toggle', checkbox, {}, SCREEN)[0], { via: 'accessibility', op: 'do_action', name: 'uncheck', index: 0 })
  t.strictSame(attempts('select', checkbox, {}, SCREEN)[0], { via: 'accessibility', op: 'select' })
  t.strictSame(attempts('expand', { ...checkbox, actions: ['Expand or contract'] }, {}, SCREEN)[0], { via: 'accessibility', op: 'do_action', name: 'Expand or contract', index: 0 })
  t.strictSame(attempts('click', { ...button, bounds: { x: 1300, y: 10, width: 20, height: 20 } }, {}, SCREEN), [{ via: 'accessibility', op: 'do_action', name: 'press', index: 0 }], 'no real input off the screen')
  t.equal(centreOf({ x: 0, y: 0, width: 0, height: 10 }, SCREEN), undefined, 'nor at an element of no size')
})

t.test('get_accessibility_tree answers the snapshot in the action response', async (t) => {
  const { app } = await setup(t)
  const json = await post(app, '/computer', { action: 'get_accessibility_tree' })
  t.equal(json.status, 200)
  t.ok(validate(json.body.accessibility), 'a CUP envelope')
  t.match(json.body, { output: 'accessibility snapshot (foreground): 27 nodes', error: null, base64_image: null, truncated: false })
  t.notOk('text' in json.body)
  const compact = await post(app, '/computer?display_width_px=640&display_height_px=400', { action: 'get_accessibility_tree', scope: 'full', format: 'compact' })
  t.match(compact.body.text, /^# CUP 0\.1\.0 \| linux \| 640x400\n/)
  t.match(compact.body.text, /\[e\d+\] btn "Save" 50,50 60x20 \[clk\]/, 'bounds in the declared space')
  t.notOk('accessibility' in compact.body)
  const bad = await post(app, '/computer', { action: 'get_accessibility_tree', scope: 'everything' })
  t.strictSame(bad.body, badRequest('ERR_INVALID_ACTION', "scope must be one of 'foreground', 'desktop', 'full'"))

  const { app: noTree } = await build(t)
  t.strictSame((await post(noTree, '/computer', { action: 'get_accessibility_tree' })).body,
    badRequest('ERR_UNSUPPORTED_ACTION', 'this desktop has no X display, so it has no accessibility tree (the fake driver)'))
})

t.test("an element's own AT-SPI action comes first, and sends no input", async (t) => {
  const { id, act, source, driver, atSave } = await setup(t)
  const { tree, save } = await atSave()
  const clicked = await act(save, 'click')
  t.equal(clicked.status, 200)
  t.strictSame(clicked.body, {
    output: `click ${save} (button "Save"): by its AT-SPI action "press"`,
    error: null,
    base64_image: null,
    cursor_position: clicked.body.cursor_position,
    element: { id: save, role: 'button', name: 'Save', via: 'accessibility' },
  })
  t.strictSame(source.calls, [['inspect', 'Save'], ['doAction', 'Save', 0]])
  t.strictSame(driver.calls, [], 'no real input')

  source.calls.length = 0
  const toggled = await act(id(tree, 'Remember me'), 'toggle')
  t.match(toggled.body, { element: { name: 'Remember me', via: 'accessibility' }, output: /by its AT-SPI action "uncheck"$/ })
  const volume = id(tree, 'Volume')
  t.match((await act(volume, 'setvalue', { value: '3' })).body.output, /: Value\.CurrentValue set to 3$/)
  t.match((await act(volume, 'increment')).body.output, /by its AT-SPI action "increment"$/)
  const recipient = id(tree, 'Recipient', 'textbox')
  t.match((await act(recipient, 'type', { value: 'Ada Lovelace' })).body.output, /: EditableText\.SetTextContents \(12 characters\)$/)
  t.strictSame(source.calls.filter(([call]) => call !== 'inspect'), [
    ['doAction', 'Remember me', 0], ['setValue', 'Volume', 3], ['doAction', 'Volume', 3], ['setText', '', 'Ada Lovelace'],
  ])
  t.strictSame(driver.calls, [], 'still no real input')
})

t.test('what the element cannot do itself is real input at its centre, through the driver', async (t) => {
  const { id, act, driver, source, atSave } = await setup(t)
  const { tree, save } = await atSave()
  const double = await act(save, 'doubleclick')
  t.match(double.body, { output: `doubleclick ${save} (button "Save"): real input at (160, 120): left double click`, element: { via: 'input' }, cursor_position: [160, 120] })
  t.strictSame(driver.calls.map((call) => call.call), ['moveMouse', 'buttonDown', 'buttonUp', 'buttonDown', 'buttonUp'])
  t.match(driver.calls[0], { call: 'moveMouse', x: 160, y: 120 })

  driver.calls.length = 0
  const email = id(tree, 'Email', 'textbox')
  const typed = await act(email, 'type', { value: 'grace@example.com' })
  t.equal(typed.body.output, `type ${email} (textbox "Email"): real input at (230, 216): left click, ctrl+a, 17 characters typed`)
  t.strictSame(driver.calls.map((call) => call.call), ['moveMouse', 'buttonDown', 'buttonUp', 'keyDown', 'keyDown', 'keyUp', 'keyUp', 'typeText'])
  t.match(driver.calls.at(-1), { call: 'typeText', text: 'grace@example.com' })

  driver.calls.length = 0
  t.match((await act(id(tree, 'Fruits'), 'scroll', { direction: 'down' })).body.output, /real input at \(600, 145\): 5 wheel notches down$/)
  t.match(driver.calls, [{ call: 'moveMouse', x: 600, y: 145 }, { call: 'wheel', dx: 0, dy: 5 }])

  driver.calls.length = 0
  const started = performance.now()
  await act(save, 'longpress')
  t.ok(performance.now() - started >= 790, 'held for 0.8 s')
  t.strictSame(driver.calls.map((call) => call.call), ['moveMouse', 'buttonDown', 'moveMouse', 'buttonUp'])

  driver.calls.length = 0
  source.calls.length = 0
  t.match((await act(save, 'dismiss')).body.output, /real input at \(160, 120\) after Component\.GrabFocus: Escape$/)
  t.strictSame(source.calls, [['inspect', 'Save'], ['grabFocus', 'Save']])
  t.strictSame(driver.calls.map((call) => call.call), ['keyDown', 'keyUp'])
})

t.test('an application that declines is given real input instead', async (t) => {
  const { snapshot, id, act, driver, source } = await setup(t)
  const tree = await snapshot()
  source.answers.doAction = false
  driver.calls.length = 0
  const save = id(tree, 'Save', 'button')
  const clicked = await act(save, 'click')
  t.equal(clicked.body.output, `click ${save} (button "Save"): real input at (160, 120): left click`)
  t.strictSame(source.calls.slice(-2), [['inspect', 'Save'], ['doAction', 'Save', 0]])
  t.strictSame(driver.calls.map((call) => call.call), ['moveMouse', 'buttonDown', 'buttonUp'])

  // Nothing to fall back on: the Value is the only way to step this slider once its actions decline.
  source.answers.doAction = false
  const stepped = await act(id(tree, 'Volume'), 'decrement')
  t.match(stepped.body.output, /Value\.CurrentValue set from 7 to 6$/)
})

t.test('ids that do not resolve are a 409 that says to take a new snapshot', async (t) => {
  const { app, snapshot, id, act, source, driver } = await setup(t)
  t.strictSame((await act('e3', 'click')).body, conflict(`element e3: no accessibility snapshot has been taken yet; ${NEW_SNAPSHOT}`))
  const tree = await snapshot()
  const count = flatten(tree.tree).length
  const unknown = await act('e999', 'click')
  t.equal(unknown.status, 409)
  t.strictSame(unknown.body, conflict(`element e999 is not in the last accessibility snapshot (its ids are e0..e${count - 1}); ${NEW_SNAPSHOT}`))

  const save = id(tree, 'Save', 'button')
  const saveRef = source.node('Save', 'push button').ref
  source.gone.add(key(saveRef))
  driver.calls.length = 0
  const gone = await act(save, 'click')
  t.strictSame(gone.body, conflict(`element ${save} (button "Save") is gone since the snapshot; ${NEW_SNAPSHOT}`))
  t.strictSame(driver.calls, [], 'nothing sent')

  // A batch that takes the snapshot first acts on that snapshot's ids.
  const batch = await post(app, '/computer/batch', { actions: [{ action: 'get_accessibility_tree', scope: 'full' }, { action: 'element_action', element: id(tree, 'OK'), verb: 'click' }] })
  t.equal(batch.status, 200)
  t.match(batch.body.results[1], { element: { name: 'OK', via: 'accessibility' } })
})

t.test('a verb the element cannot take is refused while planning, before any input', async (t) => {
  const { app, id, act, driver, source, atSave } = await setup(t)
  const { tree, save } = await atSave()
  const volume = id(tree, 'Volume')
  source.calls.length = 0
  const cases: Array<[string, Record<string, unknown>, ReturnType<typeof badRequest>]> = [
    ['type into a button', { element: save, verb: 'type', value: 'x' },
      badRequest('ERR_UNSUPPORTED_ACTION', `element ${save} (button "Save") takes no text: type needs an editable text element`)],
    ['a word for a range', { element: volume, verb: 'setvalue', value: 'loud' },
      badRequest('ERR_INVALID_ACTION', `setvalue on ${volume} (slider "Volume") needs a number for its range, got "loud"`)],
    ['type without value', { element: save, verb: 'type' }, badRequest('ERR_INVALID_ACTION', "element_action 'type' needs value: the text to put in")],
    ['value for a click', { element: save, verb: 'click', value: 'x' }, badRequest('ERR_INVALID_ACTION', "value is only for the verbs 'type' and 'setvalue' (got verb 'click')")],
    ['scroll without direction', { element: save, verb: 'scroll' }, badRequest('ERR_INVALID_ACTION', "element_action 'scroll' needs direction: 'up', 'down', 'left' or 'right'")],
    ['direction for a click', { element: save, verb: 'click', direction: 'up' }, badRequest('ERR_INVALID_ACTION', "direction is only for the verb 'scroll' (got verb 'click')")],
    ['an unknown verb', { element: save, verb: 'hover' },
      badRequest('ERR_INVALID_ACTION', "verb must be one of 'click', 'collapse', 'decrement', 'dismiss', 'doubleclick', 'expand', 'focus', 'increment', 'longpress', 'rightclick', 'scroll', 'select', 'setvalue', 'toggle', 'type'")],
    ['not an id', { element: 'save', verb: 'click' }, badRequest('ERR_INVALID_ACTION', 'element must be an element id of the last accessibility snapshot, such as "e14"')],
    ['increment a button', { element: save, verb: 'increment' },
      badRequest('ERR_UNSUPPORTED_ACTION', `element ${save} (button "Save") offers no way to increment: no accessibility action or interface for it, and no bounds on the screen to act at`)],
  ]
  for (const [name, action, body] of cases) {
    const batch = await post(app, '/computer/batch', { actions: [{ action: 'click_mouse', button: 'left', coordinates: [5, 5] }, { action: 'element_action', ...action }] })
    t.equal(batch.status, body.statusCode, name)
    // The schema's refusals and planning's alike name the action's place in the batch.
    t.strictSame(batch.body, { ...body, message: `actions[1]: ${body.message}`, failed_index: 1 }, name)
  }
  t.strictSame(driver.calls, [], 'not even the batch\'s first click was sent')
  t.strictSame(source.calls, [], 'nor any accessibility call')
})

t.test('element actions scale with the request and attach screenshots', async (t) => {
  const { act, driver, atSave } = await setup(t)
  const { save } = await atSave('?display_width_px=640&display_height_px=400')
  const double = await act(save, 'doubleclick', { screenshot: true }, '?display_width_px=640&display_height_px=400')
  t.match(double.body, { output: /real input at \(80, 60\): left double click$/, cursor_position: [80, 60] })
  t.match(driver.calls[0], { call: 'moveMouse', x: 160, y: 120 }, 'the real centre')
  t.type(double.body.base64_image, 'string')
})

t.test('launch_app gives the application the accessibility bus', async (t) => {
  const { app, driver } = await setup(t, { apps: { editor: ['gedit'] } })
  const launched = await post(app, '/computer', { action: 'launch_app', app: 'editor' })
  t.equal(launched.status, 200)
  t.match(driver.calls.find((call) => call.call === 'launch'), {
    argv: ['gedit'], env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/session', AT_SPI_BUS_ADDRESS: 'unix:path=/tmp/a11y' },
  })
})
