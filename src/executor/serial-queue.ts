/**
 * All input to one desktop is serialised: tasks run one at a time, in arrival order, and a
 * failing task never blocks the ones behind it. Nor does a task that never ends: a slot has a
 * deadline, after which the task's caller gets the deadline's error, the task is told to stop
 * (its signal aborts), and the next task runs. Without it one promise left unsettled below —
 * a dead X server's reply that never came — held every later request forever.
 */
export interface SlotOptions {
  /** How long the task may hold the desktop once it starts. */
  deadlineMs?: number
  /** The error the caller gets when the deadline passes. */
  overrun?: () => Error
  /** The caller's own reason to stop (its client went away): the task's signal aborts with it too. */
  signal?: AbortSignal
}

interface Waiting { since: number }

export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve()
  readonly #waiting = new Set<Waiting>()

  /** How many tasks are queued or running. */
  get pending (): number { return this.#waiting.size }

  /** How long the oldest task queued or running has been waiting for its answer (ms), 0 when none. */
  oldestWaitMs (now = performance.now()): number {
    let oldest = now
    for (const { since } of this.#waiting) oldest = Math.min(oldest, since)
    return Math.round(now - oldest)
  }

  run<T> (task: (signal: AbortSignal) => Promise<T>, options: SlotOptions = {}): Promise<T> {
    const entry: Waiting = { since: performance.now() }
    this.#waiting.add(entry)
    const result = this.#tail.then(() => slot(task, options))
    // Registered before the caller's own reaction: by the time the caller has its answer, the
    // task no longer counts as waiting.
    const done = () => { this.#waiting.delete(entry) }
    this.#tail = result.then(done, done)
    return result
  }
}

function slot<T> (task: (signal: AbortSignal) => Promise<T>, { deadlineMs, overrun, signal }: SlotOptions): Promise<T> {
  // One controller for both reasons to stop: AbortSignal.any per request cost more than the
  // rest of the slot's bookkeeping under load.
  const controller = new AbortController()
  const follow = () => controller.abort(signal!.reason)
  if (signal?.aborted) follow()
  else signal?.addEventListener('abort', follow, { once: true })
  const unfollow = () => signal?.removeEventListener('abort', follow)
  if (deadlineMs === undefined) return task(controller.signal).finally(unfollow)
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = overrun?.() ?? new Error(`the task did not finish within ${deadlineMs} ms`)
      controller.abort(error)
      reject(error)
    }, deadlineMs)
    task(controller.signal).then(resolve, reject).finally(() => { clearTimeout(timer); unfollow() })
  })
}

