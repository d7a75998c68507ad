/**
 * The last snapshot's element ids. An id means the element it named in the snapshot that
 * issued it, and nothing after the next snapshot replaces it: the action route resolves ids
 * here, and an id this store does not know is stale.
 */
import type { ElementRecord } from './normalize.ts'

export interface Snapshot {
  /** Increments with every capture. */
  sequence: number
  takenAt: number
  elements: ReadonlyMap<string, ElementRecord>
}

export class SnapshotStore {
  #current: Snapshot | undefined
  #sequence = 0

  save (elements: ReadonlyMap<string, ElementRecord>, takenAt = Date.now()): Snapshot {
    this.#current = { sequence: ++this.#sequence, takenAt, elements }
    return this.#current
  }

  get current (): Snapshot | undefined { return this.#current }

  /** The element an id of the last snapshot names, or undefined (no snapshot yet, or not one of its ids). */
  lookup (id: string): ElementRecord | undefined {
    return this.#current?.elements.get(id)
  }
}
