/**
 * The outcome → one `functionResponse` part per call. A call after the one that failed did
 * not run, and says so: the API wants an answer for every call of the turn.
 */
import type { AdapterOutcome, Translation } from '../../src/adapter.ts'
import type { GeminiFunctionResponse, GeminiFunctionResponsePart } from './function-response.ts'
import type { GeminiCallMeta, GeminiMeta } from './to-unified.ts'

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<GeminiMeta>): GeminiFunctionResponse {
  const { calls, list } = translation.meta
  const failedCall = outcome.failedIndex === null
    ? null
    : calls.find((c) => outcome.failedIndex! >= c.first && outcome.failedIndex! < c.first + c.count) ?? null
  const parts = calls.map((call) => responsePart(call, outcome, failedCall))
  return list ? parts : parts[0]!
}

function responsePart (call: GeminiCallMeta, outcome: AdapterOutcome, failed: GeminiCallMeta | null): GeminiFunctionResponsePart {
  const ran = outcome.results.slice(call.first, call.first + call.count)
  const image = ran.length === call.count ? ran.at(-1)?.base64_image ?? null : null
  const error = outcome.error ? errorOf(call, outcome.error.message, failed) : null
  return {
    functionResponse: {
      ...(call.id !== null && { id: call.id }),
      name: call.name,
      response: {
        ...(call.safety_acknowledgement && { safety_acknowledgement: 'true' as const }),
        ...(error !== null && { error }),
      },
      ...(image && { parts: [{ inlineData: { mimeType: 'image/png' as const, data: image } }] }),
    },
  }
}

function errorOf (call: GeminiCallMeta, message: string, failed: GeminiCallMeta | null): string | null {
  // Refused before anything ran (a point off the grid, an unknown key): the message names the culprit.
  if (!failed) return `not run: ${message}`
  if (call === failed) return message
  if (call.first < failed.first) return null
  return `not run: the earlier call ${failed.name} failed`
}
