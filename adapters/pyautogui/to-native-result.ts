/** The outcome → each call as read, what ran, the model's end states and the screen after. */
import { callStatus, type AdapterOutcome, type Translation } from '../../src/pipeline/adapter.ts'
import type { PyautoguiCallResult, PyautoguiResult } from './result.ts'
import type { PyautoguiCallMeta, PyautoguiMeta } from './to-unified.ts'

const REPORTED = new Set(['computer.terminate', 'computer.wait', 'WAIT', 'DONE', 'FAIL'])
const STATUS = { ran: 'done', failed: 'failed', not_run: 'not_run', refused: 'not_run' } as const

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<PyautoguiMeta>): PyautoguiResult {
  const { meta } = translation
  return {
    calls: meta.calls.map((call) => {
      const pasted = call.name === 'pyperclip.paste' ? outcome.results[call.first]?.clipboard : undefined
      return {
        name: call.name,
        args: call.args,
        text: call.text,
        line: call.line,
        actions: translation.actions.slice(call.first, call.first + call.count),
        status: statusOf(call, outcome),
        ...(pasted && { returned: pasted.text ?? '' }),
      }
    }),
    terminate: meta.terminate,
    wait: meta.wait,
    cursor: outcome.cursor,
    screenshot: outcome.screenshot,
    error: outcome.error,
  }
}

function statusOf (call: PyautoguiCallMeta, outcome: AdapterOutcome): PyautoguiCallResult['status'] {
  if (REPORTED.has(call.name)) return 'reported'
  return STATUS[callStatus(call, outcome)]
}
