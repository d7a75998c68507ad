/** The outcome → the reply as read, what ran, and the screen after. */
import type { AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import { callAnswer, screenAfter } from '../shared/call-results.ts'
import type { UitarsResult } from './result.ts'
import type { UitarsMeta } from './to-unified.ts'

const REPORTED = new Set(['finished'])

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<UitarsMeta>): UitarsResult {
  const { meta } = translation
  return {
    thought: meta.thought,
    reflection: meta.reflection,
    action_summary: meta.action_summary,
    calls: meta.calls.map((call) => ({
      ...callAnswer(call, outcome, translation, REPORTED),
    })),
    finished: meta.finished,
    call_user: meta.call_user,
    // request_human is the translation's last action: its answer is the batch's last result.
    human: meta.call_user === null ? null : outcome.results.at(-1)?.human ?? null,
    ...screenAfter(outcome),
  }
}
