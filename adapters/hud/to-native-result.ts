/** The outcome of a step → HUD's step result (see result.ts for the shape and why). */
import type { AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import type { HudStepResult } from './result.ts'
import type { HudMeta } from './to-unified.ts'

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<HudMeta>): HudStepResult {
  const { origins, responses } = translation.meta
  const lines = outcome.results
    .filter((_, i) => translation.actions[i]?.action === 'get_cursor_position')
    .map((result) => result.output ?? '')
  if (outcome.error) lines.push(outcome.error.message)
  const at = outcome.failedIndex ?? outcome.error?.failed_index
  return {
    observation: {
      screenshot: outcome.screenshot,
      text: lines.length ? lines.join('\n') : null,
    },
    reward: 0,
    terminated: responses.length > 0,
    info: {
      responses,
      cursor: outcome.cursor ? { x: outcome.cursor[0], y: outcome.cursor[1] } : null,
      // The CLA action at fault: the one that failed, or the one refused before anything ran.
      failed_index: at === undefined ? null : origins[at] ?? null,
      error: outcome.error,
    },
  }
}
