/**
 * The xdotool driver: the X-driver conformance suite (test/helpers/driver-conformance.ts) on
 * a real Xvfb of this file's own, and what is the xdotool driver's own: points rounded to
 * whole pixels, both wheel axes in one call, a key it cannot press refused saying why, and an
 * X server that dies or hangs under it turning calls into 503s and the driver into not ready.
 * Every process started is ended by PID at teardown.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { XdotoolDriver } from '../drivers/xdotool/xdotool-driver.ts'
import { VENDOR_SPARE_KEYS } from '../drivers/x11/typing-plan.ts'
import { CANONICAL_KEYS } from '../src/keys/index.ts'
import { driverConformance, key, startXev } from './helpers/driver-conformance.ts'
import { cursorFromX, doomedDriver, startDesktop, until } from './helpers/desktop.ts'

const run = promisify(execFile)

const { driver, display } = driverConformance({
  name: 'xdotool',
  create: (display) => new XdotoolDriver({ display }),
  order: 'rgba',
  moreWheel: [[1, 1, '5 7']],
})

t.test('moveMouse rounds to whole pixels', async (t) => {
  await driver().moveMouse({ x: 10.6, y: 20.4 })
  t.strictSame(await cursorFromX(display()), [11, 20], 'rounded to whole pixels')
})

t.test('a key on no keycode is bound to a spare one; with none left it is refused saying why', async (t) => {
  const own = await startDesktop(t, { screen: '640x480x24' })
  const xev = await startXev(t, ['keyboard'], own.display)
  // The default keymap has Help on keycode 146; take it away. xdotool would print its usage
  // text for the name 'Help', so this goes through the driver's own binding.
  await run('xmodmap', ['-display', own.display, '-e', 'keysym Help = NoSymbol'])
  t.notMatch((await run('xmodmap', ['-display', own.display, '-pke'])).stdout, /\bHelp\b/, 'no keycode carries Help')
  const other = new XdotoolDriver({ display: own.display })
  t.teardown(() => other.close())
  await other.start()
  const help = CANONICAL_KEYS.find((k) => k.keysym === 'Help')!
  for (let i = 0; i < 2; i++) {
    await other.keyDown(help)
    await other.keyUp(help)
  }
  t.ok(await until(() => xev.keys().length >= 4))
  t.strictSame(xev.keys().map((k) => `${k.type} ${k.keysym}`), ['KeyPress Help', 'KeyRelease Help', 'KeyPress Help', 'KeyRelease Help'])
  const bound = /^keycode\s+(\d+) = Help/m.exec((await run('xmodmap', ['-display', own.display, '-pke'])).stdout)
  t.ok(bound, 'bound once, and left bound while the driver runs')

  // Help held on the driver's spare keycode, and every empty keycode filled: a key on no
  // keycode then has nowhere to go.
  xev.clear()
  await other.keyDown(help)
  // Empty, or carrying only vendor keys the typer binds like empty ones.
  const spare = (names: string) => names.split(/\s+/).filter((name) => name && name !== 'NoSymbol').every((name) => name in VENDOR_SPARE_KEYS)
  const empty = [...(await run('xmodmap', ['-display', own.display, '-pke'])).stdout.matchAll(/^keycode\s+(\d+) =(.*)$/gm)].filter((m) => spare(m[2]!)).map((m) => m[1])
  t.ok(empty.length > 0)
  await run('xmodmap', ['-display', own.display, ...empty.flatMap((code) => ['-e', `keycode ${code} = a`])])
  const f24 = CANONICAL_KEYS.find((k) => k.keysym === 'F24')!
  await t.rejects(other.keyDown(f24), {
    code: 'ERR_UNSUPPORTED_ACTION',
    statusCode: 400,
    message: 'no keycode carries F24 and the keymap has no empty keycode left to bind it to, so the xdotool driver cannot press it',
  })
  await other.keyUp(help)
  await other.keyDown(key('x'))
  await other.keyUp(key('x'))
  t.ok(await until(() => xev.keys().length >= 4))
  t.strictSame(xev.keys().map((k) => `${k.type} ${k.keysym}`), ['KeyPress Help', 'KeyRelease Help', 'KeyPress x', 'KeyRelease x'],
    'Help came up from its keycode, nothing else was pressed, and keys still work')
  // Released, the spare keycode carries the next missing key.
  xev.clear()
  await other.keyDown(f24)
  await other.keyUp(f24)
  t.ok(await until(() => xev.keys().length >= 2))
  t.strictSame(xev.keys().map((k) => `${k.type} ${k.keysym}`), ['KeyPress F24', 'KeyRelease F24'])

  await other.close()
  t.notMatch((await run('xmodmap', ['-display', own.display, '-pke'])).stdout, /\b(Help|F24|VoidSymbol)\b/, 'close() unbound its keycode')
})

t.test('when the X server dies mid-action, calls reject with DesktopUnavailable and the driver is not ready', async (t) => {
  const { own, doomed, exits } = await doomedDriver(t, (display) => new XdotoolDriver({ display }))

  const inFlight = [
    ...Array.from({ length: 10 }, (_, i) => doomed.moveMouse({ x: i, y: i })),
    doomed.typeText('a long text that is still being typed when X goes away '.repeat(4)),
    doomed.screenshot(),
    doomed.keyDown(key('a')).then(() => doomed.keyUp(key('a'))),
  ].map((call: Promise<unknown>) => call.then(() => 'ok', (error: Error & { code?: string }) => error.code))
  process.kill(own.pid, 'SIGKILL')
  await own.exited
  const killedAt = performance.now()
  const outcomes = await Promise.all(inFlight)
  t.ok(performance.now() - killedAt < 3000, 'calls in flight are answered at once, not after their timeout')
  for (const outcome of outcomes) t.ok(['ok', 'ERR_DESKTOP_UNAVAILABLE'].includes(outcome!), `in flight: ${outcome}`)

  await t.rejects(doomed.moveMouse({ x: 1, y: 1 }), { code: 'ERR_DESKTOP_UNAVAILABLE', statusCode: 503 })
  t.ok(await until(() => exits.length === 1), 'onExit heard it')
  t.equal(exits.length, 1, 'once')
  t.match(exits[0], new RegExp(`^the X server on ${own.display} went away \\(`))
  t.equal(doomed.ready(), false)
  const calls: Array<() => Promise<unknown>> = [() => doomed.cursorPosition(), () => doomed.screenshot(), () => doomed.typeText('x'), () => doomed.keyDown(key('a')), () => doomed.wheel(0, 1)]
  for (const call of calls) {
    await t.rejects(call(), { code: 'ERR_DESKTOP_UNAVAILABLE', statusCode: 503, message: `the desktop on ${own.display} is not ready; retry shortly` })
  }
  await t.rejects(doomed.start(), { code: 'ERR_DESKTOP_UNAVAILABLE', message: `the xdotool driver on ${own.display} lost its X server; start a new one` })
  await doomed.close()
  await doomed.close()
  await t.rejects(doomed.start(), { code: 'ERR_DESKTOP_UNAVAILABLE', message: `the xdotool driver on ${own.display} was closed` })
})

t.test('an X server that stops answering is dropped after the call timeout', async (t) => {
  const own = await startDesktop(t, { screen: '640x480x24' })
  const stuck = new XdotoolDriver({ display: own.display, callTimeoutMs: 500 })
  t.teardown(() => stuck.close())
  const exits: string[] = []
  stuck.onExit((reason) => exits.push(reason))
  await stuck.start()
  process.kill(own.pid, 'SIGSTOP')
  t.teardown(() => { if (own.alive()) process.kill(own.pid, 'SIGCONT') })
  const started = performance.now()
  await t.rejects(stuck.moveMouse({ x: 5, y: 5 }), { code: 'ERR_DESKTOP_UNAVAILABLE', statusCode: 503, message: /did not (answer|finish) within 500 ms/ })
  t.ok(performance.now() - started < 2000, 'within about the timeout')
  t.equal(stuck.ready(), false)
  t.equal(exits.length, 1, 'onExit heard it')
  process.kill(own.pid, 'SIGCONT')
  await t.rejects(stuck.screenshot(), { code: 'ERR_DESKTOP_UNAVAILABLE', message: `the desktop on ${own.display} is not ready; retry shortly` })
})
