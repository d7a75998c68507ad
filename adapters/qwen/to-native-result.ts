/** The outcome → QwenResult: each call's status, what the model reported, the pointer and the screen. */
import { callStatus, type AdapterOutcome, type CoordinateSpace, type Translation } from '../../src/pipeline/adapter.ts'
import type { QwenResult } from './result.ts'
import type { QwenCallMeta, QwenMeta } from './to-unified.ts'

/** Calls that report to the caller and run nothing. */
const REPORTED = new Set(['terminate', 'answer', 'pause_and_memorize_fact'])

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<QwenMeta>, space: CoordinateSpace): QwenResult {
  const { calls, terminate, answer, facts } = translation.meta
  return {
    calls: calls.map((call) => ({ action: call.action, status: statusOf(call, outcome) })),
    terminate,
    answer,
    ...(facts && { facts }),
    cursor: outcome.cursor,
    screenshot: outcome.screenshot,
    coordinate_space: { ...space.size },
    error: outcome.error,
  }
}

function statusOf (call: QwenCallMeta, outcome: AdapterOutcome): QwenResult['calls'][number]['status'] {
  if (REPORTED.has(call.action)) return 'reported'
  return STATUS[callStatus(call, outcome)]
}

const STATUS = { ran: 'done', failed: 'failed', not_run: 'not_run', refused: 'not_run' } as const
