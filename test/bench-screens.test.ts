/**
 * The screenshot rows of `npm run bench` (bench/screens.ts) in their shortest mode, against
 * the app on its own Xvfb, so they cannot rot: every floor and every route is measured, and the
 * settled-screenshot trials run with a real launcher terminal. How fast is the bench's business.
 */
import t from 'tap'
import { benchScreens } from '../bench/screens.ts'
import { buildOnDisplay, startClient, startDesktop } from './helpers/desktop.ts'

t.test('the screenshot bench measures every row', { timeout: 120_000 }, async (t) => {
  const xvfb = await startDesktop(t)
  // As in the bench: a window under everything, where clicks land harmlessly.
  startClient(t, xvfb.display, 'xterm', ['-geometry', '200x60+0+0', '-e', 'cat > /dev/null'])
  const { app } = await buildOnDisplay(t, xvfb.display)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  const result = await benchScreens({ display: xvfb.display, port, smoke: true, quick: true })
  t.strictSame(result.floor.map((row) => row.kind), [
    'floor: GetImage 1280x800 (socket)', 'floor: GetImage 1280x800 (MIT-SHM)', 'floor: PNG encode (zlib 1)',
    'floor: PNG encode → 1024x768', 'ours in-process: reorder + PNG',
  ])
  t.strictSame(result.ours.map((row) => row.kind), [
    'ours: screenshot 1280x800 PNG', 'ours: screenshot → 1024x768 PNG', 'ours: screenshot 1280x800 JPEG q80', 'ours: screenshot 1280x800 WebP q80',
  ])
  for (const row of [...result.floor, ...result.ours, result.settle.nothing]) t.ok(row.p50 > 0, `${row.kind} measured`)
  t.strictSame(result.settle.opensWindow.map((r) => [r.way, r.trials]), [
    ['settled (default 300 ms quiet, 3 s cap)', 1], ['fixed 2 s sleep', 1], ['immediate', 1],
  ])
  t.equal(result.settle.opensWindow[1]!.shown, 1, 'after 2 s the window is there')
  t.ok(result.settle.opensWindow[1]!.p50 >= 2000, 'the sleep is counted')
  t.equal(result.targets.length, 4)
})
