/** The outcome of a CUAction → the tool result (see result.ts). */
import type { AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import type { ConatusToolResult } from './result.ts'
import type { ConatusMeta } from './to-unified.ts'

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<ConatusMeta>): ConatusToolResult {
  const done = outcome.results.map((r) => r.output).filter((line): line is string => !!line)
  const content = outcome.error ? outcome.error.message : done.join('\n') || 'nothing to do'
  return {
    call_id: translation.meta.call_id,
    name: translation.meta.name,
    success: outcome.error === null,
    content,
    screenshot: outcome.screenshot,
    cursor_xy: outcome.cursor,
    error: outcome.error,
  }
}
