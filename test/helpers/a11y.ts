/**
 * Helpers for the accessibility tree. End to end: the app over the real nut driver with an
 * AT-SPI reader on the same display, Chromium showing the fixture page with its tree exposed,
 * and a GTK form (yad); every process is ended by PID (Chromium by process group) at
 * teardown. Above the driver: the recorded desktop (test/fixtures/accessibility) as a source
 * whose elements answer from their recorded state and remember every call.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pino from 'pino'
import { buildApp } from '../../src/http/app.ts'
import type { CupEnvelope } from '../../src/accessibility/schema.ts'
import { ElementGone, type AccessibilitySource, type AtspiRef, type ElementControl, type RawNode, type RawWindow } from '../../src/accessibility/source.ts'
import { SupervisedDesktop } from '../../drivers/supervised-desktop.ts'
import { AtspiDesktop } from '../../drivers/atspi/atspi-desktop.ts'
import { chromiumBinary, spawnOwned } from './processes.ts'

interface TestContext { teardown: (fn: () => unknown) => void }

/**
 * The app on `display` with an accessibility reader of its own; returns both, closed at
 * teardown. The driver is supervised as the server's is: an X server that dies on the display
 * and comes back is followed (input, and the bus's address on the new root window).
 */
export async function buildA11yApp (t: TestContext, display: string) {
  const accessibility = new AtspiDesktop({ display: () => display })
  const log = pino({ level: 'silent' })
  const driver = new SupervisedDesktop({ display, screen: '1280x800x24', log })
  const app = await buildApp({ driver, logger: log, desktop: { display }, accessibility })
  t.teardown(() => app.close())
  await app.ready()
  // Started now, so the applications below can be given its address.
  const bus = await accessibility.bus()
  return { app, accessibility, bus }
}

/** A window manager, so that the focused window is ACTIVE and Chromium's kiosk fills the screen. */
export async function startWindowManager (t: TestContext, display: string) {
  const openbox = spawnOwned(t, 'openbox', ['--sm-disable'], { env: { ...process.env, DISPLAY: display }, stdio: 'ignore' })
  await delay(300)
  return openbox
}

/** Serves test/fixtures/accessibility/page.html on a free local port. */
export async function serveFixturePage (t: TestContext): Promise<string> {
  const page = await readFile(new URL('../fixtures/accessibility/page.html', import.meta.url), 'utf8')
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8')
    response.end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`
}

/**
 * Chromium in kiosk mode on `url`, launched with the accessibility bus's environment and
 * --force-renderer-accessibility (it builds the web content's tree only for a screen reader).
 */
export async function startChromium (t: TestContext, display: string, env: Record<string, string>, url: string) {
  const binary = chromiumBinary()
  const profile = await mkdtemp(join(tmpdir(), 'cg-a11y-chromium-'))
  t.teardown(() => rm(profile, { recursive: true, force: true }))
  const chromium = spawnOwned(t, binary, [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--window-position=0,0',
    '--password-store=basic', '--disable-features=Translate,MediaRouter', '--noerrdialogs', '--disable-infobars',
    '--hide-crash-restore-bubble', '--force-renderer-accessibility', '--kiosk', url,
  ], { env: { ...process.env, ...env, DISPLAY: display }, stdio: 'ignore', group: true })
  return chromium
}

/** A GTK form: a text entry, a check box, a spin button, OK and Cancel. An empty variable in `env` is removed. */
export function startGtkForm (t: TestContext, display: string, env: Record<string, string>, title = 'Shipping') {
  const environment: NodeJS.ProcessEnv = { ...process.env, ...env, DISPLAY: display }
  for (const [name, value] of Object.entries(env)) if (value === '') delete environment[name]
  const yad = spawnOwned(t, 'yad', [
    '--form', `--title=${title}`, '--width=360', '--posx=700', '--posy=420',
    '--field=Recipient', '--field=Express:CHK', '--field=Parcels:NUM',
    'Grace Hopper', 'TRUE', '3!1..9!1',
  ], { env: environment, stdio: 'ignore' })
  return yad
}

/** GETs /accessibility until `ready` accepts the envelope (applications build their trees after their windows). */
export async function waitForTree (app: Awaited<ReturnType<typeof buildApp>>, query: string, ready: (envelope: CupEnvelope) => boolean, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    const response = await app.inject({ method: 'GET', url: `/accessibility?${query}` })
    last = response.statusCode === 200 ? response.json() : response.body
    if (response.statusCode === 200 && ready(last as CupEnvelope)) return last as CupEnvelope
    if (Date.now() > deadline) {
      // The windows first: which application is missing, or which one has the focus, is the usual answer.
      const windows = (last as Partial<CupEnvelope>)?.windows
      throw new Error(`the tree never got ready: windows ${JSON.stringify(windows)}; ${JSON.stringify(last).slice(0, 2000)}`)
    }
    await delay(200)
  }
}

/** Every node of a tree, depth first. */
export function flatten<T extends { children?: T[] }> (nodes: T[]): T[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children ?? [])])
}

export interface RecordedSource extends AccessibilitySource {
  /** Every element call, with the element's recorded name. */
  calls: Array<[string, ...unknown[]]>
  /** Objects that are gone (ElementGone from every call), by `bus + path`. */
  gone: Set<string>
  /** What DoAction, GrabFocus, SetTextContents and SelectChild answer (default true). */
  answers: { doAction: boolean, grabFocus: boolean, setText: boolean, select: boolean }
  /** The recorded node of the given name and AT-SPI role. */
  node: (name: string, role: string) => RawNode
}

/** The recorded Chromium page and GTK form as a live desktop; every element call is remembered and answers as `answers` says. */
export async function recordedSource (): Promise<RecordedSource> {
  const recorded = JSON.parse(await readFile(new URL('../fixtures/accessibility/desktop-raw.json', import.meta.url), 'utf8')) as { windows: RawWindow[], roots: RawNode[] }
  const key = (ref: AtspiRef) => `${ref.bus}${ref.path}`
  const byRef = new Map(flatten(recorded.roots).map((raw) => [key(raw.ref), raw]))
  const calls: RecordedSource['calls'] = []
  const gone = new Set<string>()
  const answers = { doAction: true, grabFocus: true, setText: true, select: true }
  const at = (ref: AtspiRef, call: string, ...args: unknown[]) => {
    calls.push([call, byRef.get(key(ref))?.name ?? key(ref), ...args])
    if (gone.has(key(ref))) throw new ElementGone(`${key(ref)} is gone`)
    return byRef.get(key(ref))!
  }
  const elements: ElementControl = {
    inspect: async (ref) => {
      const raw = at(ref, 'inspect')
      return { states: raw.states, actions: raw.actions, interfaces: raw.interfaces, extents: raw.extents }
    },
    doAction: async (ref, index) => { at(ref, 'doAction', index); return answers.doAction },
    grabFocus: async (ref) => { at(ref, 'grabFocus'); return answers.grabFocus },
    value: async (ref) => { const raw = at(ref, 'value'); return { ...(raw.value ?? { current: 0, min: 0, max: 0 }), step: 1 } },
    setValue: async (ref, value) => { at(ref, 'setValue', value) },
    setText: async (ref, text) => { at(ref, 'setText', text); return answers.setText },
    select: async (ref) => { at(ref, 'select'); return answers.select },
  }
  return {
    calls,
    gone,
    answers,
    node: (name, role) => flatten(recorded.roots).find((raw) => raw.name === name && raw.role === role)!,
    unavailable: () => undefined,
    windows: async () => recorded.windows,
    walk: async (roots) => {
      const found = roots.map((ref) => byRef.get(key(ref))!)
      return { roots: found, nodes: flatten(found).length, truncated: false }
    },
    elements,
    environment: async () => ({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/session', AT_SPI_BUS_ADDRESS: 'unix:path=/tmp/a11y' }),
    close: async () => {},
  }
}
