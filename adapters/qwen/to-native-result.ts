/** The outcome → QwenResult: each call's status, what the model reported, the pointer and the screen. */
import { callStatus, type AdapterOutcome, type CoordinateSpace, type Translation } from '../../src/adapter.ts'
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

function statusOf (call: QwenCallMeta, outcome: AdapterOutcome): QwenResult['calls'][number]['status'] {
  if (call.action === 'terminate' || call.action === 'answer') return 'reported'
  return STATUS[callStatus(call, outcome)]
}

const STATUS = { ran: 'done', failed: 'failed', not_run: 'not_run', refused: 'not_run' } as const
