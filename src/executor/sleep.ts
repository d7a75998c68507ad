import { setTimeout as delay } from 'node:timers/promises'
import { ActionAborted } from '../errors/errors.ts'

/** Waits, or stops early with ActionAborted when the client goes away. */
export async function sleep (ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return
  try {
    await delay(ms, undefined, signal ? { signal } : undefined)
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw new ActionAborted('the client closed the connection; the action was stopped and every held input released')
    throw error
  }
}

export function throwIfAborted (signal?: AbortSignal): void {
  if (signal?.aborted) throw new ActionAborted('the client closed the connection before the action ran')
}
