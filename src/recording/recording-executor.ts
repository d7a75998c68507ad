/**
 * The executor, seen by the recorder: every run of a request that belongs to an episode adds
 * the unified actions it ran and what they answered to the request's step (step.ts). The one
 * place every transport passes through — POST /computer, the adapters' pipeline, MCP's tools —
 * so none of them knows about recordings. Outside an episode it is the plain executor.
 */
import type { UnifiedAction } from '../actions/index.ts'
import { hasToolAction, recordedResult } from './tool-output.ts'
import { Executor, type BatchOutcome, type ExecutorOptions, type RunOptions } from '../executor/executor.ts'
import { errorBody } from '../http/error-handler.ts'
import { currentStep } from './step.ts'

export interface RecordingExecutorOptions extends ExecutorOptions {
  /** A screenshot after each recorded action (--record-screenshots), kept for the recording only. */
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
    // The executor's own per-action screenshot, asked for actions whose client did not: those
    // images go to the recording and are taken out of what the client gets.
    const added = new Set<number>()
    const sent = this.#screenshotAfter
      ? actions.map((action, index) => {
        if (action.action === 'take_screenshot' || (action as { screenshot?: boolean }).screenshot === true) return action
        if (options.screenshot && index === actions.length - 1) return action
        added.add(index)
        return { ...action, screenshot: true } as UnifiedAction
      })
      : actions
    const text = (image: string): string => options.images?.text(image) ?? image
    const started = performance.now()
    let outcome: BatchOutcome
    try {
      outcome = await super.run(sent, options)
    } catch (error) {
      if (hasToolAction(actions)) step.withholdResponse = true
      step.runs.push({ actions, results: [], failedIndex: null, error: errorBody(error as Error), ms: performance.now() - started })
      throw error
    }
    const after: Array<string | undefined> = []
    const results = outcome.results.map((result, index) => {
      if (!added.has(index) || !result.base64_image) return result
      after[index] = text(result.base64_image)
      return { ...result, base64_image: null }
    })
    if (hasToolAction(actions)) step.withholdResponse = true
    step.runs.push({
      actions,
      // The step outlives the answer's images: it keeps their text. Output of the shell and editor is not kept.
      results: results.map((result, index) => recordedResult(actions[index], result.base64_image ? { ...result, base64_image: text(result.base64_image) } : result)),
      failedIndex: outcome.failedIndex,
      error: outcome.error ? errorBody(outcome.error) : null,
      ms: performance.now() - started,
      ...(after.length > 0 && { after }),
    })
    return added.size > 0 ? { ...outcome, results } : outcome
  }
}
