/**
 * The outcome → the computer_call_output item for the next request. OpenAI's item has no
 * field for a failure, so a failed call is answered with the same item marked
 * `status: "incomplete"`, the screenshot if one was taken, and our `error` beside it.
 */
import type { AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import type { OpenaiComputerCallOutput } from './result.ts'
import type { ToolVersion } from './query.ts'
import type { OpenaiMeta } from './to-unified.ts'

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<OpenaiMeta>, version: ToolVersion): OpenaiComputerCallOutput {
  const { call_id: callId, acknowledged_safety_checks: acknowledged, sources } = translation.meta
  const failed = outcome.failedIndex === null ? undefined : sources[outcome.failedIndex]
  return {
    type: 'computer_call_output',
    ...(callId !== null && { call_id: callId }),
    output: {
      type: 'computer_screenshot',
      ...(outcome.screenshot && {
        image_url: `data:${outcome.mediaType};base64,${outcome.screenshot}`,
        // The computer tool's guide asks for full resolution, for click accuracy.
        ...(version === 'computer' && { detail: 'original' as const }),
      }),
    },
    ...(acknowledged.length > 0 && { acknowledged_safety_checks: acknowledged }),
    ...(outcome.error && {
      status: 'incomplete' as const,
      error: { code: outcome.error.code, message: outcome.error.message, ...(failed !== undefined && { failed_action: failed }) },
    }),
  }
}
