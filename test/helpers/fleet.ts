/**
 * A fleet over the in-memory backend (memory-backend.ts) with its HTTP app, a clock the test
 * moves, and the fleet's key; ended on the test's teardown.
 */
import type { Test } from 'tap'
import { setTimeout as delay } from 'node:timers/promises'
import { buildFleetApp } from '../../fleet/app.ts'
import { Fleet, type FleetOptions } from '../../fleet/fleet.ts'
import { healthReady } from '../../fleet/probe.ts'
import { MemoryBackend } from './memory-backend.ts'

export const KEY = 'fleet-key-0123456789abcdef'

export interface TestFleet {
  fleet: Fleet
  backend: MemoryBackend
  app: Awaited<ReturnType<typeof buildFleetApp>>
  clock: { now: number }
  /** An injected request with the fleet's key. */
  call: (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<{ statusCode: number, headers: Record<string, unknown>, json: () => any }>
}

export async function startFleet (t: Test, options: Partial<FleetOptions> & { backend?: MemoryBackend, shell?: boolean } = {}): Promise<TestFleet> {
  const { shell, ...fleetOptions } = options
  const backend = options.backend ?? new MemoryBackend()
  const clock = { now: Date.UTC(2026, 10, 28, 12) }
  const fleet = new Fleet({
    warm: 0,
    max: 4,
    screen: { width: 1280, height: 800 },
    probe: healthReady,
    startTimeoutMs: 60_000,
    // The tests call sweep() themselves; the interval only has to exist.
    sweepMs: 3_600_000,
    now: () => clock.now,
    ...fleetOptions,
    backend,
  })
  await fleet.start()
  const app = await buildFleetApp({ fleet, token: KEY, ...(shell !== undefined && { shell }) })
  t.teardown(async () => {
    await app.close()
    await fleet.close(false).catch(() => {})
    await backend.close()
  })
  const call: TestFleet['call'] = (method, url, body, headers = {}) => app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${KEY}`, ...headers },
    ...(body !== undefined && (typeof body === 'string' ? { payload: body } : { payload: body as object })),
  })
  return { fleet, backend, app, clock, call }
}

/** Polls until check() holds; fails the test with `what` after the deadline. */
export async function until (t: Test, what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) { t.fail(`${what}: not within ${timeoutMs} ms`); return }
    await delay(20)
  }
}
