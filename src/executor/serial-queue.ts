/**
 * All input to one desktop is serialised: tasks run one at a time, in arrival order, and a
 * failing task never blocks the ones behind it.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve()
  #pending = 0

  /** How many tasks are queued or running. */
  get pending (): number { return this.#pending }

  run<T> (task: () => Promise<T>): Promise<T> {
    this.#pending++
    const result = this.#tail.then(task)
    this.#tail = result.then(noop, noop).finally(() => { this.#pending-- })
    return result
  }
}

function noop () {}
