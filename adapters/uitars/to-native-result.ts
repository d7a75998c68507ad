/** The outcome → the reply as read, what ran, and the screen after. */
import type { AdapterOutcome, Translation } from '../../src/adapter.ts'
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

function statusOf (call: UitarsCallMeta, { error, failedIndex }: AdapterOutcome): UitarsCallResult['status'] {
  if (REPORTED.has(call.name)) return 'reported'
  if (!error) return 'done'
  // Refused before anything ran (a point off the image, an unknown key): nothing ran.
  if (failedIndex === null) return 'not_run'
  if (call.count > 0 && failedIndex >= call.first && failedIndex < call.first + call.count) return 'failed'
  return call.first + call.count <= failedIndex ? 'done' : 'not_run'
}
