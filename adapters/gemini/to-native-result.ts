/**
 * The outcome → one `functionResponse` part per call. A call after the one that failed did
 * not run, and says so: the API wants an answer for every call of the turn.
 */
import { callStatus, type AdapterOutcome, type Translation } from '../../src/pipeline/adapter.ts'
import type { GeminiFunctionResponse, GeminiFunctionResponsePart } from './function-response.ts'
import type { GeminiCallMeta, GeminiMeta } from './to-unified.ts'

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<GeminiMeta>): GeminiFunctionResponse {
  const { calls, list } = translation.meta
  const failedCall = calls.find((c) => callStatus(c, outcome) === 'failed') ?? null
  const parts = calls.map((call) => responsePart(call, outcome, failedCall))
  return list ? parts : parts[0]!
}

function responsePart (call: GeminiCallMeta, outcome: AdapterOutcome, failed: GeminiCallMeta | null): GeminiFunctionResponsePart {
  const ran = outcome.results.slice(call.first, call.first + call.count)
  const image = ran.length === call.count ? ran.at(-1)?.base64_image ?? null : null
  const error = outcome.error ? errorOf(call, outcome, outcome.error.message, failed) : null
  return {
    functionResponse: {
      ...(call.id !== null && { id: call.id }),
      name: call.name,
      response: {
        ...(call.safety_acknowledgement && { safety_acknowledgement: 'true' as const }),
        ...(error !== null && { error }),
      },
      ...(image && { parts: [{ inlineData: { mimeType: outcome.mediaType, data: image } }] }),
    },
  }
}

function errorOf (call: GeminiCallMeta, outcome: AdapterOutcome, message: string, failed: GeminiCallMeta | null): string | null {
  switch (callStatus(call, outcome)) {
    case 'ran': return null
    case 'failed': return message
    case 'not_run': return `not run: the earlier call ${failed?.name} failed`
    // Refused before anything ran (a point off the grid, an unknown key): the message names the culprit.
    case 'refused': return `not run: ${message}`
  }
}
