/**
 * Files and the clipboard on the full desktop (--desktop full --files --clipboard), through the
 * real server as a process: a file uploaded with PUT /files is opened in the editor (mousepad,
 * launch_app editor with the file as target), the typing corpus set with set_clipboard is
 * pasted into it with ctrl+v and saved, and the download with GET /files is exactly the corpus.
 */
import t from 'tap'
import { requireProgram } from './helpers/processes.ts'
import { startFullServer, waitUntil, type FullServer } from './helpers/full-desktop.ts'
import { difference, readCorpus } from './helpers/typing.ts'

for (const program of ['xfce4-session', 'xfwm4', 'mousepad', 'dbus-run-session']) {
  requireProgram(program, 'the full desktop (npm run setup -- --desktop)')
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

t.test('a file goes up, the corpus pasted into it in the editor is saved, and it comes down exact', async (t) => {
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
    await ok(server, t, { action: 'press_key', keys: ['ctrl', 's'], screenshot: true })
    let got = { status: 0, text: '' }
    await waitUntil(async () => { got = await download(server, 'notes.txt'); return got.text.length > 0 }, 30_000, 500)
    t.equal(got.status, 200)
    t.ok(got.text === corpus, `the editor saved the pasted corpus exactly${got.text === corpus ? '' : `: ${difference(corpus, got.text)}`}`)
  })
})
