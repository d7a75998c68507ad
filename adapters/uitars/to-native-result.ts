/** The outcome → the reply as read, what ran, and the screen after. */
import { callStatus, type AdapterOutcome, type Translation } from '../../src/pipeline/adapter.ts'
import type { UitarsCallResult, UitarsResult } from './result.ts'
import type { UitarsCallMeta, UitarsMeta } from './to-unified.ts'

const REPORTED = new Set(['finished', 'call_user'])

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<UitarsMeta>): UitarsResult {
  const { meta } = translation
  return {
    thought: meta.thought,
    reflection: meta.reflection,
    action_summary: meta.action_summary,
    calls: meta.calls.map((call) => ({
      name: call.name,
      args: call.args,
      text: call.text,
      actions: translation.actions.slice(call.first, call.first + call.count),
      status: statusOf(call, outcome),
    })),
    finished: meta.finished,
    call_user: meta.call_user,
    cursor: outcome.cursor,
    screenshot: outcome.screenshot,
    error: outcome.error,
  }
}

function statusOf (call: UitarsCallMeta, outcome: AdapterOutcome): UitarsCallResult['status'] {
  if (REPORTED.has(call.name)) return 'reported'
  return STATUS[callStatus(call, outcome)]
}

const STATUS = { ran: 'done', failed: 'failed', not_run: 'not_run', refused: 'not_run' } as const
