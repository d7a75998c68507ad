/**
 * The accessibility tree on a real desktop: Xvfb, a window manager, the accessibility bus the
 * server starts, Chromium showing test/fixtures/accessibility/page.html (elements at known
 * pixels; what its buttons see is written to a status heading) and a GTK form (yad). GET
 * /accessibility must have the roles, names, states and bounds the page and the form put on
 * screen, fit the CUP schema, and compact to ≥ 60 % less; element actions (unified and
 * through the cup adapter) must have the effects read back from a new snapshot. Last, X is
 * restarted on the same display, as the supervised desktop does: the bus must carry on.
 */
import { setTimeout as delay } from 'node:timers/promises'
import AjvModule from 'ajv'
import t from 'tap'
import { CupEnvelope, type CupNode } from '../src/accessibility/schema.ts'
import { startXvfb } from '../drivers/x11/xvfb.ts'
import { post } from './helpers/build.ts'
import { startDesktop, until } from './helpers/desktop.ts'
import { buildA11yApp, flatten, serveFixturePage, startChromium, startGtkForm, startWindowManager, waitForTree } from './helpers/a11y.ts'

const Ajv = AjvModule.default
const validate = new Ajv({ strict: false, allErrors: true }).compile(CupEnvelope)

const xvfb = await startDesktop(t)
await startWindowManager(t, xvfb.display)
const { app, accessibility, bus } = await buildA11yApp(t, xvfb.display)
const url = await serveFixturePage(t)
const find = (nodes: CupNode[], name: string, role: string) => flatten(nodes).find((node) => node.name === name && node.role === role)

// The form first, and Chromium once the form is on the bus: the window mapped last takes the
// focus, and the tests below read the foreground (Chromium). Started together, a busy machine
// now and then mapped the form last.
startGtkForm(t, xvfb.display, bus.env)
await waitForTree(app, 'scope=full', (envelope) => find(envelope.tree, 'Shipping', 'window') !== undefined)
await startChromium(t, xvfb.display, bus.env, url)
const near = (t: { ok: (value: unknown, message: string) => unknown }, actual: CupNode['bounds'], expected: { x: number, y: number, w: number, h: number }, what: string) => {
  t.ok(actual, `${what} has bounds`)
  const off = Math.max(...(['x', 'y', 'w', 'h'] as const).map((key) => Math.abs(actual![key] - expected[key])))
  t.ok(off <= 3, `${what} at ${JSON.stringify(actual)}, within 3 px of ${JSON.stringify(expected)}`)
}

// Chromium, started last, takes the focus once its window maps: wait for that too.
const ready = (envelope: CupEnvelope) =>
  find(envelope.tree, 'Save', 'button') !== undefined && find(envelope.tree, 'Shipping', 'window') !== undefined &&
  envelope.windows!.some((window) => window.foreground && window.title.endsWith('Chromium'))
const full = await waitForTree(app, 'scope=full', ready)

t.test('both applications are on the accessibility bus, in CUP form', async (t) => {
  t.ok(validate(full), `fits the CUP schema ${JSON.stringify(validate.errors?.slice(0, 3) ?? '')}`)
  t.match(full, { version: '0.1.0', platform: 'linux', scope: 'full', screen: { w: 1280, h: 800 } })
  t.ok(full.windows!.some((window) => window.title === 'Shipping' && typeof window.pid === 'number'))
  t.ok(full.windows!.some((window) => window.foreground && window.title.endsWith('Chromium')), 'Chromium is the foreground')
})

t.test('Chromium: the page\'s buttons, inputs, check boxes and list where the page put them', async (t) => {
  const page = find(full.tree, 'Accessibility fixture', 'document')!
  t.ok(page, 'the web document')
  const tree = [page]
  const save = find(tree, 'Save', 'button')!
  near(t, save.bounds, { x: 100, y: 100, w: 120, h: 40 }, 'Save')
  t.strictSame(save.actions, ['click'])
  const cancel = find(tree, 'Cancel', 'button')!
  near(t, cancel.bounds, { x: 240, y: 100, w: 120, h: 40 }, 'Cancel')
  t.strictSame(cancel.states, ['disabled'])
  const email = find(tree, 'Email', 'textbox')!
  near(t, email.bounds, { x: 100, y: 200, w: 260, h: 32 }, 'Email')
  t.equal(email.value, 'ada@example.com')
  t.ok(email.states!.includes('editable'))
  t.ok(email.actions!.includes('type'))
  const password = find(tree, 'Password', 'textbox')!
  t.notOk('value' in password, 'the password is not read')
  const remember = find(tree, 'Remember me', 'checkbox')!
  near(t, remember.bounds, { x: 100, y: 320, w: 20, h: 20 }, 'Remember me')
  t.ok(checked(remember), 'checked before')
  t.strictSame(remember.actions, ['click', 'toggle'])
  t.equal(find(tree, 'Newsletter', 'checkbox')!.states, undefined, 'unchecked')
  const fruits = find(tree, 'Fruits', 'list')!
  near(t, fruits.bounds, { x: 500, y: 100, w: 200, h: 90 }, 'the list')
  t.strictSame(fruits.children!.map((item) => item.role), ['listitem', 'listitem', 'listitem'])
  t.strictSame(flatten(fruits.children!).filter((node) => node.role === 'text').map((node) => node.name), ['Apple', 'Banana', 'Cherry'])
  near(t, fruits.children![1]!.bounds, { x: 500, y: 130, w: 200, h: 30 }, 'Banana\'s item')
  const volume = find(tree, 'Volume', 'slider')!
  t.match(volume, { value: '7', attributes: { valueMin: 0, valueMax: 10 } })
  t.equal(find(tree, 'Order form', 'heading')!.attributes?.level, 1)
})

t.test('GTK: the form\'s entry, check box, spin button and buttons', async (t) => {
  const window = find(full.tree, 'Shipping', 'window')!
  const tree = [window]
  const recipient = find(tree, 'Recipient', 'textbox')!
  t.equal(recipient.value, 'Grace Hopper')
  t.ok(recipient.actions!.includes('type'))
  t.match(find(tree, 'Express', 'checkbox'), { states: ['checked'], actions: ['click', 'toggle'] })
  t.match(find(tree, 'Parcels', 'spinbutton'), { value: '3', attributes: { valueMin: 1, valueMax: 9 } })
  const ok = find(tree, 'OK', 'button')!
  t.strictSame(ok.actions, ['click'])
  // Where X says the window is: every control lies inside it.
  const frame = window.bounds!
  for (const node of flatten(tree).filter((n) => n.bounds && n.actions?.length)) {
    const b = node.bounds!
    t.ok(b.x >= frame.x && b.y >= frame.y && b.x + b.w <= frame.x + frame.w && b.y + b.h <= frame.y + frame.h, `${node.role} "${node.name}" lies inside the window`)
  }
})

t.test('foreground, scaling and compact', async (t) => {
  const started = performance.now()
  const foreground = await app.inject({ method: 'GET', url: '/accessibility' })
  const ms = Math.round(performance.now() - started)
  t.comment(`foreground snapshot: ${ms} ms, ${flatten(foreground.json().tree).length} nodes`)
  t.equal(foreground.statusCode, 200)
  t.ok(validate(foreground.json()), 'fits the CUP schema')
  t.ok(ms < 2000, `a snapshot takes ${ms} ms`)

  const scaled = await app.inject({ method: 'GET', url: '/accessibility?scope=full&display_width_px=640&display_height_px=400' })
  t.ok(validate(scaled.json()))
  t.strictSame(scaled.json().screen, { w: 640, h: 400 })
  const save = find(scaled.json().tree, 'Save', 'button')!
  near(t, save.bounds, { x: 50, y: 50, w: 60, h: 20 }, 'Save in the 640x400 space')

  const json = await app.inject({ method: 'GET', url: '/accessibility?scope=full' })
  const compact = await app.inject({ method: 'GET', url: '/accessibility?scope=full&format=compact' })
  t.equal(compact.statusCode, 200)
  const ratio = compact.body.length / json.body.length
  t.ok(ratio <= 0.4, `compact is ${Math.round((1 - ratio) * 100)} % smaller than the JSON (${compact.body.length} vs ${json.body.length} chars)`)
  t.match(compact.body, /\[e\d+\] btn "Save" 100,100 120x40 \[clk\]/)
  t.match(compact.body, /\[e\d+\] chk "Express" \d+,\d+ \d+x\d+ \{chk\} \[clk,tog\]/)
  t.comment(compact.body)
})

// Element actions. Every snapshot renumbers the ids, so each step looks its element up in the
// snapshot taken just before it, and reads the effect back from a new one.
const snapshot = async () => (await app.inject({ method: 'GET', url: '/accessibility?scope=full' })).json() as CupEnvelope
/** Snapshots until `ready` accepts one, or 5 s have passed: the last one, for the assertions to tell what is wrong. */
const settled = async (ready: (envelope: CupEnvelope) => boolean) => {
  const deadline = Date.now() + 5000
  for (;;) {
    const envelope = await snapshot()
    if (ready(envelope) || Date.now() > deadline) return envelope
    await delay(100)
  }
}
const named = (envelope: CupEnvelope, name: string, role: string) => {
  const node = find(envelope.tree, name, role)
  if (!node) throw new Error(`no ${role} "${name}" in the snapshot`)
  return node
}
const seen = (envelope: CupEnvelope) => flatten(envelope.tree).find((node) => node.role === 'heading' && node.attributes?.level === 2)?.name
const checked = (node: CupNode | undefined) => node?.states?.includes('checked') === true
const act = (element: string, verb: string, extra: Record<string, unknown> = {}) =>
  post(app, '/computer', { action: 'element_action', element, verb, ...extra })

t.test('click on the page\'s button fires its click, through its AT-SPI action', async (t) => {
  const started = performance.now()
  const save = named(await snapshot(), 'Save', 'button')
  const clicked = await act(save.id, 'click')
  t.equal(clicked.status, 200)
  t.match(clicked.body, { output: `click ${save.id} (button "Save"): by its AT-SPI action "press"`, element: { id: save.id, via: 'accessibility' } })
  const after = await settled((envelope) => seen(envelope) !== 'idle')
  t.equal(seen(after), 'click', 'the page saw one click')
  t.comment(`click and read back: ${Math.round(performance.now() - started)} ms`)
})

t.test('doubleclick and rightclick, which the button has no action for, are real input at its centre', async (t) => {
  const started = performance.now()
  const save = named(await snapshot(), 'Save', 'button')
  const double = await act(save.id, 'doubleclick')
  t.match(double.body, { output: `doubleclick ${save.id} (button "Save"): real input at (160, 120): left double click`, element: { via: 'input' }, cursor_position: [160, 120] })
  const right = await act(save.id, 'rightclick')
  t.match(right.body, { output: `rightclick ${save.id} (button "Save"): real input at (160, 120): right click`, element: { via: 'input' } })
  const after = await settled((envelope) => seen(envelope)?.endsWith('contextmenu') === true)
  t.equal(seen(after), 'click click click dblclick contextmenu', 'a real double click (two clicks, then dblclick), then a context menu')
  t.comment(`doubleclick, rightclick and read back: ${Math.round(performance.now() - started)} ms`)
})

t.test('type into the page\'s input (real input: it has no EditableText), setvalue on its slider (Value), toggle its check box', async (t) => {
  const started = performance.now()
  const email = named(await snapshot(), 'Email', 'textbox')
  const typed = await act(email.id, 'type', { value: 'grace@example.com' })
  t.match(typed.body, { output: `type ${email.id} (textbox "Email"): real input at (230, 216): left click, ctrl+a, 17 characters typed`, element: { via: 'input' } })
  // Real input reaches the page after the answer: read it back before an AT-SPI action moves the focus.
  const typedIn = await settled((envelope) => find(envelope.tree, 'Email', 'textbox')?.value === 'grace@example.com')
  t.equal(named(typedIn, 'Email', 'textbox').value, 'grace@example.com', 'the input holds what was typed, and nothing of before')
  const volume = named(typedIn, 'Volume', 'slider')
  t.match((await act(volume.id, 'setvalue', { value: '3' })).body, { output: /Value\.CurrentValue set to 3$/, element: { via: 'accessibility' } })
  const remember = named(typedIn, 'Remember me', 'checkbox')
  t.ok(checked(remember), 'checked before')
  t.match((await act(remember.id, 'toggle')).body, { output: /by its AT-SPI action "uncheck"$/, element: { via: 'accessibility' } })
  const after = await settled((envelope) => find(envelope.tree, 'Volume', 'slider')?.value === '3' && !checked(find(envelope.tree, 'Remember me', 'checkbox')))
  t.equal(named(after, 'Volume', 'slider').value, '3')
  t.notOk(checked(named(after, 'Remember me', 'checkbox')), 'unchecked')
  t.equal(named(after, 'Email', 'textbox').value, 'grace@example.com', 'still')
  t.comment(`type, setvalue, toggle and read back: ${Math.round(performance.now() - started)} ms`)
})

t.test('GTK: type and setvalue through EditableText and Value, toggle through its action', async (t) => {
  const started = performance.now()
  const before = await snapshot()
  const form = [named(before, 'Shipping', 'window')]
  const recipient = find(form, 'Recipient', 'textbox')!
  const typed = await act(recipient.id, 'type', { value: 'Ada Lovelace' })
  t.match(typed.body, { output: `type ${recipient.id} (textbox "Recipient"): EditableText.SetTextContents (12 characters)`, element: { via: 'accessibility' } })
  const parcels = find(form, 'Parcels', 'spinbutton')!
  t.match((await act(parcels.id, 'setvalue', { value: '5' })).body, { output: /Value\.CurrentValue set to 5$/ })
  const express = find(form, 'Express', 'checkbox')!
  t.ok(checked(express), 'checked before')
  t.match((await act(express.id, 'toggle')).body, { output: /by its AT-SPI action "click"$/ })
  const after = await settled((envelope) => {
    const window = flatten(envelope.tree).filter((node) => node.name === 'Shipping' && node.role === 'window')
    return find(window, 'Recipient', 'textbox')?.value === 'Ada Lovelace' && find(window, 'Parcels', 'spinbutton')?.value === '5' &&
      !checked(find(window, 'Express', 'checkbox'))
  })
  const window = [named(after, 'Shipping', 'window')]
  t.equal(find(window, 'Recipient', 'textbox')!.value, 'Ada Lovelace')
  t.equal(find(window, 'Parcels', 'spinbutton')!.value, '5')
  t.notOk(checked(find(window, 'Express', 'checkbox')!), 'unchecked')
  t.comment(`GTK type, setvalue, toggle and read back: ${Math.round(performance.now() - started)} ms`)
})

t.test('cup: toggle through POST /computer/cup answers an ActionResult; an element gone since the snapshot is a 409', async (t) => {
  const started = performance.now()
  const before = await snapshot()
  const newsletter = named(before, 'Newsletter', 'checkbox')
  const toggled = await post(app, '/computer/cup', { element_id: newsletter.id, action: 'toggle' })
  t.equal(toggled.status, 200)
  t.strictSame(toggled.body, { success: true, message: `Toggled ${newsletter.id} (checkbox "Newsletter"): by its AT-SPI action "check"`, error: null })

  // "Once" removes itself when clicked: its id, still the snapshot's, names an object that is gone.
  const once = named(before, 'Once', 'button')
  t.equal((await act(once.id, 'click')).status, 200)
  const deadline = Date.now() + 3000
  // Until Chromium has dropped it: meanwhile it may still take focus, or decline it while going (500).
  let focused = await act(once.id, 'focus')
  while (focused.status !== 409 && Date.now() < deadline) {
    await delay(50)
    focused = await act(once.id, 'focus')
  }
  const takeNew = 'take a new snapshot (GET /accessibility or get_accessibility_tree) and use its ids'
  t.strictSame(focused.body, { statusCode: 409, code: 'ERR_STALE_ELEMENT', error: 'Conflict', message: `element ${once.id} (button "Once") is gone since the snapshot; ${takeNew}` })
  const stale = await post(app, '/computer/cup', { element_id: once.id, action: 'click' })
  t.equal(stale.status, 409)
  t.strictSame(stale.body, { success: false, message: '', error: `element ${once.id} (button "Once") is gone since the snapshot; ${takeNew}` })

  const after = await settled((envelope) => checked(find(envelope.tree, 'Newsletter', 'checkbox')))
  t.ok(checked(named(after, 'Newsletter', 'checkbox')), 'checked')
  t.equal(find(after.tree, 'Once', 'button'), undefined, 'the button is gone')
  t.match(seen(after), / removed$/)
  t.comment(`cup toggle, stale id and read back: ${Math.round(performance.now() - started)} ms`)
})

t.test('after X restarts on the display, an application started without our environment joins the bus, and old ids are gone', async (t) => {
  const started = performance.now()
  const before = named(await snapshot(), 'Save', 'button')
  await xvfb.stop()
  const again = await startXvfb({ screen: '1280x800x24', display: xvfb.display })
  // The app first: with the display gone under it, the supervised desktop would be restarting.
  t.teardown(async () => { await app.close(); await again.stop() })
  // Neither bus in its environment, and a session bus that answers nothing: only the root
  // window's AT_SPI_BUS can lead the toolkit to the accessibility bus.
  const env: Record<string, string> = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus', AT_SPI_BUS_ADDRESS: '' }
  // The desktop follows the display to its new X server, as the server's does.
  t.ok(await until(async () => (await app.inject({ method: 'GET', url: '/health' })).statusCode === 200, 15_000), 'the desktop is back')
  const stale = await act(before.id, 'focus')
  t.equal(stale.status, 409, 'an id of an application that died with X')
  // The restart itself retired the ids (they named objects of the dead X server's applications).
  t.match(stale.body, { code: 'ERR_STALE_ELEMENT', message: `element ${before.id} is not in the last accessibility snapshot (it has no elements); take a new snapshot (GET /accessibility or get_accessibility_tree) and use its ids` })
  startGtkForm(t, again.display, env, 'Afterwards')
  const deadline = Date.now() + 5000
  let titles: string[] = []
  while (!titles.includes('Afterwards') && Date.now() < deadline) {
    await delay(100)
    titles = (await accessibility.windows()).map((window) => window.title)
  }
  t.ok(titles.includes('Afterwards'), `the form found the bus through the new root window (windows: ${JSON.stringify(titles)})`)
  t.comment(`${(await accessibility.bus()) === bus ? 'the same bus, published again' : 'a new bus'}; restart, stale id and a new application on the bus: ${Math.round(performance.now() - started)} ms`)
})
