/**
 * settleByPixels, the fallback for a driver without damage reports: a screen that changes for
 * a while settles a quiet window after its last change; one that never stops is cut off by
 * the cap; a client that goes away stops the wait.
 */
import t from 'tap'
import type { RawImage } from '../src/driver/driver.ts'
import { settleByPixels } from '../src/screen/settle.ts'

/** A 1x1 screen whose pixel changes until `changesUntilMs` after the start. */
function screen (changesUntilMs: number) {
  const started = performance.now()
  let grabs = 0
  return {
    grabs: () => grabs,
    async screenshot (): Promise<RawImage> {
      grabs++
      const changing = performance.now() - started < changesUntilMs
      return { width: 1, height: 1, order: 'rgba', data: Buffer.from([changing ? grabs % 256 : 0, 0, 0, 0]) }
    },
  }
}

t.test('a screen that stops changing settles a quiet window after its last change', async (t) => {
  const driver = screen(200)
  const settled = await settleByPixels(driver, { quietMs: 150, maxMs: 5000 })
  t.equal(settled.quiet, true)
  t.equal(settled.via, 'pixels')
  t.ok(settled.changes >= 1, `changes seen (${settled.changes})`)
  t.ok(settled.waitedMs >= 200 + 100, `waited past the last change (${Math.round(settled.waitedMs)} ms)`)
  t.ok(settled.waitedMs < 5000, 'not the cap')
})

t.test('a still screen settles after the quiet window', async (t) => {
  const settled = await settleByPixels(screen(0), { quietMs: 100, maxMs: 5000 })
  t.strictSame([settled.quiet, settled.changes], [true, 0])
  t.ok(settled.waitedMs >= 100 && settled.waitedMs < 2000, `${Math.round(settled.waitedMs)} ms`)
})

t.test('the cap ends the wait on a screen that never stops', async (t) => {
  const settled = await settleByPixels(screen(Infinity), { quietMs: 200, maxMs: 400 })
  t.equal(settled.quiet, false)
  t.ok(settled.waitedMs >= 400 && settled.waitedMs < 2000, `${Math.round(settled.waitedMs)} ms`)
})

t.test('an abort stops the wait as the client leaving', async (t) => {
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 50)
  await t.rejects(settleByPixels(screen(Infinity), { quietMs: 200, maxMs: 5000, signal: controller.signal }), { code: 'ERR_ACTION_ABORTED' })
})
