/**
 * End to end: the nine actions over HTTP (app.inject), through the real nut driver, on a real
 * Xvfb of this file's own. Every effect is checked from outside the server: xdotool for the
 * pointer, xev (a real X client) for clicks, wheel and drags, xterm running `cat > file` for
 * typed text and keys, decoded PNG pixels for screenshots.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import sharp from 'sharp'
import { buildOnDisplay, cursorFromX, heldOnX, startClient, startDesktop, until, waitForWindow, xdotool } from './helpers/desktop.ts'

const run = promisify(execFile)
// Set up in t.before, so that a failure there still runs every teardown (no stray processes).
let display: string
let app: Awaited<ReturnType<typeof buildOnDisplay>>['app']
t.before(async () => {
  display = (await startDesktop(t)).display
  app = (await buildOnDisplay(t, display)).app
})

async function act (body: unknown, query = '') {
  const response = await app.inject({ method: 'POST', url: `/computer${query}`, payload: body as object })
  return { status: response.statusCode, body: response.json() }
}

t.test('move_mouse moves the X pointer; get_cursor_position reads it', async (t) => {
  const moved = await act({ action: 'move_mouse', coordinates: [321, 234] })
  t.equal(moved.status, 200)
  t.strictSame(await cursorFromX(display), [321, 234])
  await xdotool(display, 'mousemove', '700', '500')
  const read = await act({ action: 'get_cursor_position' })
  t.strictSame(read.body, { output: 'cursor at (700, 500)', error: null, base64_image: null, cursor_position: [700, 500] })
  const scaled = await act({ action: 'move_mouse', coordinates: [512, 320] }, '?display_width_px=1024&display_height_px=640')
  t.strictSame(scaled.body.cursor_position, [512, 320])
  t.strictSame(await cursorFromX(display), [640, 400], 'scaled to the real screen')
})

t.test('take_screenshot is a PNG whose pixels are the screen', async (t) => {
  await run('xsetroot', ['-display', display, '-solid', '#1e90ff'])
  const { body } = await act({ action: 'take_screenshot' })
  const image = sharp(Buffer.from(body.base64_image, 'base64'))
  t.match(await image.metadata(), { format: 'png', width: 1280, height: 800 })
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true })
  const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)]
  t.strictSame(at(10, 10), [0x1e, 0x90, 0xff], 'dodger blue, channels in RGB order')
  t.strictSame(at(1279, 799), [0x1e, 0x90, 0xff])
  const scaled = await act({ action: 'take_screenshot' }, '?display_width_px=1024&display_height_px=768')
  t.match(await sharp(Buffer.from(scaled.body.base64_image, 'base64')).metadata(), { width: 1024, height: 768 })
  const region = await act({ action: 'take_screenshot', region: [100, 100, 164, 132] })
  t.match(await sharp(Buffer.from(region.body.base64_image, 'base64')).metadata(), { width: 64, height: 32 })
})

t.test('clicks, wheel and drags reach a real X client (xev)', async (t) => {
  const xev = startClient(t, display, 'xev', ['-geometry', '600x400+0+0', '-event', 'button', '-event', 'mouse'])
  await waitForWindow(display, ['--name', 'Event Tester'])
  await new Promise((resolve) => setTimeout(resolve, 300))
  xev.clear()
  const events = () => [...xev.output().matchAll(/(ButtonPress|ButtonRelease) event[^]*?root:\((\d+),(\d+)\)[^]*?button (\d+)/g)]
    .map((m) => `${m[1]} ${m[4]} @${m[2]},${m[3]}`)

  await act({ action: 'click_mouse', button: 'left', coordinates: [200, 150] })
  t.ok(await until(() => events().length >= 2), 'press and release arrived')
  t.strictSame(events(), ['ButtonPress 1 @200,150', 'ButtonRelease 1 @200,150'])

  for (const [button, number] of [['right', 3], ['middle', 2], ['back', 8], ['forward', 9]] as const) {
    xev.clear()
    await act({ action: 'click_mouse', button, coordinates: [210, 160] })
    t.ok(await until(() => events().length >= 2), `${button} arrived`)
    t.strictSame(events(), [`ButtonPress ${number} @210,160`, `ButtonRelease ${number} @210,160`], button)
  }

  xev.clear()
  await act({ action: 'click_mouse', button: 'left', coordinates: [100, 100], num_clicks: 2 })
  t.ok(await until(() => events().length >= 4))
  t.strictSame(events(), ['ButtonPress 1 @100,100', 'ButtonRelease 1 @100,100', 'ButtonPress 1 @100,100', 'ButtonRelease 1 @100,100'], 'double click')

  xev.clear()
  await act({ action: 'click_mouse', button: 'left', click_type: 'down', coordinates: [50, 60] })
  await act({ action: 'click_mouse', button: 'left', click_type: 'up' })
  t.ok(await until(() => events().length >= 2))
  t.strictSame(events(), ['ButtonPress 1 @50,60', 'ButtonRelease 1 @50,60'], 'down then up')

  xev.clear()
  await act({ action: 'scroll', coordinates: [300, 200], delta_y: 2, delta_x: -1 })
  t.ok(await until(() => events().length >= 6))
  const wheel = events().filter((e) => e.startsWith('ButtonPress')).map((e) => e.split(' ')[1])
  t.strictSame(wheel.sort(), ['5', '5', '6'], 'two notches down (5), one left (6)')

  xev.clear()
  await act({ action: 'drag_mouse', path: [[100, 100], [300, 100], [300, 250]] })
  t.ok(await until(() => events().length >= 2))
  t.strictSame(events(), ['ButtonPress 1 @100,100', 'ButtonRelease 1 @300,250'], 'pressed at the first point, released at the last')
  const output = xev.output()
  const held = output.slice(output.indexOf('ButtonPress'), output.indexOf('ButtonRelease'))
  const motions = [...held.matchAll(/MotionNotify event[^]*?root:\((\d+),(\d+)\)[^]*?state 0x(\w+)/g)]
  t.ok(motions.length >= 10, `motion in between (${motions.length} events)`)
  t.ok(motions.every((m) => (parseInt(m[3]!, 16) & 0x100) !== 0), 'every motion with button 1 held')
  t.ok(motions.some((m) => m[1] === '300' && m[2] === '100'), 'passed through the middle point')
})

t.test('type_text and press_key reach a real X application (xterm running cat)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cg-e2e-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'typed.txt')
  startClient(t, display, 'xterm', ['-geometry', '120x30+0+0', '-e', 'sh', '-c', `stty -echo; cat > ${file}`])
  await waitForWindow(display, ['--class', 'xterm'])
  await act({ action: 'click_mouse', button: 'left', coordinates: [200, 150] })
  await new Promise((resolve) => setTimeout(resolve, 300))

  let ascii = ''
  for (let code = 0x20; code < 0x7f; code++) ascii += String.fromCharCode(code)
  const typed = await act({ action: 'type_text', text: `${ascii}\n` })
  t.equal(typed.status, 200)
  await act({ action: 'press_key', keys: ['shift', 'h'] })
  await act({ action: 'type_text', text: 'i', hold_keys: ['shift'] })
  await act({ action: 'press_key', keys: ['Return'] })
  const expected = `${ascii}\nHI\n`
  t.ok(await until(async () => (await readFile(file, 'utf8').catch(() => '')) === expected, 5000), 'the file holds what was typed')
  t.equal(await readFile(file, 'utf8'), expected)
})

t.test('wait waits, and nothing stays held after a failing batch', async (t) => {
  const started = performance.now()
  const waited = await act({ action: 'wait', duration: 0.3 })
  t.equal(waited.status, 200)
  t.ok(performance.now() - started >= 290)
  const batch = await app.inject({
    method: 'POST',
    url: '/computer/batch',
    payload: { actions: [{ action: 'press_key', keys: ['shift'], press_type: 'down' }, { action: 'move_mouse', coordinates: [9999, 1] }] },
  })
  t.equal(batch.statusCode, 400, 'refused before anything ran')
  t.strictSame(await heldOnX(display), [], 'no key or button down on the X server')
  await act({ action: 'press_key', keys: ['shift'], press_type: 'down' })
  t.strictSame(await heldOnX(display), ['key[50]=down'], 'a key held on purpose shows on X')
  await act({ action: 'press_key', keys: ['shift'], press_type: 'up' })
  t.strictSame(await heldOnX(display), [])
})
