/**
 * The accessibility tree's logic above AT-SPI: role/state/action maps, normalisation (ids,
 * truncation, scaling), scopes, the compact encoding and its pruning, and the route — on a
 * capture recorded from Chromium showing test/fixtures/accessibility/page.html beside a GTK
 * form (yad), each envelope checked against the CUP schema.
 */
import { readFile } from 'node:fs/promises'
import AjvModule from 'ajv'
import t from 'tap'
import { cupActions } from '../src/accessibility/actions.ts'
import { capture } from '../src/accessibility/capture.ts'
import { formatLine, prune, serializeCompact } from '../src/accessibility/compact.ts'
import { normalize, scaleRect } from '../src/accessibility/normalize.ts'
import { ATSPI_ROLES, atspiRoleConstant, cupRole } from '../src/accessibility/roles.ts'
import { CUP_ACTIONS, CUP_ROLES, CUP_STATES, CupEnvelope, type CupNode } from '../src/accessibility/schema.ts'
import { SnapshotStore } from '../src/accessibility/snapshots.ts'
import type { AccessibilitySource, AtspiRef, ElementControl, RawNode, RawWindow, WalkLimits } from '../src/accessibility/source.ts'
import { AtspiState, cupStates, hasState, stateWords } from '../src/accessibility/states.ts'
import { build } from './helpers/build.ts'
import { flatten } from './helpers/a11y.ts'
import { answeredError, errorBody } from './helpers/error-body.ts'

const Ajv = AjvModule.default
const validate = new Ajv({ strict: false, allErrors: true }).compile(CupEnvelope)
const recorded = JSON.parse(await readFile(new URL('./fixtures/accessibility/desktop-raw.json', import.meta.url), 'utf8')) as { windows: RawWindow[], roots: RawNode[] }
const SCREEN = { width: 1280, height: 800 }

const unreachable = async (): Promise<never> => { throw new Error('no element is acted on here') }
const unusedElements: ElementControl = {
  inspect: unreachable, doAction: unreachable, grabFocus: unreachable, value: unreachable, setValue: unreachable, setText: unreachable, select: unreachable,
}

/** An AccessibilitySource answering from the recording, walking the recorded subtrees. */
function recordedSource (data = recorded): AccessibilitySource & { walks: AtspiRef[][] } {
  const walks: AtspiRef[][] = []
  const byPath = new Map(flatten(data.roots).map((node) => [`${node.ref.bus}${node.ref.path}`, node]))
  const cut = (node: RawNode, depth: number, limits: WalkLimits): RawNode =>
    ({ ...node, children: depth >= limits.maxDepth ? [] : node.children.map((child) => cut(child, depth + 1, limits)) })
  return {
    walks,
    unavailable: () => undefined,
    elements: unusedElements,
    environment: async () => ({}),
    windows: async () => data.windows,
    walk: async (roots, limits) => {
      walks.push(roots)
      const found = roots.map((ref) => byPath.get(`${ref.bus}${ref.path}`)!).map((node) => cut(node, 0, limits))
      return { roots: found, nodes: flatten(found).length, truncated: false }
    },
    close: async () => {},
  }
}

function assertValid (t: { ok: (value: unknown, message: string) => unknown }, envelope: unknown) {
  t.ok(validate(envelope), `the envelope fits the CUP schema${validate.errors ? `: ${JSON.stringify(validate.errors.slice(0, 3))}` : ''}`)
}

const byName = (nodes: CupNode[], name: string, role?: string) => flatten(nodes).find((node) => node.name === name && (!role || node.role === role))

t.test('the maps only produce CUP vocabulary', async (t) => {
  t.equal(CUP_ROLES.length, 59)
  t.equal(CUP_STATES.length, 16)
  t.equal(CUP_ACTIONS.length, 15)
  for (const [atspi, role] of Object.entries(ATSPI_ROLES)) t.ok(CUP_ROLES.includes(role), `${atspi} → ${role}`)
  t.equal(cupRole({ atspiRole: 'push button', hasChildren: false }), 'button')
  t.equal(cupRole({ atspiRole: 'frame', hasChildren: true }), 'window')
  t.equal(cupRole({ atspiRole: 'an unheard-of role', hasChildren: false }), 'generic')
  t.equal(cupRole({ atspiRole: 'landmark', xmlRoles: 'navigation', hasChildren: true }), 'navigation', 'the ARIA role refines web content')
  t.equal(cupRole({ atspiRole: 'entry', xmlRoles: 'searchbox', hasChildren: false }), 'searchbox')
  t.equal(cupRole({ atspiRole: 'section', xmlRoles: 'presentation', hasChildren: true }), 'generic', 'ARIA roles outside CUP are ignored')
  t.equal(cupRole({ atspiRole: 'list item', parentRole: 'list box', hasChildren: false }), 'option')
  t.equal(cupRole({ atspiRole: 'label', hasChildren: true }), 'generic', 'a label wrapping controls is structure')
  t.equal(cupRole({ atspiRole: 'label', hasChildren: false }), 'text')
  t.equal(atspiRoleConstant('push button'), 'ROLE_PUSH_BUTTON')
})

t.test('AT-SPI state words become CUP states', async (t) => {
  const words = stateWords(AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING, AtspiState.CHECKED, AtspiState.READ_ONLY)
  t.ok(hasState(words, AtspiState.READ_ONLY), 'state 43 lives in the second word')
  t.strictSame(cupStates(words, false), ['checked', 'readonly'])
  t.strictSame(cupStates(stateWords(AtspiState.VISIBLE, AtspiState.SHOWING), false), ['disabled'], 'not ENABLED is disabled')
  t.strictSame(cupStates(stateWords(AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING, AtspiState.EXPANDABLE), false), ['collapsed'])
  t.strictSame(cupStates(stateWords(AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING, AtspiState.EXPANDABLE, AtspiState.EXPANDED), false), ['expanded'])
  t.strictSame(cupStates(stateWords(AtspiState.ENABLED, AtspiState.VISIBLE), false), ['offscreen'], 'visible but not showing')
  t.strictSame(cupStates(stateWords(AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING), true), ['offscreen'], 'bounds off the screen')
  t.strictSame(cupStates(stateWords(AtspiState.ENABLED), false), ['hidden'])
  t.strictSame(cupStates(stateWords(AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING, AtspiState.EDITABLE, AtspiState.FOCUSED, AtspiState.REQUIRED), false),
    ['focused', 'required', 'editable'])
  // A GTK check box as recorded: enabled, sensitive, showing, visible, focusable, checked.
  t.strictSame(cupStates([1124075792, 0], false), ['checked'])
})

t.test('actions come from AT-SPI actions, interfaces and states', async (t) => {
  const live = [AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING]
  t.strictSame(cupActions({ role: 'button', atspiActions: ['click'], interfaces: ['Action'], states: stateWords(...live) }), ['click'], 'GTK')
  t.strictSame(cupActions({ role: 'button', atspiActions: ['press', 'showContextMenu'], interfaces: ['Action'], states: stateWords(...live) }), ['click'], 'Chromium')
  t.strictSame(cupActions({ role: 'generic', atspiActions: ['doDefault', 'showContextMenu'], interfaces: ['Action'], states: stateWords(...live) }), [],
    "Chromium's placeholders on every object mean nothing")
  t.strictSame(cupActions({ role: 'checkbox', atspiActions: ['uncheck'], interfaces: ['Action'], states: stateWords(...live) }), ['click', 'toggle'])
  t.strictSame(cupActions({ role: 'textbox', atspiActions: ['activate'], interfaces: ['Action', 'EditableText', 'Text'], states: stateWords(...live, AtspiState.EDITABLE) }),
    ['click', 'setvalue', 'type'])
  t.strictSame(cupActions({ role: 'textbox', atspiActions: [], interfaces: ['Text'], states: stateWords(...live, AtspiState.EDITABLE, AtspiState.READ_ONLY) }), [],
    'nothing to type into a read-only field')
  t.strictSame(cupActions({ role: 'slider', atspiActions: ['decrement', 'increment'], interfaces: ['Value'], states: stateWords(...live) }),
    ['decrement', 'increment', 'setvalue'])
  t.strictSame(cupActions({ role: 'treeitem', atspiActions: [], interfaces: [], states: stateWords(...live, AtspiState.EXPANDABLE, AtspiState.SELECTABLE) }),
    ['collapse', 'expand', 'select'])
  t.strictSame(cupActions({ role: 'generic', atspiActions: [], interfaces: [], states: stateWords(...live, AtspiState.FOCUSABLE) }), ['focus'])
})

t.test('a recorded Chromium page and GTK form normalise to valid CUP nodes', async (t) => {
  const { nodes, elements } = normalize(recorded.roots, { real: SCREEN, client: SCREEN })
  assertValid(t, { version: '0.1.0', platform: 'linux', screen: { w: 1280, h: 800 }, tree: nodes })
  const all = flatten(nodes)
  t.strictSame(all.map((node) => node.id), all.map((_, i) => `e${i}`), 'ids number the nodes in document order')
  t.equal(elements.size, all.length, 'every id is remembered')

  const save = byName(nodes, 'Save', 'button')!
  t.strictSame(save.bounds, { x: 100, y: 100, w: 120, h: 40 })
  t.strictSame(save.actions, ['click'])
  const page = byName(nodes, 'Accessibility fixture', 'document')!.children!
  t.strictSame(byName(page, 'Cancel', 'button')!.states, ['disabled'], "the page's disabled Cancel")
  t.equal(byName(nodes, 'Cancel', 'button')!.states, undefined, "the GTK form's Cancel is enabled")
  const email = byName(nodes, 'Email')!
  t.equal(email.role, 'textbox')
  t.equal(email.value, 'ada@example.com')
  t.equal(email.attributes?.placeholder, 'you@example.com')
  const password = byName(nodes, 'Password')!
  t.equal(password.role, 'textbox')
  t.notOk('value' in password, "a password field's text is never read")
  t.strictSame(byName(nodes, 'Remember me')!.states, ['checked'])
  t.equal(byName(nodes, 'Newsletter')!.states, undefined, 'unchecked: no states')
  t.strictSame(byName(nodes, 'Fruits')!.children!.map((item) => [item.role, item.children![0]!.name]), [['listitem', 'Apple'], ['listitem', 'Banana'], ['listitem', 'Cherry']])
  const volume = byName(nodes, 'Volume')!
  t.equal(volume.role, 'slider')
  t.equal(volume.value, '7')
  t.match(volume.attributes, { valueMin: 0, valueMax: 10, valueNow: 7, orientation: 'horizontal' })
  t.equal(byName(nodes, 'Order form')!.attributes?.level, 1)
  t.equal(byName(nodes, 'Accessibility fixture', 'document')!.role, 'document')

  // The GTK form: entry and spin button are named by their labels (LABELLED_BY).
  t.match(byName(nodes, 'Recipient', 'textbox'), { value: 'Grace Hopper', actions: ['click', 'setvalue', 'type'] })
  t.match(byName(nodes, 'Parcels', 'spinbutton'), { value: '3', attributes: { valueMin: 1, valueMax: 9 } })
  t.match(byName(nodes, 'Express', 'checkbox'), { states: ['checked'], actions: ['click', 'toggle'] })
  t.same(byName(nodes, 'Shipping', 'window')!.platform, { linux: { atspiRole: 'ROLE_FRAME', interfaces: ['Accessible', 'Component', 'Collection'] } })

  const record = elements.get(save.id)!
  t.strictSame(record.ref, recorded.roots.length && flatten(recorded.roots).find((node) => node.name === 'Save')!.ref, 'the id leads back to the AT-SPI object')
})

t.test('names and values are truncated to 200 characters, whitespace folded', async (t) => {
  const long = 'x'.repeat(500)
  const node: RawNode = {
    ref: { bus: ':1.1', path: '/a' }, role: 'entry', name: `  two\n  lines ${long}`, description: '', states: stateWords(AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING),
    interfaces: ['Text'], attributes: {}, extents: [0, 0, 10, 10], actions: [], text: long, value: null, labelledBy: null, children: [],
  }
  const [cup] = normalize([node], { real: SCREEN, client: SCREEN }).nodes
  t.equal(cup!.name.length, 200)
  t.ok(cup!.name.startsWith('two lines x'))
  t.equal(cup!.value!.length, 200)
  assertValid(t, { version: '0.1.0', platform: 'linux', screen: { w: 1280, h: 800 }, tree: [cup] })
})

t.test('bounds are scaled into the client space', async (t) => {
  t.strictSame(scaleRect({ x: 100, y: 100, w: 120, h: 40 }, SCREEN, { width: 640, height: 400 }), { x: 50, y: 50, w: 60, h: 20 })
  t.strictSame(scaleRect({ x: 101, y: 99, w: 3, h: 3 }, SCREEN, { width: 640, height: 400 }), { x: 50, y: 49, w: 2, h: 2 }, 'covers every pixel it had')
  const { nodes } = normalize(recorded.roots, { real: SCREEN, client: { width: 1024, height: 768 } })
  t.strictSame(byName(nodes, 'Save', 'button')!.bounds, { x: 80, y: 96, w: 96, h: 39 })
})

t.test('scopes choose windows; the envelope lists every window', async (t) => {
  const source = recordedSource()
  const foreground = await capture(source, { scope: 'foreground', maxDepth: 60, maxNodes: 4000, real: SCREEN, client: SCREEN })
  assertValid(t, foreground.envelope)
  t.match(foreground.envelope, { version: '0.1.0', platform: 'linux', scope: 'foreground', screen: { w: 1280, h: 800 }, app: { name: 'Chromium' } })
  t.equal(foreground.envelope.tree.length, 1)
  t.equal(foreground.envelope.tree[0]!.name, 'Accessibility fixture - Chromium', "nothing is ACTIVE without focus: the newest application's largest window")
  t.strictSame(foreground.envelope.windows!.map((w) => [w.title, w.foreground]),
    [['Shipping', false], ['Accessibility fixture - Chromium', true], ['Chromium', false], ['Chromium', false]])

  const active = structuredClone(recorded)
  active.windows[0]!.states = stateWords(AtspiState.ENABLED, AtspiState.VISIBLE, AtspiState.SHOWING, AtspiState.ACTIVE)
  const gtk = await capture(recordedSource(active), { scope: 'foreground', maxDepth: 60, maxNodes: 4000, real: SCREEN, client: SCREEN })
  t.equal(gtk.envelope.tree[0]!.name, 'Shipping', 'the ACTIVE window is the foreground')
  t.match(gtk.envelope.app, { name: 'yad' })

  // xfwm4 calls an untitled window of its own ACTIVE too, listed before the application's.
  const withWm = structuredClone(active)
  withWm.windows.unshift({ ...structuredClone(active.windows[0]!), title: '', role: 'window', app: { name: 'xfwm4', pid: 2276 } })
  const xfce = await capture(recordedSource(withWm), { scope: 'foreground', maxDepth: 60, maxNodes: 4000, real: SCREEN, client: SCREEN })
  t.equal(xfce.envelope.tree[0]!.name, 'Shipping', 'a titled ACTIVE window wins over the window manager\'s untitled one')
  t.match(xfce.envelope.app, { name: 'yad' })

  const full = await capture(source, { scope: 'full', maxDepth: 60, maxNodes: 4000, real: SCREEN, client: SCREEN })
  assertValid(t, full.envelope)
  t.equal(full.envelope.tree.length, 4)
  t.notOk('app' in full.envelope, 'no single application')

  const desktop = await capture(source, { scope: 'desktop', maxDepth: 60, maxNodes: 4000, real: SCREEN, client: SCREEN })
  assertValid(t, desktop.envelope)
  t.strictSame(desktop.envelope.tree, [], 'no desktop surface: only the window list')
  t.equal(desktop.envelope.windows!.length, 4)

  const shallow = await capture(source, { scope: 'foreground', maxDepth: 1, maxNodes: 4000, real: SCREEN, client: SCREEN })
  t.equal(Math.max(...shallow.envelope.tree.map(function depth (node: CupNode): number { return 1 + Math.max(0, ...(node.children ?? []).map(depth)) })), 2)
})

t.test('the compact encoding: short codes, pruning, ≥ 60 % smaller than the JSON', async (t) => {
  const { envelope } = await capture(recordedSource(), { scope: 'full', maxDepth: 60, maxNodes: 4000, real: SCREEN, client: SCREEN })
  const compact = serializeCompact(envelope)
  const json = JSON.stringify(envelope)
  t.ok(compact.length <= json.length * 0.4, `compact ${compact.length} chars vs JSON ${json.length}`)
  const lines = compact.split('\n')
  t.equal(lines[0], '# CUP 0.1.0 | linux | 1280x800')
  t.match(lines[1], /^# \d+ nodes \(\d+ before pruning\)$/)
  t.ok(lines.includes('#   Accessibility fixture - Chromium [fg]'))
  const save = byName(envelope.tree, 'Save', 'button')!
  t.ok(lines.some((line) => line.trim() === `[${save.id}] btn "Save" 100,100 120x40 [clk]`), 'a button: id, code, name, bounds, actions')
  t.ok(lines.some((line) => /\[e\d+\] chk "Remember me" 100,320 20x20 \{chk\} \[clk,tog\]/.test(line)))
  t.ok(lines.some((line) => /\[e\d+\] tbx "Email" 100,200 260x32 \{edt\} \[clk,typ\] val="ada@example.com" \(ph="you@example.com"\)/.test(line)))
  t.ok(lines.some((line) => /\[e\d+\] sld "Volume" 500,300 200x24 \[dec,inc,sv\] val="7" \(h range=0\.\.10\)/.test(line)))
  t.ok(lines.some((line) => /^ {4}\[e\d+\] btn "Cancel" \{dis\}$/.test(line)), 'inert nodes carry no bounds; indentation is depth')
  t.notOk(lines.some((line) => / gen( |$)/.test(line)), 'unnamed generics give way to their children')
  t.notOk(lines.some((line) => / txt$/.test(line)), 'no empty text')
})

t.test('pruning rules', async (t) => {
  const n = (id: number, role: CupNode['role'], name = '', extra: Partial<CupNode> = {}): CupNode => ({ id: `e${id}`, role, name, ...extra })
  const tree = [n(0, 'window', 'W', {
    bounds: { x: 0, y: 0, w: 100, h: 100 },
    children: [
      n(1, 'generic', '', { children: [n(2, 'button', 'OK', { actions: ['click'], bounds: { x: 1, y: 1, w: 10, h: 10 } })] }),
      n(3, 'img'),
      n(4, 'img', 'Logo'),
      n(5, 'text'),
      n(6, 'separator'),
      n(7, 'button', 'Zero', { actions: ['click'], bounds: { x: 5, y: 5, w: 0, h: 10 } }),
      n(8, 'text', 'Far', { states: ['offscreen'] }),
      n(9, 'list', 'Scroller', {
        actions: ['scroll'],
        bounds: { x: 0, y: 0, w: 100, h: 50 },
        children: [n(10, 'listitem', 'In', { bounds: { x: 0, y: 10, w: 100, h: 10 } }), n(11, 'listitem', 'Below', { bounds: { x: 0, y: 60, w: 100, h: 10 } })],
      }),
      n(12, 'group', '', { children: [n(13, 'link', 'Home', { actions: ['click'] })] }),
    ],
  })]
  const ids = flatten(prune(tree, { w: 100, h: 100 })).map((node) => node.id)
  t.strictSame(ids, ['e0', 'e2', 'e4', 'e9', 'e10', 'e13'])
  const envelope = { version: '0.1.0', platform: 'linux' as const, screen: { w: 100, h: 100 }, tree }
  t.match(serializeCompact(envelope), /\[e9\] lst "Scroller" 0,0 100x50 \[scr\]\n {4}\[e10\] li "In"\n {4}# 1 more items — scroll down to see\n/)
  t.equal(formatLine(n(1, 'button', `${'a'.repeat(100)}"`, { actions: ['click', 'focus'] })), `[e1] btn "${'a'.repeat(80)}..." [clk]`, 'names cut at 80; focus is noise')
  const big = serializeCompact({ ...envelope, tree: Array.from({ length: 500 }, (_, i) => n(i, 'button', `Button ${i}`)) }, 2000)
  t.ok(big.length < 2200)
  t.match(big, /# OUTPUT TRUNCATED/)
})

t.test('the snapshot store keeps the last capture', async (t) => {
  const store = new SnapshotStore()
  t.equal(store.lookup('e0'), undefined)
  const first = normalize(recorded.roots, { real: SCREEN, client: SCREEN })
  store.save(first.elements)
  t.equal(store.lookup('e0')!.name, 'Shipping')
  store.save(new Map())
  t.equal(store.lookup('e0'), undefined, 'a new snapshot retires the old ids')
  t.equal(store.current!.sequence, 2)
})

t.test('GET /accessibility', async (t) => {
  const source = recordedSource()
  const { app, logs } = await build(t, { accessibility: source })

  const json = await app.inject({ method: 'GET', url: '/accessibility' })
  t.equal(json.statusCode, 200)
  t.match(json.headers['content-type'], /^application\/json/)
  assertValid(t, json.json())
  t.equal(json.json().scope, 'foreground')
  t.ok(logs.some((line) => line.component === 'accessibility' && line.nodes === 27), 'each snapshot is logged with its size and time')

  const scaled = await app.inject({ method: 'GET', url: '/accessibility?display_width_px=640&display_height_px=400' })
  assertValid(t, scaled.json())
  t.strictSame(scaled.json().screen, { w: 640, h: 400 })
  t.strictSame(byName(scaled.json().tree, 'Save', 'button')!.bounds, { x: 50, y: 50, w: 60, h: 20 })

  const compact = await app.inject({ method: 'GET', url: '/accessibility?format=compact&scope=full' })
  t.equal(compact.statusCode, 200)
  t.match(compact.headers['content-type'], /^text\/plain/)
  t.match(compact.body, /^# CUP 0\.1\.0 \| linux \| 1280x800\n/)

  const shallow = await app.inject({ method: 'GET', url: '/accessibility?max_depth=0' })
  t.strictSame(shallow.json().tree[0].children, undefined)

  const bad = await app.inject({ method: 'GET', url: '/accessibility?scope=everything' })
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { statusCode: 400, code: 'ERR_INVALID_QUERY', error: 'Bad Request' })
  t.match(bad.json().message, /scope/)
  const half = await app.inject({ method: 'GET', url: '/accessibility?display_width_px=640' })
  t.strictSame(half.json(), errorBody(400, 'ERR_INVALID_QUERY', 'display_width_px and display_height_px go together: give both, or neither for the real screen size'))
  const unknown = await app.inject({ method: 'GET', url: '/accessibility?depth=3' })
  answeredError(t, unknown, 400, 'ERR_INVALID_QUERY', "unknown field 'depth' (allowed: scope, format, max_depth, max_nodes, display_width_px, display_height_px)")
})

t.test('GET /accessibility on a desktop without a display, or with a broken bus', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'GET', url: '/accessibility' })
  t.strictSame(response.json(), errorBody(400, 'ERR_UNSUPPORTED_ACTION', 'this desktop has no X display, so it has no accessibility tree (the fake driver)'))

  const failing: AccessibilitySource = {
    unavailable: () => undefined,
    elements: unusedElements,
    environment: async () => ({}),
    windows: async () => { throw new Error('org.freedesktop.DBus.Error.NoReply: no reply') },
    walk: async () => { throw new Error('unreachable') },
    close: async () => {},
  }
  const { app: broken } = await build(t, { accessibility: failing })
  const failed = await broken.inject({ method: 'GET', url: '/accessibility' })
  t.strictSame(failed.json(), errorBody(500, 'ERR_DRIVER_FAILURE', 'reading the accessibility tree failed: org.freedesktop.DBus.Error.NoReply: no reply'))
})
