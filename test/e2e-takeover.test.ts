/**
 * Taking the desktop over from the live view, in headless Chromium on a real Xvfb desktop: while
 * the page holds the lease, the agent's click answers 423 and neither the pointer nor the xterm
 * moved; the person types into the xterm through the live view and hands back, and the agent acts
 * again; UI-TARS's call_user() blocks until the hand-back and returns what the person wrote; a
 * tab closed while holding a key hands the desktop back and leaves nothing held on X.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { cursorFromX, heldOnX, startClient, until, waitForWindow } from './helpers/desktop.ts'
import { liveServer, openViewer, TOKEN, type Viewer } from './helpers/live.ts'

const auth = { authorization: `Bearer ${TOKEN}` }

/** Types lower-case letters and Enter into the live view's canvas as key events. */
async function typeInViewer (viewer: Viewer, text: string): Promise<void> {
  for (const char of text) {
    const [key, code, keyCode] = char === '\n' ? ['Enter', 'Enter', 13] : [char, `Key${char.toUpperCase()}`, char.toUpperCase().charCodeAt(0)]
    await viewer.page.key('rawKeyDown', key as string, code as string, keyCode as number)
    await viewer.page.key('keyUp', key as string, code as string, keyCode as number)
  }
}

const holding = (viewer: Viewer) => viewer.page.evaluate<boolean>('document.getElementById("lease").textContent.startsWith("you hold the desktop")')

t.test('the live view takes over, the agent is refused and moves nothing, the person types, hands back, and the agent acts again', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'takeover-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const typed = join(dir, 'typed.txt')
  const server = await liveServer(t, { control: true })
  const display = server.display()
  startClient(t, display, 'xterm', ['-geometry', '60x10+0+0', '-e', 'sh', '-c', `stty -echo; cat > ${typed}`])
  await waitForWindow(display, ['--class', 'xterm'])
  const control = async () => (await fetch(`${server.base}/control`, { headers: auth })).json() as Promise<{ lease: any, requests: any[] }>

  const viewer = await openViewer(t, server.base)
  t.equal(await viewer.page.evaluate('document.getElementById("takeover").hidden'), false, 'the page offers "Take over"')
  await viewer.page.evaluate('document.getElementById("takeover").click()')
  t.ok(await until(() => holding(viewer), 10_000), 'the page says it holds the desktop')
  t.match((await control()).lease, { holder: 'live view', via: 'live' })

  await server.act({ action: 'move_mouse', coordinates: [600, 500] }).then(({ status }) => t.equal(status, 423, 'even a move is refused'))
  const pointer = await cursorFromX(display)
  const click = await server.act({ action: 'click_mouse', button: 'left', coordinates: [900, 700] })
  t.equal(click.status, 423, "the agent's click answers 423")
  t.match(click.body, { statusCode: 423, code: 'ERR_DESKTOP_TAKEN_OVER', error: 'Locked', message: /^the desktop is taken over by "live view" since / })
  const typing = await server.act({ action: 'type_text', text: 'agent\n' })
  t.equal(typing.status, 423, "and the agent's typing")
  t.strictSame(await cursorFromX(display), pointer, 'the pointer did not move')

  // The person clicks into the xterm and types through the live view.
  const [x, y] = await viewer.at(100, 60)
  await viewer.page.mouse('mouseMoved', x, y)
  await viewer.page.mouse('mousePressed', x, y, 1)
  await viewer.page.mouse('mouseReleased', x, y)
  await typeInViewer(viewer, 'person\n')
  t.ok(await until(async () => (await readFile(typed, 'utf8').catch(() => '')) === 'person\n', 10_000), `the person's typing reached the xterm (${JSON.stringify(await readFile(typed, 'utf8').catch(() => ''))}), and nothing of the agent's`)

  await viewer.page.evaluate('document.getElementById("message").value = "over to you"; document.getElementById("handback").click()')
  t.ok(await until(async () => (await control()).lease === null, 10_000), 'handed back')
  t.ok(await until(async () => !(await holding(viewer)), 5000), 'the page says so')
  const again = await server.act({ action: 'type_text', text: 'agent\n' })
  t.equal(again.status, 200, 'the agent acts again')
  t.ok(await until(async () => (await readFile(typed, 'utf8')) === 'person\nagent\n', 10_000), 'and its typing reaches the xterm')
})

t.test("UI-TARS's call_user() waits for the person, shows in the live view, and returns their message; a closed tab hands back with nothing held", async (t) => {
  const server = await liveServer(t, { control: true })
  const display = server.display()
  const viewer = await openViewer(t, server.base)
  const asking = fetch(`${server.base}/computer/uitars`, {
    method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: "Thought: a login.\nAction: call_user(content='Please sign in for me')",
    signal: AbortSignal.timeout(60_000),
  }).then(async (response) => ({ status: response.status, body: await response.json() as any }))
  t.ok(await until(async () => (await viewer.page.evaluate<string>('document.getElementById("requests").textContent')).startsWith('Please sign in for me'), 10_000),
    'the live view shows the request')
  await viewer.page.evaluate('document.getElementById("takeover").click()')
  t.ok(await until(() => holding(viewer), 10_000))
  await viewer.page.evaluate('document.getElementById("message").value = "signed in as demo"; document.getElementById("handback").click()')
  const answer = await asking
  t.equal(answer.status, 200)
  t.match(answer.body, { call_user: 'Please sign in for me', human: { outcome: 'released', message: 'signed in as demo', holder: 'live view' }, error: null })
  // The page shows the lease as its last poll saw it: until that says handed back, "you hold the
  // desktop" may still be the first lease's, and input sent on it would meet a view-only canvas.
  t.ok(await until(async () => !(await holding(viewer)), 5000), 'the page says it handed back')

  await viewer.page.evaluate('document.getElementById("takeover").click()')
  t.ok(await until(() => holding(viewer), 10_000))
  const [x, y] = await viewer.at(640, 400)
  await viewer.page.mouse('mouseMoved', x, y)
  // The canvas takes the keyboard once clicked; the button stays down as the tab closes.
  await viewer.page.mouse('mousePressed', x, y, 1)
  await viewer.page.key('rawKeyDown', 'Shift', 'ShiftLeft', 16)
  t.ok(await until(async () => (await heldOnX(display)).some((line) => /button\[1\]=down/.test(line)), 5000), `X holds the left button (${await heldOnX(display)})`)
  // Shift_L is keycode 50 on the US layout the desktop is pinned to.
  t.ok(await until(async () => (await heldOnX(display)).some((line) => /key\[50\]=down/.test(line)), 5000), `X holds shift (${await heldOnX(display)})`)
  await viewer.page.close()
  const control = async () => (await fetch(`${server.base}/control`, { headers: auth })).json() as Promise<{ lease: unknown }>
  t.ok(await until(async () => (await control()).lease === null, 10_000), 'closing the tab handed the desktop back')
  t.ok(await until(async () => (await heldOnX(display)).length === 0, 5000), `and nothing stays held (${await heldOnX(display)})`)
  t.equal((await server.act({ action: 'move_mouse', coordinates: [10, 10] })).status, 200, 'the agent acts')
})
