/**
 * The executor, seen by the recorder: every run of a request that belongs to an episode adds
 * the unified actions it ran and what they answered to the request's step (step.ts). The one
 * place every transport passes through — POST /computer, the adapters' pipeline, MCP's tools —
 * so none of them knows about recordings. Outside an episode it is the plain executor.
 */
import type { UnifiedAction } from '../actions/index.ts'
import { Executor, type BatchOutcome, type ExecutorOptions, type RunOptions } from '../executor/executor.ts'
import { errorBody } from '../http/error-handler.ts'
import { currentStep } from './step.ts'

export interface RecordingExecutorOptions extends ExecutorOptions {
  /** Take a screenshot after each recorded run that showed none (--record-screenshots). */
  screenshotAfter: boolean
}

export class RecordingExecutor extends Executor {
  readonly #screenshotAfter: boolean

  constructor (options: RecordingExecutorOptions) {
    const { screenshotAfter, ...rest } = options
    super(rest)
    this.#screenshotAfter = screenshotAfter
  }

  override async run (actions: UnifiedAction[], options: RunOptions = {}): Promise<BatchOutcome> {
    const step = currentStep.getStore()
    if (!step) return super.run(actions, options)
    const started = performance.now()
    let outcome: BatchOutcome
    try {
      outcome = await super.run(actions, options)
    } catch (error) {
      step.runs.push({ actions, results: [], failedIndex: null, error: errorBody(error as Error), ms: performance.now() - started })
      throw error
    }
    const run = {
      actions,
      results: outcome.results,
      failedIndex: outcome.failedIndex,
      error: outcome.error ? errorBody(outcome.error) : null,
      ms: performance.now() - started,
    }
    step.runs.push(run)
    const shown = outcome.results.some((result) => result.base64_image)
    if (this.#screenshotAfter && !shown && !options.signal?.aborted) {
      // Outside the step: the recording's own screenshot is not one of the request's runs.
      const after = await currentStep.exit(() => super.run([{ action: 'take_screenshot' }], { ...(options.limits && { limits: options.limits }) })).catch(() => undefined)
      const image = after?.results[0]?.base64_image
      if (image) Object.assign(run, { after: image })
    }
    return outcome
  }
}
