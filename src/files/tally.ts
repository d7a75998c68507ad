/**
 * --max-files-total: the bytes the regular files under the home hold together, counted from
 * the disk (so a restart forgets nothing) and kept up to date by the store's own uploads and
 * deletions. Uploads running at once never count each other's bytes: one with a declared
 * length reserves all of it when admitted, one without reserves its bytes as they come. So of
 * ten 1 MiB uploads sent at once with room for three, three are admitted and seven refused,
 * whatever order their bytes arrive in. A count that would refuse is made again from the disk
 * first (the desktop's own programs may have deleted files meanwhile).
 *
 * Committing an upload (its rename), a deletion and a count from the disk take turns (`turn`),
 * so a count never sees a rename the tally then adds again.
 */
import { TooLarge } from '../errors/errors.ts'

export interface Reservation {
  /** Bytes this upload holds in the tally (its declared length, or what it has written so far). */
  bytes: number
  /** The size of the file it replaces, which it frees when it commits. */
  credit: number
}

export class Tally {
  readonly #limit: number
  readonly #count: () => Promise<number>
  /** Bytes on disk as counted, plus the store's own changes since. */
  #counted = 0
  /** Bytes reserved by uploads running. */
  #reserved = 0
  #counting?: Promise<void>
  #fresh = false
  #turns: Promise<unknown> = Promise.resolve()

  constructor (limit: number, count: () => Promise<number>) {
    this.#limit = limit
    this.#count = count
  }

  get used (): number { return this.#counted + this.#reserved }

  /** Runs `work` when no commit, deletion or count is running, and holds the others off meanwhile. */
  turn<T> (work: () => Promise<T>): Promise<T> {
    const result = this.#turns.then(work)
    this.#turns = result.catch(() => {})
    return result
  }

  /** Counts the disk again (one count at a time: callers meanwhile share it). */
  recount (): Promise<void> {
    this.#counting ??= this.turn(async () => {
      this.#counted = await this.#count()
      this.#fresh = true
    }).finally(() => { this.#counting = undefined })
    return this.#counting
  }

  /** The first count, from the disk, before anything is admitted. */
  async ready (): Promise<void> {
    if (!this.#fresh) await this.recount()
  }

  /**
   * Admits an upload of `bytes` (its declared length, or 0 when it declared none) replacing a
   * file of `credit` bytes, or refuses it (413) after counting the disk again.
   */
  async admit (bytes: number, credit: number): Promise<Reservation> {
    await this.ready()
    if (!this.#fits(bytes, credit)) {
      await this.recount()
      // Decided and reserved in the same turn of the event loop as the check: nothing slips between.
      if (!this.#fits(bytes, credit)) throw this.#refusal(bytes)
    }
    this.#reserved += bytes
    return { bytes, credit }
  }

  /** Grows a reservation by `bytes` just written (an upload without a declared length), or refuses (413) after counting the disk again. */
  async grow (reservation: Reservation, bytes: number): Promise<void> {
    if (!this.#fits(bytes, reservation.credit)) {
      await this.recount()
      if (!this.#fits(bytes, reservation.credit)) throw this.#refusal(reservation.bytes + bytes)
    }
    reservation.bytes += bytes
    this.#reserved += bytes
  }

  /** An upload that ended without a file: its reservation is returned. */
  release (reservation: Reservation): void {
    this.#reserved -= reservation.bytes
    reservation.bytes = 0
  }

  /** An upload renamed onto its target: `written` bytes now on disk, `replaced` bytes gone. Call within a turn. */
  commit (reservation: Reservation, written: number, replaced: number): void {
    this.release(reservation)
    this.#counted += written - replaced
  }

  /** A file of `bytes` deleted. Call within a turn. */
  removed (bytes: number): void {
    this.#counted = Math.max(0, this.#counted - bytes)
  }

  #fits (bytes: number, credit: number): boolean {
    return this.#counted - credit + this.#reserved + bytes <= this.#limit
  }

  #refusal (bytes: number): Error {
    const running = this.#reserved > 0 ? ` and uploads under way ${this.#reserved} more` : ''
    return new TooLarge(`the files under the home directory hold ${this.#counted} bytes${running}; ${bytes} more would pass the limit of ` +
      `${this.#limit} bytes (--max-files-total): delete some first`)
  }
}
