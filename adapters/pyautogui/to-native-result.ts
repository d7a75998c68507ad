/** The outcome → each call as read, what ran, the model's end states and the screen after. */
import type { AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import { callAnswer, screenAfter } from '../shared/call-results.ts'
import type { PyautoguiResult } from './result.ts'
import type { PyautoguiMeta } from './to-unified.ts'

const REPORTED = new Set(['computer.terminate', 'computer.wait', 'WAIT', 'DONE', 'FAIL'])

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<PyautoguiMeta>): PyautoguiResult {
  const { meta } = translation
  return {
    calls: meta.calls.map((call) => {
      const pasted = call.name === 'pyperclip.paste' ? outcome.results[call.first]?.clipboard : undefined
      return {
        line: call.line,
        ...callAnswer(call, outcome, translation, REPORTED),
        ...(pasted && { returned: pasted.text ?? '' }),
      }
    }),
    terminate: meta.terminate,
    wait: meta.wait,
    ...screenAfter(outcome),
  }
}
