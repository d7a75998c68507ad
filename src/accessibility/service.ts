/**
 * The desktop's accessibility, as the executor uses it: snapshots (captured, their ids
 * remembered, logged), the elements those ids name, and the environment launched
 * applications need to expose their trees. GET /accessibility and the unified
 * get_accessibility_tree both take their snapshots here, through the executor's queue, so a
 * snapshot never interleaves with input and each one retires the ids of the last.
 */
import type { Logger } from 'pino'
import { DriverFailure } from '../errors/errors.ts'
import { capture, type Capture, type CaptureOptions } from './capture.ts'
import type { ElementRecord } from './normalize.ts'
import { SnapshotStore } from './snapshots.ts'
import type { AccessibilitySource, ElementControl } from './source.ts'

export class Accessibility {
  readonly #source: AccessibilitySource
  readonly #log: Logger
  readonly snapshots: SnapshotStore

  constructor (source: AccessibilitySource, log: Logger, snapshots = new SnapshotStore()) {
    this.#source = source
    this.#log = log
    this.snapshots = snapshots
  }

  unavailable (): string | undefined { return this.#source.unavailable() }

  /** After an X restart: the bus published on the new X server; failures are logged, not thrown (the next call retries). */
  async desktopReplaced (): Promise<void> {
    await this.#source.desktopReplaced?.().catch((error: unknown) => {
      this.#log.warn({ err: error }, 'could not follow the desktop to its new X server')
    })
  }

  get elements (): ElementControl { return this.#source.elements }

  /** Captures the tree and makes its ids the current ones. */
  async snapshot (options: CaptureOptions): Promise<Capture> {
    let taken: Capture
    try {
      taken = await capture(this.#source, options)
    } catch (error) {
      if (typeof (error as { statusCode?: unknown }).statusCode === 'number') throw error
      throw new DriverFailure(`reading the accessibility tree failed: ${(error as Error).message}`, { cause: error })
    }
    this.snapshots.save(taken.elements)
    this.#log.info({ scope: options.scope, nodes: taken.nodes, ms: taken.ms, truncated: taken.truncated }, 'accessibility snapshot')
    return taken
  }

  lookup (id: string): ElementRecord | undefined { return this.snapshots.lookup(id) }

  /** The last snapshot's ids are void: the desktop behind them was replaced. */
  forget (): void { this.snapshots.save(new Map()) }

  environment (): Promise<Record<string, string>> { return this.#source.environment() }

  close (): Promise<void> { return this.#source.close() }
}
