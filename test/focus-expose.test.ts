/**
 * drivers/x11/focus-expose.ts: which windows of the focused application are exposed (table),
 * and, on a bare Xvfb with a real xterm, that its redraw of the exposed pixel is seen once it
 * handles the Expose — not while it is stopped, and never from its ordinary drawing (a screen
 * scrolling with output all the while, no Expose sent).
 */
import t, { type Test } from 'tap'
import type { XClient } from 'x11'
import { createClient } from '../drivers/x11/connect.ts'
import { DamageWatch } from '../drivers/x11/damage-watch.ts'
import { exposeEvent, exposeTargets, FocusExpose, type ExposeProbe } from '../drivers/x11/focus-expose.ts'
import { startClient, startDesktop, waitForWindow, xdotool } from './helpers/desktop.ts'

const MASK = 0x001fffff
const EXPOSURE = 0x8000
const shown = { klass: 1, mapState: 2, allEventMasks: EXPOSURE }

t.test('the exposed windows: the focus client\'s own, mapped, InputOutput, listening for exposure; their bottom-right pixel', async (t) => {
  const focus = 0x00400008
  const cases: Array<[string, Parameters<typeof exposeTargets>[0], ReturnType<typeof exposeTargets>]> = [
    ['a shell and its text window', [
      { window: focus, attributes: { ...shown, allEventMasks: 0x20000 }, width: 604, height: 394 },
      { window: 0x0040001a, attributes: shown, width: 604, height: 394 },
    ], [{ window: 0x0040001a, x: 603, y: 393, width: 1, height: 1 }]],
    ['unmapped, InputOnly, another client\'s, too small', [
      { window: focus, attributes: { ...shown, mapState: 0 }, width: 100, height: 100 },
      { window: 0x00400010, attributes: { ...shown, klass: 2 }, width: 100, height: 100 },
      { window: 0x00600002, attributes: shown, width: 100, height: 100 },
      { window: 0x00400012, attributes: shown, width: 1, height: 40 },
    ], []],
    ['at most eight', Array.from({ length: 10 }, (_, i) => ({ window: focus + i, attributes: shown, width: 10, height: 20 })),
      Array.from({ length: 8 }, (_, i) => ({ window: focus + i, x: 9, y: 19, width: 1, height: 1 }))],
  ]
  for (const [name, windows, expected] of cases) t.same(exposeTargets(windows, focus, MASK), expected, name)
})

const { display } = await startDesktop(t, '640x480x24')
const prober = await FocusExpose.open(display)
t.teardown(() => prober.close())
const { X, root } = await new Promise<{ X: XClient, root: number }>((resolve, reject) => {
  const client = createClient(display, (error, info) => error ? reject(error) : resolve({ X: client, root: info.screen[0]!.root }))
})
t.teardown(() => X.terminate())

/** An xterm running `command`, focused. */
async function xterm (t: Test, command: string) {
  const { child } = startClient(t, display, 'xterm', ['-class', 'ExposeTerm', '-geometry', '80x24+0+0', '-e', 'sh', '-c', command])
  const id = await waitForWindow(display, ['--class', 'ExposeTerm'])
  await xdotool(display, 'windowfocus', '--sync', id)
  return { pid: child.pid!, id: Number(id) }
}

async function expose (probe: ExposeProbe) {
  for (const target of probe.targets) X.SendEvent(target.window, 0, 0, exposeEvent(target), () => true)
  await X.sync()
}

t.test('xterm redraws the pixel it is told is exposed; stopped, it does not until it goes on', async (t) => {
  const { pid, id } = await xterm(t, 'cat')
  const probe = (await prober.arm())!
  t.teardown(() => probe.end())
  t.equal(probe.focus, id, 'the focus is the xterm')
  t.equal(probe.targets.length, 1, 'one window exposed: the text window, not the shell')
  await expose(probe)
  t.equal(await probe.redrawn(2000), true, 'redrawn')

  let stopped = true
  process.kill(pid, 'SIGSTOP')
  t.teardown(() => { if (stopped) process.kill(pid, 'SIGCONT') })
  const again = (await prober.arm())!
  t.teardown(() => again.end())
  await expose(again)
  t.equal(await again.redrawn(500), false, 'not while stopped')
  process.kill(pid, 'SIGCONT')
  stopped = false
  t.equal(await again.redrawn(2000), true, 'once it goes on')
})

t.test('what a busy xterm draws is never taken for the redraw of the exposed pixel', async (t) => {
  await xterm(t, 'while :; do cat /etc/services; done')
  const probe = (await prober.arm())!
  t.teardown(() => probe.end())
  const watch = await DamageWatch.open(X, root)
  // Reports coalesce until the watch subtracts them, so a loaded machine sees few a second:
  // two within two seconds is already drawing that went on while the probe was armed.
  const drawn = await watch.settle({ quietMs: 2000, maxMs: 2000 })
  watch.close()
  t.ok(drawn.changes >= 2, `it drew again and again (${drawn.changes} reports)`)
  t.equal(await probe.redrawn(100), false, 'no redraw seen without an Expose')
  await expose(probe)
  t.equal(await probe.redrawn(5000), true, 'and seen once it is sent')
})
