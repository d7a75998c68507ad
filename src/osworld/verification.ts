/**
 * OSWorld's /setup/execute_with_verification checks, as its own server makes them after the
 * command: `window_exists`, a window whose title contains the name case-insensitively (it
 * searches `wmctrl -l`), and `command_success`, a shell line that exits 0. Both are checked
 * every interval until both hold or the wait is over; the last failing ones are reported.
 */
import { setTimeout as delay } from 'node:timers/promises'

export interface Verification {
  window_exists?: string
  command_success?: string
}

export interface VerificationProbes {
  windowTitles: () => Promise<string[]>
  succeeds: (line: string) => Promise<boolean>
}

export type VerificationOutcome = { passed: true, waitedMs: number } | { passed: false, failing: string[] }

async function failing (verification: Verification, probes: VerificationProbes): Promise<string[]> {
  const failed: string[] = []
  const name = verification.window_exists
  if (name !== undefined && !(await probes.windowTitles()).some((title) => title.toLowerCase().includes(name.toLowerCase()))) {
    failed.push(`no window's title contained ${JSON.stringify(name)}`)
  }
  const line = verification.command_success
  if (line !== undefined && !(await probes.succeeds(line))) failed.push(`${JSON.stringify(line)} did not exit 0`)
  return failed
}

/** Checks at once, then every `intervalMs` until `maxWaitMs` have passed (a last check at the deadline). */
export async function verifyUntil (verification: Verification, probes: VerificationProbes, { maxWaitMs, intervalMs, signal }: { maxWaitMs: number, intervalMs: number, signal?: AbortSignal }): Promise<VerificationOutcome> {
  const started = performance.now()
  for (;;) {
    const failed = await failing(verification, probes)
    const waited = performance.now() - started
    if (failed.length === 0) return { passed: true, waitedMs: waited }
    if (waited >= maxWaitMs || signal?.aborted) return { passed: false, failing: failed }
    await delay(Math.min(intervalMs, maxWaitMs - waited))
  }
}
