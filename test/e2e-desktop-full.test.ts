/**
 * The full desktop (--desktop full) through the real server, as a process on an Xvfb of its
 * own: the XFCE session draws its panel and wallpaper (a screenshot the server takes is no
 * empty root; the panel is in the accessibility tree); --autostart opens the browser on a URL
 * this test serves; the browser draws classic scrollbars (Firefox's policies); launch_app opens
 * the desktop's applications by name, on a target, maximised, and refuses targets it must not
 * hand over; Firefox's page is in the accessibility tree and
 * element_action presses its button; LibreOffice Calc's cells are in the tree and take a value; Xvfb killed with the browser open → /health says
 * unavailable, then the panel and a new browser are back; SIGTERM → no process of the session
 * is left. One server for all of it: the session takes seconds to start.
 */
import t from 'tap'
import sharp from 'sharp'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { requireProgram } from './helpers/processes.ts'
import { recordingSite, serverProcesses, startFullServer, waitForNode, waitUntil, type FullServer, type TreeNode } from './helpers/full-desktop.ts'
import { running } from './helpers/process-table.ts'

for (const program of ['xfce4-session', 'xfwm4', 'xfce4-panel', 'xfdesktop', 'firefox-esr', 'mousepad', 'libreoffice', 'dbus-run-session']) {
  requireProgram(program, 'the full desktop (npm run setup)')
}

const SCREEN = { width: 1024, height: 768 }
const panelButton = (nodes: TreeNode[]) => nodes.find((node) => node.role === 'button' && node.name === 'Applications')

/** Distinct colours in a screenshot the server took, and the mean brightness of its top rows (the panel). */
async function looksOf (server: FullServer) {
  const { status, body } = await server.act({ action: 'take_screenshot' })
  if (status !== 200) throw new Error(`take_screenshot: ${status} ${JSON.stringify(body)}`)
  const { data, info } = await sharp(Buffer.from(body.base64_image as string, 'base64')).raw().toBuffer({ resolveWithObject: true })
  const colours = new Set<number>()
  for (let i = 0; i < data.length; i += info.channels) colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!)
  return { colours: colours.size, width: info.width, height: info.height }
}

/** A process's nice value (/proc/PID/stat's 19th field) and its autogroup's, where the kernel has autogroups. */
function priorityOf (pid: number): { nice: number, group?: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
  const file = `/proc/${pid}/autogroup`
  // The file can be there but empty: the kernel prints nothing for a process whose autogroup
  // is not in use (seen on CI's machine). Only the nice value orders it then.
  const group = existsSync(file) ? /nice (-?\d+)/.exec(readFileSync(file, 'utf8')) : null
  return group ? { nice, group: Number(group[1]) } : { nice }
}

const windowsOf = async (server: FullServer) => (await server.act({ action: 'list_windows' })).body.windows as Array<{ class: string, title: string, width: number, height: number, pid: number | null }>

t.test('the full desktop: panel, wallpaper, applications by name, the tree, surviving X, ending clean', async (t) => {
  const site = await recordingSite(t, {
    '/start': '<!doctype html><title>Autostarted page</title><h1>Started with the desktop</h1>',
    '/form': '<!doctype html><title>Gateway form page</title><h1>A form</h1>' +
      '<button onclick="fetch(\'/pressed\')">Send it</button>',
    '/pressed': 'ok',
    '/long': '<!doctype html><title>Gateway long page</title><body style="margin:0;background:#2060a0">' +
      '<div style="height:5000px">A page taller than the window</div>',
  })
  const server = await startFullServer(t, ['--autostart', `browser=${site.origin}/start`])
  const started = performance.now()

  await t.test('the panel and the wallpaper are drawn', async (t) => {
    const panel = await waitForNode(server, 'scope=full&format=json', panelButton)
    t.ok(panel, 'the panel\'s Applications menu is in the accessibility tree')
    t.comment(`panel in the tree ${Math.round(performance.now() - started)} ms after the server started`)
    const looks = await looksOf(server)
    t.match(looks, { width: SCREEN.width, height: SCREEN.height })
    // An empty root is one colour; the wallpaper and the panel's icons are thousands.
    t.ok(looks.colours > 1000, `the screen has ${looks.colours} colours (an empty root has 1)`)
  })

  await t.test('--autostart opened the browser on the URL', async (t) => {
    t.ok(await waitUntil(() => site.requests.includes('/start'), 60_000), 'the browser requested /start')
    t.ok(await waitUntil(async () => (await windowsOf(server)).some((window) => window.class === 'firefox-esr'), 30_000), 'a Firefox window is open')
  })

  await t.test('launch_app refuses targets it must not hand over, before anything starts', async (t) => {
    mkdirSync(join(server.home, 'Documents'), { recursive: true })
    const cases: Array<[object, number, string, RegExp]> = [
      [{ app: 'browser', target: '--headless' }, 400, 'ERR_INVALID_ACTION', /begins with '-'/],
      [{ app: 'browser', target: 'ftp://example.com/' }, 403, 'ERR_TARGET_NOT_ALLOWED', /http, https or file URL; ftp URLs are not opened/],
      [{ app: 'browser', target: 'file:///etc/passwd' }, 403, 'ERR_TARGET_NOT_ALLOWED', /outside the desktop's home/],
      [{ app: 'browser', target: 'not a url' }, 400, 'ERR_INVALID_ACTION', /must be an http, https or file URL/],
      [{ app: 'editor', target: '/etc/passwd' }, 403, 'ERR_TARGET_NOT_ALLOWED', /outside the desktop's home/],
      [{ app: 'editor', target: '../../etc/passwd' }, 403, 'ERR_TARGET_NOT_ALLOWED', /outside the desktop's home/],
      [{ app: 'shell' }, 403, 'ERR_APP_NOT_ALLOWED', /allowed: browser, terminal, editor, files, pdf, calculator, writer, spreadsheet/],
    ]
    const before = (await windowsOf(server)).length
    for (const [fields, status, code, message] of cases) {
      const answer = await server.act({ action: 'launch_app', ...fields })
      t.match(answer, { status, body: { statusCode: status, code, message } }, JSON.stringify(fields))
    }
    t.equal((await windowsOf(server)).length, before, 'no window opened')
  })

  await t.test('launch_app opens the editor on a file under the home, maximised', async (t) => {
    writeFileSync(join(server.home, 'Documents', 'note.txt'), 'written before\n')
    const { status, body } = await server.act({ action: 'launch_app', app: 'editor', target: 'Documents/note.txt' })
    t.equal(status, 200, JSON.stringify(body))
    t.match(body.window, { class: 'Mousepad', title: /note\.txt/, focused: true, x: 0, width: SCREEN.width })
    // The session was ready only once the panel had reserved its strip: maximised, the window
    // stops at the panel's edge instead of covering it.
    const panel = (await windowsOf(server)).find((window) => window.class === 'Xfce4-panel') as { y: number, height: number } | undefined
    const editor = body.window as { y: number }
    t.ok(panel && panel.height > 0, `the panel is a window: ${JSON.stringify(panel)}`)
    t.ok(editor.y >= panel!.y + panel!.height, `the editor (y ${editor.y}) is below the panel (to y ${panel!.y + panel!.height})`)
  })

  await t.test('the applications yield the CPU to the server and X: the session and what launch_app starts run at nice 10', async (t) => {
    const processes = serverProcesses(server.server.pid!)
    const pidOf = (name: string) => [...processes].find(([, command]) => command.startsWith(name))?.[0]
    const ours = [server.server.pid!, pidOf('Xvfb')!]
    const apps = ['xfce4-session', 'xfce4-panel', 'firefox-esr', 'mousepad'].map((name) => ({ name, pid: pidOf(name) }))
    t.ok(apps.every(({ pid }) => pid !== undefined), `found ${apps.map(({ name, pid }) => `${name} ${pid}`).join(', ')}`)
    for (const pid of ours) t.equal(priorityOf(pid).nice, 0, `${processes.get(pid) ?? 'the server'}: nice 0`)
    const server0 = priorityOf(server.server.pid!)
    for (const { name, pid } of apps) {
      const priority = priorityOf(pid!)
      t.equal(priority.nice, 10, `${name}: nice 10`)
      // With autogroups the server's group is left as it is and each application's is lowered too.
      if (server0.group !== undefined) t.same([server0.group, priority.group], [0, 10], `${name}: its autogroup at nice 10, the server's at 0`)
    }
  })

  await t.test('launch_app browser on a URL: the page is in the tree, element_action presses its button', async (t) => {
    const { status, body } = await server.act({ action: 'launch_app', app: 'browser', target: `${site.origin}/form` })
    t.equal(status, 200, JSON.stringify(body))
    t.match(body.window, { class: 'firefox-esr', x: 0, width: SCREEN.width })
    t.ok(await waitUntil(() => site.requests.includes('/form'), 30_000), 'the browser requested /form')
    const button = await waitForNode(server, 'scope=full&format=json', (nodes) => nodes.find((node) => node.role === 'button' && node.name === 'Send it'))
    t.ok(button, 'the page\'s button is in the accessibility tree')
    const pressed = await server.act({ action: 'element_action', element: button!.id, verb: 'click' })
    t.equal(pressed.status, 200, JSON.stringify(pressed.body))
    t.ok(await waitUntil(() => site.requests.includes('/pressed'), 10_000), 'the page ran its click handler: the site got /pressed')
  })

  await t.test('the browser draws classic scrollbars (overlay ones cost ~100 ms of CPU a click): one shows beside a tall page at rest', async (t) => {
    const { status, body } = await server.act({ action: 'launch_app', app: 'browser', target: `${site.origin}/long` })
    t.equal(status, 200, JSON.stringify(body))
    t.ok(await waitUntil(async () => (await windowsOf(server)).some((window) => window.title.startsWith('Gateway long page')), 30_000), 'the page is up')
    const window = body.window as { x: number, y: number, width: number, height: number }
    // The pointer in the page's middle, then still: an overlay scrollbar has faded by then.
    await server.act({ action: 'move_mouse', coordinates: [window.x + Math.floor(window.width / 2), window.y + Math.floor(window.height / 2)] })
    await new Promise((resolve) => setTimeout(resolve, 3000))
    const shot = await server.act({ action: 'take_screenshot' })
    const { data, info } = await sharp(Buffer.from(shot.body.base64_image as string, 'base64')).raw().toBuffer({ resolveWithObject: true })
    const colourAt = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)]
    const page = colourAt(window.x + Math.floor(window.width / 2), window.y + window.height - 60)
    t.strictSame(page, [0x20, 0x60, 0xa0], 'the page\'s colour fills the window')
    // The column a few pixels in from the window's right edge, down the page's part of it.
    const rows = Array.from({ length: 200 }, (_, i) => window.y + 200 + Math.floor(i * (window.height - 260) / 200))
    const scrollbar = rows.filter((y) => colourAt(window.x + window.width - 5, y).some((value, i) => Math.abs(value - page[i]!) > 24)).length
    t.ok(scrollbar > 180, `a scrollbar is drawn at the right edge: ${scrollbar} of ${rows.length} rows are not the page's colour`)
  })

  await t.test('launch_app spreadsheet: LibreOffice\'s cells are in the tree, element_action selects one, typed text shows in its cell', async (t) => {
    const { status, body } = await server.act({ action: 'launch_app', app: 'spreadsheet' })
    t.equal(status, 200, JSON.stringify(body))
    // LibreOffice names its window Soffice until the document is loaded into it.
    t.match(body.window, { class: /^(Soffice|libreoffice-calc)$/, x: 0, width: SCREEN.width })
    // Read once the sheet has its final layout (the window is maximised after it maps).
    const cell = async (name: string) => waitForNode(server, 'scope=full&format=json&max_nodes=20000', (nodes) => nodes.find((node) => node.role === 'cell' && node.name === name))
    t.ok(await waitUntil(async () => (await windowsOf(server)).some((window) => /^Untitled 1 - LibreOffice Calc/.test(window.title)), 30_000), 'the sheet\'s window is up')
    // Keys typed while LibreOffice still loads the document are lost: it has focus once loaded.
    t.equal((await server.act({ action: 'focus_window', window: { title: 'Untitled 1 - LibreOffice Calc' } })).status, 200)
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const c3 = await cell('C3')
    t.ok(c3, 'cell C3 is in the accessibility tree')
    // Selected through LibreOffice's own accessibility interface (no coordinates).
    const selected = await server.act({ action: 'element_action', element: c3!.id, verb: 'select' })
    t.match(selected, { status: 200, body: { element: { role: 'cell', name: 'C3', via: 'accessibility' } } }, JSON.stringify(selected.body))
    type Cell = TreeNode & { states?: string[], value?: string }
    const isSelected = await waitForNode(server, 'scope=full&format=json&max_nodes=20000', (nodes) => (nodes as Cell[]).find((node) => node.role === 'cell' && node.name === 'C3' && node.states?.includes('selected')), 10_000)
    t.ok(isSelected, 'the tree shows C3 selected')
    // What is typed goes into the cell with the cursor, and the tree shows the cell's content.
    const cursor = await waitForNode(server, 'scope=full&format=json&max_nodes=20000', (nodes) => (nodes as Cell[]).find((node) => node.role === 'cell' && node.states?.includes('focused')), 10_000)
    t.ok(cursor, `the cell cursor is on ${cursor?.name}`)
    t.equal((await server.act({ action: 'type_text', text: '1234\n' })).status, 200)
    const filled = await waitForNode(server, 'scope=full&format=json&max_nodes=20000', (nodes) => (nodes as Cell[]).find((node) => node.role === 'cell' && node.name === cursor?.name && node.value === '1234'), 15_000)
    t.ok(filled, `the tree shows 1234 in ${cursor?.name}`)
    // A cell's bounds are where it is drawn: a click at their centre puts the cursor in it.
    // (LibreOffice itself reports its cells a title bar too high.)
    const e5 = await cell('E5') as Cell & { bounds: { x: number, y: number, w: number, h: number } }
    const centre = [Math.round(e5.bounds.x + e5.bounds.w / 2), Math.round(e5.bounds.y + e5.bounds.h / 2)]
    t.equal((await server.act({ action: 'click_mouse', coordinates: centre, button: 'left' })).status, 200)
    t.equal((await server.act({ action: 'type_text', text: '77\n' })).status, 200)
    const clicked = await waitForNode(server, 'scope=full&format=json&max_nodes=20000', (nodes) => (nodes as Cell[]).find((node) => node.role === 'cell' && node.value === '77'), 15_000)
    t.equal(clicked?.name, 'E5', `clicked at ${centre.join(', ')}, the centre of E5's bounds: 77 went into ${clicked?.name}`)
  })

  await t.test('Xvfb killed with the browser open: /health says so, then the panel and a new browser are back', async (t) => {
    const xvfb = [...serverProcesses(server.server.pid!)].find(([, command]) => command.startsWith('Xvfb'))
    t.ok(xvfb, 'the server runs an Xvfb')
    const autostarts = site.requests.filter((path) => path === '/start').length
    process.kill(xvfb![0], 'SIGKILL')
    const killed = performance.now()
    const healths: Array<{ status: number, ready: unknown }> = []
    const back = await waitUntil(async () => {
      const { status, body } = await server.get('/health')
      healths.push({ status, ready: body.ready })
      return status === 200 && healths.some((health) => health.status === 503)
    }, 30_000, 100)
    t.ok(back, `the desktop is back (${Math.round(performance.now() - killed)} ms)`)
    t.match(healths.find((health) => health.status === 503), { status: 503, ready: false }, 'meanwhile /health answered 503, not ready')
    const panel = await waitForNode(server, 'scope=full&format=json', panelButton)
    t.ok(panel, 'the panel is back in the accessibility tree')
    t.ok(await waitUntil(() => site.requests.filter((path) => path === '/start').length > autostarts, 60_000), 'a new browser opened the autostart URL')
    t.ok(await waitUntil(async () => (await windowsOf(server)).some((window) => window.class === 'firefox-esr'), 30_000), 'a Firefox window is open again')
    t.comment(`panel and browser back ${Math.round(performance.now() - killed)} ms after Xvfb was killed`)
  })

  await t.test('SIGTERM: no process of the session is left', async (t) => {
    const before = serverProcesses(server.server.pid!)
    const commands = [...before.values()]
    for (const name of ['Xvfb', 'xfce4-session', 'xfwm4', 'xfce4-panel', 'xfdesktop', 'dbus-daemon', 'firefox-esr']) {
      t.ok(commands.some((command) => command.includes(name)), `${name} was running`)
    }
    server.server.kill('SIGTERM')
    const exit = await server.exited
    t.equal(exit.code, 0, 'a clean exit')
    await waitUntil(() => [...before.keys()].every((pid) => !running(pid)), 3000)
    t.strictSame([...before].filter(([pid]) => running(pid)).map(([pid, command]) => `${pid} ${command}`), [], `none of the ${before.size} processes is left`)
  })
})
