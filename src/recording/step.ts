/**
 * The step a request is building while it runs. The recording hooks open it when a request
 * names an episode and run the rest of the request inside it (AsyncLocalStorage), so whatever
 * the request reaches — a unified route, an adapter's pipeline, an MCP tool call — adds its
 * executor runs to it without any of them knowing about recordings.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { UnifiedAction } from '../actions/index.ts'
import type { ActionResponse } from '../actions/response.ts'
import type { ErrorBody } from '../schemas/error-body.ts'
import type { Static } from '@sinclair/typebox'

export interface DraftRun {
  actions: UnifiedAction[]
  results: ActionResponse[]
  failedIndex: number | null
  error: Static<typeof ErrorBody> | null
  ms: number
  /** By action: the screenshot taken after it for the recording only (--record-screenshots), base64. */
  after?: Array<string | undefined>
}

export interface StepDraft {
  episode: string
  /** When the request arrived (ms since the epoch). */
  startedAt: number
  runs: DraftRun[]
  error: Static<typeof ErrorBody> | null
  /** The answer's body as sent, when it went out as one string. */
  response?: string
  /** A shell or editor call ran: the answer (their output) is not kept (tool-output.ts). */
  withholdResponse?: boolean
}

export const currentStep = new AsyncLocalStorage<StepDraft>()
