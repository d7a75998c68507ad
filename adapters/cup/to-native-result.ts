/** The outcome → CUP ActionResults (see action-result.ts). */
import type { AdapterOutcome, Translation } from '../../src/adapter.ts'
import type { CupActionResult, CupResult } from './action-result.ts'
import type { CupMeta, CupStep } from './to-unified.ts'

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<CupMeta>): CupResult {
  const { steps, batch } = translation.meta
  const results: CupActionResult[] = outcome.results.map((_, i) => ({ success: true, message: done(steps[i]!), error: null }))
  if (outcome.error) {
    const failed = outcome.failedIndex === null ? undefined : steps[outcome.failedIndex]
    results.push({ success: false, message: '', error: failure(failed, outcome.error.message) })
  }
  if (batch) return results
  // One spec answers the object execute_action returns; it always runs (or fails) one action.
  const [only] = results
  if (!only) throw new Error('a single CUP spec produced no result')
  return only
}

function done (step: CupStep): string {
  switch (step.action) {
    case 'press_keys':
    case 'press':
      return `Pressed ${step.keys}`
    case 'wait':
      return `Waited ${step.ms}ms`
  }
}

/** The SDK's words for a press that failed; the server's message otherwise. */
function failure (step: CupStep | undefined, message: string): string {
  if (step?.action === 'press_keys' || step?.action === 'press') return `Failed to press keys '${step.keys}': ${message}`
  return message
}
