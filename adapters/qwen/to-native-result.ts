/** The outcome → QwenResult: each call's status, what the model reported, the pointer and the screen. */
import type { AdapterOutcome, CoordinateSpace, Translation } from '../../src/adapter.ts'
import type { QwenResult } from './result.ts'
import type { QwenCallMeta, QwenMeta } from './to-unified.ts'

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<QwenMeta>, space: CoordinateSpace): QwenResult {
  const { calls, terminate, answer } = translation.meta
  return {
    calls: calls.map((call) => ({ action: call.action, status: statusOf(call, outcome) })),
    terminate,
    answer,
    cursor: outcome.cursor,
    screenshot: outcome.screenshot,
    coordinate_space: { ...space.size },
    error: outcome.error,
  }
}

function statusOf (call: QwenCallMeta, { error, failedIndex, results }: AdapterOutcome): QwenResult['calls'][number]['status'] {
  if (call.action === 'terminate' || call.action === 'answer') return 'reported'
  if (failedIndex !== null && failedIndex >= call.first && failedIndex < call.first + call.count) return 'failed'
  if (error && results.length < call.first + call.count) return 'not_run'
  return 'done'
}
