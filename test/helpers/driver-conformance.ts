/**
 * What every X driver must do, checked the same way on each (test/drivers-nut.test.ts,
 * test/drivers-xdotool.test.ts): on a real Xvfb of the calling file's own, every effect
 * checked from outside the driver — xdotool for the pointer, xsetroot and a coloured window
 * for pixels, xev (a real X client) for keys, buttons and wheel, xterm running `cat > file`
 * for typed text — and a dead display, and close(), answered the same. What only one driver
 * does stays in its own file. Every process started is ended by PID at teardown.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import t from 'tap'
import type { RawImage, XDriver } from '../../src/driver/driver.ts'
import { CANONICAL_KEYS, type KeyInfo } from '../../src/keys/index.ts'
import { cursorFromX, startClient, startDesktop, until, waitForWindow, xdotool } from './desktop.ts'

const run = promisify(execFile)

/** A tap test (the type of a subtest's `t`). */
type Test = Parameters<Parameters<typeof t.test>[0]>[0]

export interface ConformanceSpec<D extends XDriver> {
  /** `Driver.name`, and the name in its messages ("the nut driver on :99 was closed"). */
  name: string
  create: (display: string) => D
  /** The byte order of its screenshots (RGBX through MIT-SHM, which Xvfb offers: the grab's copy reorders). */
  order: RawImage['order']
  /** Wheel turns checked besides the four directions: [dx, dy, the X buttons pressed]. */
  moreWheel?: Array<readonly [number, number, string]>
  /** More checks of a driver whose start() on a dead display failed. */
  deadDisplay?: (t: Test, dead: D) => Promise<void>
  /** Called on a new driver before its start(); the function returned checks it once closed. */
  beforeClose?: (t: Test, driver: D) => Promise<(t: Test) => void>
}

export const key = (keysym: string): KeyInfo => ({ name: keysym.toLowerCase(), keysym, modifier: false })

/** An xev window at the top left of `display`, its events parsed; killed at teardown. */
export async function startXev (t: { teardown: (fn: () => unknown) => void }, events: string[], display: string) {
  const xev = startClient(t, display, 'xev', ['-geometry', '400x300+0+0', ...events.flatMap((e) => ['-event', e])])
  const window = await waitForWindow(display, ['--name', 'Event Tester'])
  await xdotool(display, 'windowfocus', '--sync', window)
  await delay(100)
  xev.clear()
  return {
    clear: xev.clear,
    keys: () => [...xev.output().matchAll(/(KeyPress|KeyRelease) event[^]*?state 0x(\w+), keycode \d+ \(keysym 0x\w+, (\w+)\)/g)]
      .map((m) => ({ type: m[1]!, state: parseInt(m[2]!, 16), keysym: m[3]! })),
    buttons: () => [...xev.output().matchAll(/(ButtonPress|ButtonRelease) event[^]*?root:\((\d+),(\d+)\)[^]*?button (\d+)/g)]
      .map((m) => `${m[1]} ${m[4]} @${m[2]},${m[3]}`),
    /** The X server's timestamp of each ButtonPress, in order. */
    pressTimes: () => [...xev.output().matchAll(/ButtonPress event[^]*?time (\d+)/g)].map((m) => Number(m[1])),
  }
}

/** A pixel as [r, g, b], whatever the image's byte order. */
function pixel (image: RawImage, x: number, y: number): number[] {
  const at = (y * image.width + x) * 4
  const [first, g, third] = image.data.subarray(at, at + 3)
  return image.order === 'bgra' ? [third!, g!, first!] : [first!, g!, third!]
}

/**
 * Registers the shared tests on this file's tap, over one driver started on an Xvfb of the
 * file's own; returns that driver and display for the file's own tests.
 */
export function driverConformance<D extends XDriver> (spec: ConformanceSpec<D>) {
  // Set up in t.before, so that a failure there still runs every teardown (no stray processes).
  let display: string
  let driver: D
  t.before(async () => {
    display = (await startDesktop(t)).display
    driver = spec.create(display)
    t.teardown(() => driver.close())
    await driver.start()
  })

  t.test('moveMouse and cursorPosition agree with X', async (t) => {
    t.equal(driver.name, spec.name)
    t.equal(driver.ready(), true)
    await driver.moveMouse({ x: 321, y: 234 })
    t.strictSame(await cursorFromX(display), [321, 234])
    await xdotool(display, 'mousemove', '700', '500')
    t.strictSame(await driver.cursorPosition(), { x: 700, y: 500 })
    t.strictSame(await driver.screenSize(), { width: 1280, height: 800 })
  })

  t.test(`screenshots are tightly packed ${spec.order.toUpperCase()} pixels of the screen`, async (t) => {
    await run('xsetroot', ['-display', display, '-solid', '#ff0000'])
    // A window of a known colour at a known place (no window manager: no frame, no offset).
    startClient(t, display, 'xterm', ['-class', 'GreenBox', '-geometry', '10x3+200+100', '-b', '0', '-bw', '0',
      '-bg', '#00ff00', '-fg', '#00ff00', '-cr', '#00ff00', '-e', 'sleep', '60'])
    await waitForWindow(display, ['--class', 'GreenBox'])
    await delay(200)

    const full = await driver.screenshot()
    t.match(full, { width: 1280, height: 800, order: spec.order })
    t.ok(Buffer.isBuffer(full.data), 'a Buffer')
    t.equal(full.data.length, 1280 * 800 * 4)
    t.strictSame(pixel(full, 0, 0), [255, 0, 0], `root is red, bytes in ${spec.order.toUpperCase()} order`)
    t.strictSame(pixel(full, 1279, 799), [255, 0, 0])
    t.strictSame(pixel(full, 199, 99), [255, 0, 0], 'just outside the green window')
    t.strictSame(pixel(full, 200, 100), [0, 255, 0], 'its top left corner')

    const region = await driver.screenshot({ x: 190, y: 90, width: 21, height: 13 })
    t.match(region, { width: 21, height: 13, order: spec.order })
    t.equal(region.data.length, 21 * 13 * 4, 'rows tightly packed')
    t.strictSame(pixel(region, 9, 9), [255, 0, 0])
    t.strictSame(pixel(region, 10, 10), [0, 255, 0], 'the region starts where asked')
    t.strictSame(pixel(region, 20, 12), pixel(full, 210, 102))

    // A grab its consumer released is grabbed into again (a 4 MB allocation per screenshot
    // made V8 collect every few screenshots); one still held is never written over.
    t.type(full.release, 'function', 'grabs can be released')
    full.release!()
    await run('xsetroot', ['-display', display, '-solid', '#0000ff'])
    await delay(100)
    const again = await driver.screenshot()
    t.equal(again.data.buffer, full.data.buffer, 'the released memory is used again')
    t.strictSame(pixel(again, 0, 0), [0, 0, 255], 'holding the new grab')
    t.strictSame(pixel(again, 200, 100), [0, 255, 0])
    const held = await driver.screenshot()
    t.not(held.data.buffer, again.data.buffer, 'a grab not released is left alone')
    t.strictSame(pixel(again, 1279, 799), [0, 0, 255], 'and keeps its pixels')

    await t.rejects(driver.screenshot({ x: 1270, y: 0, width: 20, height: 10 }),
      { code: 'ERR_UNSUPPORTED_ACTION', statusCode: 400, message: 'region x=1270 y=0 20x10 is not a whole-pixel rectangle inside the 1280x800 screen' })
    t.equal(driver.ready(), true, 'a refused region leaves the driver ready')
  })

  t.test('every canonical key reaches X as its keysym; combos carry their modifier', async (t) => {
    const xev = await startXev(t, ['keyboard'], display)
    const missed: string[] = []
    for (const info of CANONICAL_KEYS) {
      xev.clear()
      // Lock keys toggle: press them twice, so the state after the test is as before.
      const times = /_Lock$/.test(info.keysym) ? 2 : 1
      for (let i = 0; i < times; i++) {
        await driver.keyDown(info)
        await driver.keyUp(info)
      }
      // The press is what counts: X reports a release with the keysym of the state at release
      // time, and xdotool drops the Shift (or toggles the Num Lock) it added before that.
      const arrived = await until(() => xev.keys().some((k) => k.type === 'KeyPress' && k.keysym === info.keysym) &&
        xev.keys().filter((k) => k.type === 'KeyRelease').length >= xev.keys().filter((k) => k.type === 'KeyPress').length, 1000)
      if (!arrived) missed.push(`${info.name} (${info.keysym}): got ${xev.keys().map((k) => `${k.type} ${k.keysym}`).join(', ') || 'nothing'}`)
    }
    t.strictSame(missed, [], `all ${CANONICAL_KEYS.length} keys arrived as their keysym`)

    xev.clear()
    const ctrl = CANONICAL_KEYS.find((k) => k.keysym === 'Control_L')!
    await driver.keyDown(ctrl)
    await driver.keyDown(key('a'))
    await driver.keyUp(key('a'))
    await driver.keyUp(ctrl)
    t.ok(await until(() => xev.keys().length >= 4))
    const a = xev.keys().find((k) => k.type === 'KeyPress' && k.keysym === 'a')
    t.ok(a && (a.state & 0x4) !== 0, 'a pressed with Control held')

    await t.rejects(driver.keyDown(key('NoSuchKeysym')), { code: 'ERR_UNSUPPORTED_ACTION', statusCode: 400, message: "X has no key named 'NoSuchKeysym'" })
  })

  t.test('buttons 1-3 and 8/9, and the wheel in all four directions, reach X', async (t) => {
    const xev = await startXev(t, ['button'], display)
    await driver.moveMouse({ x: 120, y: 80 })
    const expected: string[] = []
    for (const [button, number] of [['left', 1], ['middle', 2], ['right', 3], ['back', 8], ['forward', 9]] as const) {
      await driver.buttonDown(button)
      await driver.buttonUp(button)
      expected.push(`ButtonPress ${number} @120,80`, `ButtonRelease ${number} @120,80`)
    }
    t.ok(await until(() => xev.buttons().length >= expected.length))
    t.strictSame(xev.buttons(), expected)

    // X wheel buttons: 4 up, 5 down, 6 left, 7 right. nut-js' own scrollRight sends 6.
    const turns = [[0, 2, '5 5'], [0, -1, '4'], [3, 0, '7 7 7'], [-1, 0, '6'], ...spec.moreWheel ?? []] as const
    for (const [dx, dy, presses] of turns) {
      xev.clear()
      await driver.wheel(dx, dy)
      const count = presses.split(' ').length
      t.ok(await until(() => xev.buttons().length >= 2 * count))
      const pressed = xev.buttons().filter((e) => e.startsWith('ButtonPress')).map((e) => e.split(' ')[1]).join(' ')
      t.equal(pressed, presses, `wheel(${dx}, ${dy})`)
      // Chromium drops a wheel press stamped like the one before it.
      const times = xev.pressTimes()
      t.ok(times.every((time, i) => i === 0 || time > times[i - 1]!), `wheel(${dx}, ${dy}): each notch has a timestamp of its own (${times.join(', ')})`)
    }
  })

  t.test('typeText types all printable ASCII and non-ASCII exactly into xterm', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), `cg-${spec.name}-`))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'typed.txt')
    startClient(t, display, 'xterm', ['-geometry', '120x20+0+400', '-e', 'sh', '-c', `stty -echo; cat > ${file}`])
    const window = (await xdotool(display, 'search', '--sync', '--onlyvisible', '--class', 'xterm')).split('\n')[0]!
    await xdotool(display, 'windowfocus', '--sync', window)
    await delay(300)

    let ascii = ''
    for (let code = 0x20; code < 0x7f; code++) ascii += String.fromCharCode(code)
    const text = `${ascii}\ttab\r\nline two ${ascii.split('').reverse().join('')}\n`
    const started = performance.now()
    await driver.typeText(text)
    const typeMs = performance.now() - started
    const expected = text.replace('\r\n', '\n')
    t.ok(await until(async () => (await readFile(file, 'utf8').catch(() => '')).length >= expected.length, 5000), 'everything arrived')
    t.equal(await readFile(file, 'utf8'), expected, 'exactly as typed, shifted punctuation included')
    t.comment(`typeText of ${text.length} characters: ${typeMs.toFixed(1)} ms`)

    // xdotool type loses such characters (feasibility §4); both drivers type them through XTest.
    let before = (await readFile(file, 'utf8')).length
    await driver.typeText('<\u00e9\u65e5>\n')
    t.ok(await until(async () => (await readFile(file, 'utf8')).endsWith('>\n'), 3000))
    t.match((await readFile(file, 'utf8')).slice(before), /^<[^<>]*>\n$/, 'ASCII on both sides of a non-ASCII run, in order')
    before = (await readFile(file, 'utf8')).length
    await driver.typeText('<\u00e9\u65e5 \u00fc\u00df>\n')
    t.ok(await until(async () => (await readFile(file, 'utf8')).length > before && (await readFile(file, 'utf8')).endsWith('>\n'), 5000))
    t.equal((await readFile(file, 'utf8')).slice(before), '<\u00e9\u65e5 \u00fc\u00df>\n', 'non-ASCII exactly')

    await t.rejects(driver.typeText('ok\u0007'), {
      code: 'ERR_UNSUPPORTED_ACTION',
      statusCode: 400,
      message: 'text contains the control character U+0007 at index 2, which cannot be typed; only printable characters, newline and tab can',
    })
  })

  t.test('a dead display is a clear error at start, and this process lives on', async (t) => {
    const dead = spec.create(':4242')
    await t.rejects(dead.start(), {
      code: 'ERR_INVALID_CONFIG',
      message: 'DISPLAY :4242 does not answer (no X server at /tmp/.X11-unix/X4242); unset DISPLAY to let computer-gateway start its own Xvfb',
    })
    t.equal(dead.ready(), false)
    await spec.deadDisplay?.(t, dead)
    await t.rejects(dead.moveMouse({ x: 1, y: 1 }), { code: 'ERR_DESKTOP_UNAVAILABLE', statusCode: 503, message: 'the desktop on :4242 is not ready; retry shortly' })
    await dead.close()
    await dead.close()
  })

  t.test('close() ends the driver; later calls say it was closed', async (t) => {
    const other = spec.create(display)
    const closed = await spec.beforeClose?.(t, other)
    await other.start()
    t.equal(other.ready(), true)
    await other.close()
    await other.close()
    t.equal(other.ready(), false)
    closed?.(t)
    await t.rejects(other.moveMouse({ x: 1, y: 1 }), { code: 'ERR_DESKTOP_UNAVAILABLE', message: `the ${spec.name} driver on ${display} was closed` })
    await t.rejects(other.start(), { code: 'ERR_DESKTOP_UNAVAILABLE', message: `the ${spec.name} driver on ${display} was closed` })
  })

  return { driver: () => driver, display: () => display }
}
