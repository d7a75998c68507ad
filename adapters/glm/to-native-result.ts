/** The outcome → the reply as read, what ran, and the screen after. */
import { callStatus, type AdapterOutcome, type Translation } from '../../src/pipeline/adapter.ts'
import type { GlmResult } from './result.ts'
import type { GlmMeta } from './to-unified.ts'

const STATUS = { ran: 'done', failed: 'failed', not_run: 'not_run', refused: 'not_run' } as const

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<GlmMeta>): GlmResult {
  const { meta, actions } = translation
  return {
    reasoning: meta.reasoning,
    thought: meta.thought,
    call: meta.call,
    element_info: meta.element_info,
    memory: meta.memory,
    actions,
    status: meta.finished ? 'reported' : STATUS[callStatus({ first: 0, count: actions.length }, outcome)],
    finished: meta.finished,
    cursor: outcome.cursor,
    screenshot: outcome.screenshot,
    error: outcome.error,
  }
}
