/**
 * What `create` waits for on an engine that schedules a desktop somewhere first (Swarm's task,
 * Kubernetes' pod): that it runs and has an address. Polled through the backend's own inspect;
 * a desktop removed meanwhile, ended as it started, or not running by the deadline rejects, and
 * the backend removes what it made.
 */
import { setTimeout as delay } from 'node:timers/promises'
import type { Instance } from './backend.ts'

/** `unit` names what runs the desktop on that engine: 'task', 'pod'. */
export async function awaitAddress (inspect: () => Promise<Instance | undefined>, id: string, unit: string, timeoutMs: number): Promise<Instance> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const instance = await inspect()
    if (!instance) throw new Error(`desktop ${id} was removed while it started`)
    if (instance.state === 'exited') throw new Error(`desktop ${id}'s ${unit} ended as it started`)
    if (instance.url) return instance
    await delay(250)
  }
  throw new Error(`desktop ${id}'s ${unit} did not run within ${timeoutMs / 1000} s`)
}
