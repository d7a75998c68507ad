/**
 * GET /accessibility on a real desktop: Xvfb, a window manager, the accessibility bus the
 * server starts, Chromium showing test/fixtures/accessibility/page.html (elements at known
 * pixels) and a GTK form (yad). The tree must have the roles, names, states and bounds the
 * page and the form put on screen, fit the CUP schema, and compact to ≥ 60 % less.
 */
import AjvModule from 'ajv'
import t from 'tap'
import { CupEnvelope, type CupNode } from '../src/accessibility/schema.ts'
import { startDesktop } from './helpers/desktop.ts'
import { buildA11yApp, flatten, serveFixturePage, startChromium, startGtkForm, startWindowManager, waitForTree } from './helpers/a11y.ts'

const Ajv = AjvModule.default
const validate = new Ajv({ strict: false, allErrors: true }).compile(CupEnvelope)

const xvfb = await startDesktop(t)
await startWindowManager(t, xvfb.display)
const { app, bus } = await buildA11yApp(t, xvfb.display)
const url = await serveFixturePage(t)
startGtkForm(t, xvfb.display, bus.env)
await startChromium(t, xvfb.display, bus.env, url)

const find = (nodes: CupNode[], name: string, role: string) => flatten(nodes).find((node) => node.name === name && node.role === role)
const near = (t: { ok: (value: unknown, message: string) => unknown }, actual: CupNode['bounds'], expected: { x: number, y: number, w: number, h: number }, what: string) => {
  t.ok(actual, `${what} has bounds`)
  const off = Math.max(...(['x', 'y', 'w', 'h'] as const).map((key) => Math.abs(actual![key] - expected[key])))
  t.ok(off <= 3, `${what} at ${JSON.stringify(actual)}, within 3 px of ${JSON.stringify(expected)}`)
}

const full = await waitForTree(app, 'scope=full', (envelope) =>
  find(envelope.tree, 'Save', 'button') !== undefined && find(envelope.tree, 'Shipping', 'window') !== undefined)

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
  t.strictSame(remember.states, ['checked'])
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
