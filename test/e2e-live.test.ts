/**
 * The live view, view-only (the default), end to end: headless Chromium signs in to GET /live
 * and shows the real desktop (root colour, a window where it was put); a window moved through
 * POST /computer shows in the canvas within a second; a click in the canvas reaches nothing
 * (the event oracle on the desktop records none); the live view comes back on its own after
 * the X server dies and is replaced.
 */
import t from 'tap'
import { xEnv } from '../drivers/x11/authority.ts'
import type { VncService } from '../drivers/x11/vnc-service.ts'
import { cursorFromX, until, waitForWindow } from './helpers/desktop.ts'
import { startOracle } from './helpers/oracle.ts'
import { spawnOwned } from './helpers/processes.ts'
import { hex, liveServer, near, openViewer, paintRoot } from './helpers/live.ts'

const BLUE: [number, number, number] = [0x33, 0x66, 0xcc]
const RED: [number, number, number] = [0xff, 0x00, 0x00]
const GREEN: [number, number, number] = [0x22, 0xaa, 0x44]

t.test('the live page shows the desktop, follows actions, takes no input, and survives an X restart', async (t) => {
  const server = await liveServer(t)
  const display = server.display()
  await paintRoot(display, hex(BLUE))
  spawnOwned(t, 'xterm', ['-T', 'redwin', '-bg', hex(RED), '-fg', hex(RED), '-geometry', '30x8+100+100'], {
    env: { ...process.env, ...xEnv(display) }, stdio: 'ignore',
  })
  await waitForWindow(display, ['--name', 'redwin'])
  const placed = await server.act({ action: 'set_window_geometry', window: { title: 'redwin' }, x: 200, y: 150 })
  t.equal(placed.status, 200, `the window was placed ${JSON.stringify(placed.body.window)}`)
  const rect = placed.body.window as { x: number, y: number, width: number, height: number }
  const centre = (r: typeof rect) => [r.x + Math.floor(r.width / 2), r.y + Math.floor(r.height / 2)] as const

  const viewer = await openViewer(t, server.base)
  const canvas = await viewer.canvas()
  t.match(canvas, { width: 1280, height: 800 }, 'the desktop is shown at its size')
  // The first full frame follows the handshake; everything after it is measured.
  t.ok(await viewer.untilPixel(20, 780, BLUE, 10_000) !== undefined, `the root window colour shows in the canvas (${await viewer.pixel(20, 780)})`)
  t.ok(near(await viewer.pixel(...centre(rect)), RED), `the window shows where it is (${await viewer.pixel(...centre(rect))})`)

  const moved = await server.act({ action: 'set_window_geometry', window: { title: 'redwin' }, x: 760, y: 420 })
  t.equal(moved.status, 200)
  const newRect = moved.body.window as typeof rect
  const shownIn = await viewer.untilPixel(...centre(newRect), RED, 1000)
  t.ok(shownIn !== undefined, `the moved window shows in the canvas within a second (${shownIn?.toFixed(0)} ms)`)
  t.ok(near(await viewer.pixel(...centre(rect)), BLUE), 'and is gone from where it was')
  const panel = () => viewer.page.evaluate<string>('document.getElementById("panel").innerText')
  // An action of its own name: a poll taken while the move ran shows the placing before it
  // as the last action (the same name) and the move in the queue.
  const asked = await server.act({ action: 'get_cursor_position' })
  t.equal(asked.status, 200)
  t.ok(await until(async () => /last action\s+get_cursor_position → 200 in \d+ ms/.test(await panel()), 3000), 'the panel beside it names the last action, its status and duration')
  t.match(await panel(), /desktop\s+ready \(1280×800\)\s+queue\s+0\s+held keys and buttons\s+nothing/, 'and the desktop\'s state')

  await t.test('a click in the canvas reaches nothing', async (t) => {
    const oracle = await startOracle(t, display)
    // The oracle covers the screen; once the canvas shows it, the click lands on it.
    t.ok(await viewer.untilPixel(950, 130, RED, 5000) !== undefined, 'the oracle page shows in the canvas')
    const before = await cursorFromX(display)
    oracle.clear()
    const [x, y] = await viewer.at(640, 500)
    await viewer.page.mouse('mouseMoved', x, y)
    await viewer.page.mouse('mousePressed', x, y, 1)
    await viewer.page.mouse('mouseReleased', x, y)
    const events = await oracle.until((events) => events.length > 0, 1500)
    t.strictSame(events.filter((e) => e.type.startsWith('mouse') || e.type.startsWith('pointer') || e.type === 'click'), [], 'the desktop received no mouse event')
    t.strictSame(await cursorFromX(display), before, 'the pointer did not move')
  })

  await t.test('after the X server dies, the view reconnects to the new desktop', async (t) => {
    const xvfbPid = server.supervised.xvfbPid!
    process.kill(xvfbPid, 'SIGKILL')
    t.ok(await until(() => server.supervised.restarts === 1 && server.supervised.ready(), 20_000), 'the desktop was replaced')
    await paintRoot(server.display(), hex(GREEN))
    const shown = await viewer.untilPixel(20, 780, GREEN, 20_000)
    t.ok(shown !== undefined, `the new desktop shows in the same page (${shown?.toFixed(0)} ms after it was painted)`)
    t.equal(await viewer.page.evaluate('document.getElementById("connection").textContent'), 'connected')
  })

  t.notOk(server.logged().includes('live-view-token'), 'the token is not in the log')
  t.notOk(/cg_live=[A-Za-z0-9_-]{10}/.test(server.logged()), 'nor the session cookie')
  t.ok(await until(() => (server.desktop.live as VncService).pid !== undefined, 5000), 'x11vnc runs on the new desktop')
})
