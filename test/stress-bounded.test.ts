/**
 * The stress suite's promises, bounded to a minute or so, so that a regression fails CI: a few
 * thousand fuzzed requests (all refused, none typing or clicking), the huge scroll refused
 * with the desktop working after it, a web page's request refused, and Xvfb killed under
 * mixed load with an application focused (every request answered in time, the desktop back).
 * `npm run stress` is the whole of it (stress/README.md).
 */
import t from 'tap'
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { execFileSync } from 'node:child_process'
import { Checks, Processes, ROOT, workdir } from '../stress/harness.ts'
import { faults, fuzz, web, type Context } from '../stress/phases.ts'

t.setTimeout(170_000)

const procs = new Processes()
const checks = new Checks()
const dir = await workdir()
t.teardown(async () => {
  await procs.endAll()
  await rm(dir, { recursive: true, force: true })
})
// The suite runs the server as users do, compiled.
if (!existsSync(`${ROOT}dist/src/runtime/server.js`)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })

const ctx: Context = { procs, checks, workdir: dir, deadlineMs: 15_000, log: (line) => t.comment(line) }

/** Every check a phase recorded, as an assertion of its own. */
function assertChecks (t: { ok: (value: unknown, message: string) => unknown }, phase: string) {
  const mine = checks.list.filter((c) => c.phase === phase)
  t.ok(mine.length > 0, `${phase}: checks were made`)
  for (const c of mine) t.ok(c.ok, `${c.name}${c.detail ? ` — ${c.detail}` : ''}`)
}

t.test('fuzz: 2500 malformed requests refused, nothing typed or clicked; the huge scroll is a 400 and the desktop works after', async (t) => {
  await fuzz(ctx, { seed: 7, count: 2500, concurrency: 8, heavy: (kind) => kind === 'huge scroll (unified)' })
  assertChecks(t, 'fuzz')
})

t.test("a web page's request is refused (403) and clicks nothing", async (t) => {
  await web(ctx)
  assertChecks(t, 'web')
})

t.test('Xvfb killed under mixed load with an application focused: every request answered in time, the desktop back', async (t) => {
  await faults(ctx, { xvfbKills: 1, workerKills: 0, clients: 6, dwellMs: 1500, recoveryDeadlineMs: 20_000, seed: 3 })
  assertChecks(t, 'faults')
})
