/**
 * How an application's autogroup is lowered when the kernel refuses: an unprivileged server
 * gets one autogroup change per 100 ms (EAGAIN for the next), so a second application started
 * at once is lowered a little later; any other refusal (no autogroups, the process gone) is
 * left alone. The kernel's side is in e2e-desktop-full, where the file shows it.
 */
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'

const refusal = (code: string) => Object.assign(new Error(code), { code })

async function lowered (refusals: string[]) {
  const writes: Array<{ file: string, value: string, at: number }> = []
  const started = performance.now()
  const { yieldingGroup, APP_NICE } = await t.mockImport<typeof import('../drivers/x11/app-priority.ts')>('../drivers/x11/app-priority.ts', {
    'node:fs': {
      writeFileSync: (file: string, value: string) => {
        writes.push({ file, value, at: performance.now() - started })
        const code = refusals.shift()
        if (code) throw refusal(code)
      },
    },
  })
  yieldingGroup(4242)
  await sleep(400)
  return { writes, APP_NICE }
}

t.test('accepted at once: one write of the nice value to the process\'s autogroup', async (t) => {
  const { writes, APP_NICE } = await lowered([])
  t.strictSame(writes.map(({ file, value }) => [file, value]), [['/proc/4242/autogroup', String(APP_NICE)]])
})

t.test('EAGAIN (the kernel\'s 100 ms limit): written once more, after the limit', async (t) => {
  const { writes } = await lowered(['EAGAIN'])
  t.equal(writes.length, 2)
  t.ok(writes[1]!.at - writes[0]!.at >= 100, `the second write ${Math.round(writes[1]!.at - writes[0]!.at)} ms after the first`)
})

t.test('EAGAIN twice: no third write (it retries once, never in a loop)', async (t) => {
  const { writes } = await lowered(['EAGAIN', 'EAGAIN'])
  t.equal(writes.length, 2)
})

for (const code of ['ENOENT', 'ESRCH', 'EACCES', 'EINVAL']) {
  t.test(`${code}: no error and no second write`, async (t) => {
    const { writes } = await lowered([code])
    t.equal(writes.length, 1)
  })
}
