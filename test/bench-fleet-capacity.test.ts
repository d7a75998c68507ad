/**
 * The bench's capacity row (bench/fleet-capacity.ts) against a fleet that answers as told: it
 * counts the desktops held while the light action's p99 stays ≤ 100 ms and says where and why it
 * stopped (p99 over, --max, the bound), so a row can neither stop silently nor run unbounded.
 */
import t from 'tap'
import { fleetCapacity } from '../bench/fleet-capacity.ts'

/** A fleet whose action takes 120 ms once `slowAt` desktops run, and answers 429 past `max`. */
function fakeFleet ({ max, slowAt }: { max: number, slowAt: number }) {
  const ids: string[] = []
  const calls: string[] = []
  const call = async (method: string, path: string) => {
    calls.push(`${method} ${path.replace(/[0-9a-f]{16}/, 'ID')}`)
    if (method === 'POST' && path === '/desktops') {
      if (ids.length >= max) return { status: 429, body: { code: 'ERR_FLEET_FULL' } }
      ids.push(String(ids.length).padStart(16, '0'))
      return { status: 201, body: { id: ids.at(-1) } }
    }
    if (ids.length >= slowAt) await new Promise((resolve) => setTimeout(resolve, 120))
    return { status: 200, body: {} }
  }
  return { call, calls }
}

t.test('counts what it held, and says why it stopped', async (t) => {
  const cases: Array<[string, { max: number, slowAt: number }, number, { held: number, stoppedBecause: RegExp }]> = [
    ['p99 over 100 ms with the third', { max: 10, slowAt: 3 }, 5, { held: 2, stoppedBecause: /^with 3 desktops the p99 was 1\d\d\.\d ms$/ }],
    ["the fleet's --max", { max: 2, slowAt: 99 }, 5, { held: 2, stoppedBecause: /^the fleet's --max$/ }],
    ['the bound', { max: 10, slowAt: 99 }, 1, { held: 1, stoppedBecause: /^the bound of 1 desktops was reached$/ }],
  ]
  for (const [name, fleet, bound, expected] of cases) {
    const { call } = fakeFleet(fleet)
    const capacity = await fleetCapacity(call, { bound, budgetMs: 120_000, readyTimeoutMs: 10_000, settleMs: 0 })
    t.match(capacity, expected, name)
    t.equal(capacity.p99ByCount.length, Math.min(bound, fleet.max, fleet.slowAt), `${name}: one p99 per count measured`)
  }
})
