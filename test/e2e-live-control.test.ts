/**
 * The live view with --live-control, taken over with its button: a click in the canvas arrives at the desktop pixel it was
 * made on (the event oracle sees it there), and a tab closed in the middle of a drag, shift held,
 * leaves no button and no key held on the X server.
 */
import t from 'tap'
import { heldOnX, until } from './helpers/desktop.ts'
import { startOracle } from './helpers/oracle.ts'
import { liveServer, openViewer } from './helpers/live.ts'

const RED: [number, number, number] = [0xff, 0x00, 0x00]

t.test('with control, clicks arrive where they were made, and a closed tab holds nothing', async (t) => {
  const server = await liveServer(t, { control: true })
  const display = server.display()
  const oracle = await startOracle(t, display)
  const viewer = await openViewer(t, server.base)
  t.ok(await viewer.untilPixel(950, 130, RED, 10_000) !== undefined, 'the oracle page shows in the canvas')
  t.equal(await viewer.page.evaluate('document.getElementById("mode").textContent'), 'watching: take over to use the mouse and keyboard')
  // Input passes only while this tab holds the control lease (docs/takeover.md).
  await viewer.page.evaluate('document.getElementById("takeover").click()')
  t.ok(await until(() => viewer.page.evaluate<boolean>('document.getElementById("mode").textContent === "control: mouse and keyboard reach the desktop"'), 10_000), 'taken over')

  oracle.clear()
  const [x, y] = await viewer.at(321, 456)
  await viewer.page.mouse('mouseMoved', x, y)
  await viewer.page.mouse('mousePressed', x, y, 1)
  await viewer.page.mouse('mouseReleased', x, y)
  const events = await oracle.until((events) => events.some((e) => e.type === 'mouseup'), 5000)
  const down = events.find((e) => e.type === 'mousedown')
  const up = events.find((e) => e.type === 'mouseup')
  t.match(down, { x: 321, y: 456, button: 0 }, 'the press arrived at the pixel it was made on')
  t.match(up, { x: 321, y: 456, button: 0 }, 'and so did the release')
  t.strictSame(await heldOnX(display), [], 'nothing is held after the click')

  oracle.clear()
  const [fromX, fromY] = await viewer.at(400, 500)
  const [toX, toY] = await viewer.at(480, 560)
  await viewer.page.mouse('mouseMoved', fromX, fromY)
  await viewer.page.mouse('mousePressed', fromX, fromY, 1)
  await viewer.page.key('rawKeyDown', 'Shift', 'ShiftLeft', 16)
  await viewer.page.mouse('mouseMoved', toX, toY, 1)
  t.ok(await until(async () => (await heldOnX(display)).some((line) => /button\[1\]=down/.test(line)), 5000), 'mid-drag, X holds the left button')
  // Shift_L is keycode 50 on the US layout the desktop is pinned to.
  t.ok(await until(async () => (await heldOnX(display)).some((line) => /key\[50\]=down/.test(line)), 5000), `and shift (${await heldOnX(display)})`)
  await viewer.page.close()
  t.ok(await until(async () => (await heldOnX(display)).length === 0, 5000), `closing the tab mid-drag released the button and the key (${await heldOnX(display)})`)
  t.ok((await oracle.until((events) => events.some((e) => e.type === 'mouseup'), 3000)).some((e) => e.type === 'mouseup' && e.x === 480 && e.y === 560),
    'the page under the pointer saw the button go up where the drag ended')
})
