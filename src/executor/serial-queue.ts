/**
 * All input to one desktop is serialised: tasks run one at a time, in arrival order, and a
 * failing task never blocks the ones behind it. Nor does a task that never ends: a slot has a
 * deadline, after which the task's caller gets the deadline's error, the task is told to stop
 * (its signal aborts), and the next task runs. Without it one promise left unsettled below —
 * a dead X server's reply that never came — held every later request forever.
 *
 * Pipelined tasks overlap in one way only: a pipelined task may start as soon as the pipelined
 * task before it has handed its input to a channel that keeps order (it calls `release`), while
 * that one still waits for its answer. A task that is not pipelined starts only once every
 * task before it has finished, and the first pipelined task after it waits for it to finish.
 */
export interface SlotOptions {
  /** How long the task may hold the desktop once it starts. */
  deadlineMs?: number
  /** The error the caller gets when the deadline passes. */
  overrun?: () => Error
  /** The caller's own reason to stop (its client went away): the task's signal aborts with it too. */
  signal?: AbortSignal
  /** The task may start once the pipelined task before it released its slot (see the class). */
  pipelined?: boolean
}

/** A task gets the slot's abort signal, and `release` to let the next pipelined task start before it finishes. */
export type SlotTask<T> = (signal: AbortSignal, release: () => void) => Promise<T>

interface Waiting { since: number }

export class SerialQueue {
  /** Settles once every task so far has finished. */
  #tail: Promise<unknown> = Promise.resolve()
  /** Settles once the last task released its slot or finished: when a pipelined task after it may start. */
  #gate: Promise<unknown> = Promise.resolve()
  #lastPipelined = false
  readonly #waiting = new Set<Waiting>()

  /** How many tasks are queued or running. */
  get pending (): number { return this.#waiting.size }

  /** How long the oldest task queued or running has been waiting for its answer (ms), 0 when none. */
  oldestWaitMs (now = performance.now()): number {
    let oldest = now
    for (const { since } of this.#waiting) oldest = Math.min(oldest, since)
    return Math.round(now - oldest)
  }

  run<T> (task: SlotTask<T>, options: SlotOptions = {}): Promise<T> {
    const entry: Waiting = { since: performance.now() }
    this.#waiting.add(entry)
    const pipelined = options.pipelined === true
    const early = pipelined && this.#lastPipelined
    this.#lastPipelined = pipelined
    // Only a pipelined task's release can let another start: the next one after a plain task waits
    // for it. Finishing releases too, so the gate is that one promise.
    let release = () => {}
    const released = pipelined ? new Promise<void>((resolve) => { release = resolve }) : undefined
    const result = (early ? this.#gate : this.#tail).then(() => slot(task, release, options))
    // Registered before the caller's own reaction: by the time the caller has its answer, the
    // task no longer counts as waiting.
    const done = () => {
      this.#waiting.delete(entry)
      release()
    }
    const finished = result.then(done, done)
    // A task that started late finished after every task before it; one that started early did
    // not, so the tail waits for both (neither ever rejects).
    const before = this.#tail
    this.#tail = early ? before.then(() => finished) : finished
    this.#gate = released ?? finished
    return result
  }
}

function slot<T> (task: SlotTask<T>, release: () => void, { deadlineMs, overrun, signal }: SlotOptions): Promise<T> {
  // One controller for both reasons to stop: AbortSignal.any per request cost more than the
  // rest of the slot's bookkeeping under load.
  const controller = new AbortController()
  const follow = () => controller.abort(signal!.reason)
  if (signal?.aborted) follow()
  else signal?.addEventListener('abort', follow, { once: true })
  const unfollow = () => signal?.removeEventListener('abort', follow)
  if (deadlineMs === undefined) return task(controller.signal, release).finally(unfollow)
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = overrun?.() ?? new Error(`the task did not finish within ${deadlineMs} ms`)
      controller.abort(error)
      reject(error)
    }, deadlineMs)
    const end = () => { clearTimeout(timer); unfollow() }
    task(controller.signal, release).then((value) => { end(); resolve(value) }, (error: unknown) => { end(); reject(error) })
  })
}

