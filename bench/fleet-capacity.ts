/**
 * How many full desktops one host holds while the fleet runs them: desktops are started one at
 * a time (a spec of their own, so the warm pool is left as it is), and once each acts, every
 * running desktop is sent a light action (get_cursor_position) at once, ROUNDS times; the host
 * holds N when the p99 of those actions with N running is ≤ 100 ms. It stops at the first N
 * over that, at the bound (the count given, --max allowing), or when the time budget is spent,
 * and says which. Started desktops are the caller's fleet's to remove (it ends them all).
 */
import { setTimeout as delay } from 'node:timers/promises'
import { percentile } from './percentile.ts'

export interface Capacity {
  /** The most desktops that ran with the light action's p99 ≤ 100 ms. */
  held: number
  /** The p99 (ms) measured with 1, 2, … desktops running. */
  p99ByCount: number[]
  stoppedBecause: string
}

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number, body: any }>

const ROUNDS = 20
const P99_MS = 100
const ACTION = { action: 'get_cursor_position' }

export async function fleetCapacity (call: Call, { bound, budgetMs, readyTimeoutMs, settleMs = 3000 }: { bound: number, budgetMs: number, readyTimeoutMs: number, settleMs?: number }): Promise<Capacity> {
  const started = Date.now()
  const ids: string[] = []
  const p99ByCount: number[] = []
  let held = 0
  while (ids.length < bound) {
    if (Date.now() - started > budgetMs) return { held, p99ByCount, stoppedBecause: `the time budget (${budgetMs / 1000} s) was spent` }
    const created = await call('POST', '/desktops', { screen: '1280x720' })
    if (created.status === 429) return { held, p99ByCount, stoppedBecause: "the fleet's --max" }
    if (created.status !== 201) return { held, p99ByCount, stoppedBecause: `POST /desktops answered ${created.status}: ${JSON.stringify(created.body)}` }
    ids.push(created.body.id)
    const deadline = Date.now() + readyTimeoutMs
    while ((await call('POST', `/desktops/${created.body.id}/computer`, ACTION)).status !== 200) {
      if (Date.now() > deadline) return { held, p99ByCount, stoppedBecause: `desktop ${ids.length} did not act within ${readyTimeoutMs / 1000} s` }
      await delay(200)
    }
    // Settle: a desktop's session start (its panel, its apps) is not what the row measures.
    await delay(settleMs)
    const times: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(ids.map(async (id) => {
        const t0 = performance.now()
        const acted = await call('POST', `/desktops/${id}/computer`, ACTION)
        times.push(acted.status === 200 ? performance.now() - t0 : Number.POSITIVE_INFINITY)
      }))
    }
    const p99 = percentile(times, 99)
    p99ByCount.push(p99)
    if (p99 > P99_MS) return { held, p99ByCount, stoppedBecause: `with ${ids.length} desktops the p99 was ${p99.toFixed(1)} ms` }
    held = ids.length
  }
  return { held, p99ByCount, stoppedBecause: `the bound of ${bound} desktops was reached` }
}
