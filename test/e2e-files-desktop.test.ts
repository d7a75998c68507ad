/**
 * Files and the clipboard on the full desktop (--desktop full --files --clipboard), through the
 * real server as a process: a file uploaded with PUT /files is opened in the editor (mousepad,
 * launch_app editor with the file as target), the typing corpus set with set_clipboard is
 * pasted into it with ctrl+v and saved, and the download with GET /files is exactly the corpus;
 * a CSV uploaded is opened in the spreadsheet, a row added by clicking cells found in the
 * accessibility tree, saved as CSV, and the download is the CSV with that row.
 */
import t from 'tap'
import { requireProgram } from './helpers/processes.ts'
import { startFullServer, waitForNode, waitUntil, type FullServer, type TreeNode } from './helpers/full-desktop.ts'
import { difference, readCorpus } from './helpers/typing.ts'

for (const program of ['xfce4-session', 'xfwm4', 'mousepad', 'libreoffice', 'dbus-run-session']) {
  requireProgram(program, 'the full desktop (npm run setup)')
}
t.setTimeout(300_000)

const corpus = await readCorpus()

async function ok (server: FullServer, t: { equal: (a: unknown, b: unknown, message: string) => unknown }, payload: Record<string, unknown>) {
  const { status, body } = await server.act(payload)
  t.equal(status, 200, `${String(payload.action)}${status === 200 ? '' : `: ${JSON.stringify(body)}`}`)
  return body
}
const windowsOf = async (server: FullServer) => ((await server.act({ action: 'list_windows' })).body.windows ?? []) as Array<{ id: string, class: string, title: string }>
const download = async (server: FullServer, path: string) => {
  const response = await fetch(`${server.url}/files/${path}`)
  return { status: response.status, text: await response.text() }
}
const upload = async (server: FullServer, path: string, body: string) => {
  const response = await fetch(`${server.url}/files/${path}`, { method: 'PUT', body })
  return { status: response.status, body: await response.json() }
}
/** Waits for a window whose title matches; its id. */
async function windowTitled (server: FullServer, pattern: RegExp, timeoutMs: number): Promise<string | undefined> {
  let id: string | undefined
  await waitUntil(async () => { id = (await windowsOf(server)).find((window) => pattern.test(window.title))?.id; return id !== undefined }, timeoutMs, 300)
  return id
}

t.test('files go up, are changed in the editor (the corpus pasted) and the spreadsheet (a row added), saved, and come down exact', async (t) => {
  const server = await startFullServer(t, ['--files', '--clipboard'])

  await t.test('the editor', async (t) => {
    t.equal((await upload(server, 'notes.txt', '')).status, 201)
    await ok(server, t, { action: 'launch_app', app: 'editor', target: 'notes.txt' })
    const editor = await windowTitled(server, /notes\.txt/i, 60_000)
    t.ok(editor, 'the editor opened the file')
    await ok(server, t, { action: 'focus_window', window: { id: editor } })
    await ok(server, t, { action: 'wait', duration: 1 })
    await ok(server, t, { action: 'set_clipboard', text: corpus })
    await ok(server, t, { action: 'press_key', keys: ['ctrl', 'v'], screenshot: true })
    // A paste is asynchronous in GTK (the editor asks the clipboard's owner, then inserts what it
    // answers): saved before the answer came, the file would be empty. An agent looks first too:
    // the title's '*' says the text is in.
    t.ok(await windowTitled(server, /^\*.*notes\.txt/i, 30_000), 'the editor shows the document changed')
    await ok(server, t, { action: 'press_key', keys: ['ctrl', 's'], screenshot: true })
    let got = { status: 0, text: '' }
    await waitUntil(async () => { got = await download(server, 'notes.txt'); return got.text.length > 0 }, 30_000, 500)
    t.equal(got.status, 200)
    t.ok(got.text === corpus, `the editor saved the pasted corpus exactly${got.text === corpus ? '' : `: ${difference(corpus, got.text)}`}`)
  })

  await t.test('the spreadsheet', async (t) => {
    t.equal((await upload(server, 'amounts.csv', 'item,amount\napples,12\npears,30\n')).status, 201)
    await ok(server, t, { action: 'launch_app', app: 'spreadsheet', target: 'amounts.csv' })
    t.ok(await windowTitled(server, /^Text Import/, 60_000), 'Calc asks how to read the CSV')
    await ok(server, t, { action: 'press_key', keys: ['enter'] })
    type Node = TreeNode & { value?: string, bounds?: { x: number, y: number, w: number, h: number } }
    const query = 'scope=full&format=json&max_nodes=20000'
    const cell = (name: string, value?: string) => waitForNode(server, query, (nodes) => (nodes as Node[]).find((node) =>
      node.role === 'cell' && node.name === name && (value === undefined || node.value === value))) as Promise<Node | undefined>
    const click = async (node: Node) => ok(server, t, { action: 'click_mouse', button: 'left', coordinates: [Math.round(node.bounds!.x + node.bounds!.w / 2), Math.round(node.bounds!.y + node.bounds!.h / 2)] })
    const a4 = await cell('A4')
    t.ok(a4, 'the sheet\'s cells are in the tree')
    await click(a4!)
    await ok(server, t, { action: 'type_text', text: 'plums\t18\n' })
    t.ok(await cell('B4', '18'), 'the new row is in the sheet')
    await ok(server, t, { action: 'press_key', keys: ['ctrl', 's'] })
    const keep = await waitForNode(server, query, (nodes) => (nodes as Node[]).find((node) => node.role === 'button' && node.name === 'Use Text CSV Format'))
    t.ok(keep, 'Calc asks whether to keep CSV')
    await click(keep as Node)
    const expected = 'item,amount\napples,12\npears,30\nplums,18\n'
    let got = { status: 0, text: '' }
    await waitUntil(async () => { got = await download(server, 'amounts.csv'); return got.text === expected }, 30_000, 500)
    t.strictSame(got, { status: 200, text: expected }, 'the download is the CSV Calc saved, with the new row')
  })
})
