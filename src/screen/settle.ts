/**
 * Waiting for the screen to settle by comparing consecutive grabs: the fallback for a driver
 * that cannot be told when the screen changes (no XDamage). Each poll costs a grab, so it
 * polls no faster than POLL_MS.
 */
import type { Driver, SettleOptions, Settled } from '../driver/driver.ts'
import { sleep } from '../executor/sleep.ts'

const POLL_MS = 40

/**
 * A settled screenshot waits for 300 ms without a change, at most 3 s: long enough for a
 * click's repaint, a menu or a dialog of a running application, far below the 2 s sleep
 * reference agents take before every screenshot.
 */
export const DEFAULT_SETTLE = { quietMs: 300, maxMs: 3000 } as const

export async function settleByPixels (driver: Pick<Driver, 'screenshot'>, { quietMs, maxMs, signal }: SettleOptions): Promise<Settled> {
  const started = performance.now()
  let previous = (await driver.screenshot()).data
  let lastChange = performance.now()
  let changes = 0
  for (;;) {
    const now = performance.now()
    if (now - lastChange >= quietMs) return { waitedMs: now - started, changes, quiet: true, via: 'pixels' }
    if (now - started >= maxMs) return { waitedMs: now - started, changes, quiet: false, via: 'pixels' }
    await sleep(Math.max(1, Math.min(POLL_MS, lastChange + quietMs - now, started + maxMs - now)), signal)
    const current = (await driver.screenshot()).data
    if (!current.equals(previous)) {
      changes++
      lastChange = performance.now()
    }
    previous = current
  }
}
