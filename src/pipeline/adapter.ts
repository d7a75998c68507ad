/**
 * The adapter contract (SPEC §4). An adapter turns one model's native tool call into unified
 * actions and renders the outcome as the tool result that model expects. It is pure: it never
 * touches the driver, the clock or the network, so it is tested table-driven on recorded
 * payloads. The pipeline (src/pipeline/adapter-pipeline.ts) validates, translates, executes and renders.
 */
import type { TObject, TSchema } from '@sinclair/typebox'
import type { UnifiedAction } from '../actions/index.ts'
import type { ActionResponse } from '../actions/response.ts'
import type { Size } from '../driver/driver.ts'
import type { XY } from '../screen/scaling.ts'
import type { ErrorBody } from '../schemas/error-body.ts'
import type { ImageMediaType } from '../screen/screenshot.ts'

/** One version of a native format: its own input schema (with a `$id`, so OpenAPI names it). */
export interface AdapterVersion {
  name: string
  description: string
  schema: TSchema
}

/** The space an adapter's coordinates live in, when it is not the client's declared display. */
export interface CoordinateSpace {
  size: Size
  /** Words for error messages, e.g. "Gemini's 1000x1000 normalised grid". */
  name: string
  /**
   * The size screenshots come back at, when the model is shown an image the adapter sized
   * (default: the client's display, which the model's own processor then resizes).
   */
  screenshot?: Size
}

export interface AdapterContext<Query = Record<string, unknown>> {
  /** The native format version this request speaks (one of the adapter's `versions`). */
  version: string
  /** The real screen. */
  screen: Size
  /** The display as the client's model sees it: display_width_px/display_height_px, or the real screen. */
  display: Size
  /** The validated query string: the common action query plus the adapter's own parameters. */
  query: Query
}

export interface Translation<Meta = unknown> {
  /** Run in order as one batch; coordinates in the adapter's space (see `Adapter.space`). */
  actions: UnifiedAction[]
  /** Attach a screenshot taken after the last action. */
  screenshot: boolean
  /** Whatever `result` needs that is not an action: call ids, the model's thought, a final answer. */
  meta: Meta
}

/**
 * The actions one native call produced: `actions.slice(first, first + count)`. Adapters whose
 * payload holds several calls keep one per call (in their meta), so every result can say what
 * became of each call by the one rule of `callStatus`.
 */
export interface CallSpan {
  first: number
  count: number
}

/**
 * What became of a native call: `ran`; `failed` (its action failed); `not_run` (an earlier
 * call's failed); `refused` (the batch was refused while planning, so nothing ran).
 */
export type CallStatus = 'ran' | 'failed' | 'not_run' | 'refused'

export function callStatus ({ first, count }: CallSpan, { error, failedIndex }: AdapterOutcome): CallStatus {
  if (!error) return 'ran'
  if (failedIndex === null) return 'refused'
  if (count > 0 && failedIndex >= first && failedIndex < first + count) return 'failed'
  return first + count <= failedIndex ? 'ran' : 'not_run'
}

export interface AdapterOutcome {
  /** One response per action run (coordinates in the adapter's space). */
  results: ActionResponse[]
  /** The action that failed, null when all ran or when the batch was refused before any ran. */
  failedIndex: number | null
  /** Why the batch stopped, as the error body the unified routes would send. */
  error: ErrorBody | null
  /**
   * The last screenshot taken (base64, PNG unless the query asked for another format), if any.
   * Place it in the result as it is, alone or after a `data:` prefix, and read nothing of it:
   * over HTTP it is a stand-in the body gets the base64 for (src/screen/deferred-images.ts).
   */
  screenshot: string | null
  /** The media type of every screenshot of the outcome (the query's `format`; default image/png). */
  mediaType: ImageMediaType
  /** The pointer after the last action, in the adapter's space; null when nothing ran. */
  cursor: XY | null
}

// Adapters differ in input and meta types; the registry holds them side by side.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Adapter<Input = any, Meta = any, Query extends Record<string, unknown> = any> {
  /** The path segment: POST /computer/{name}. */
  name: string
  description: string
  /** The coordinates a payload carries, in words for GET /adapters (e.g. "0–999 grid"). */
  coordinates: string
  /** The first is the default, used when the query names none (newest first is customary). */
  versions: AdapterVersion[]
  /**
   * The media types a payload may come in, for OpenAPI (default JSON alone). Models that write
   * text (UI-TARS, Qwen) also take it raw as text/plain, which Fastify hands over as a string.
   */
  consumes?: string[]
  /** Named schemas (with a `$id`) that the versions' schemas `$ref`, so each appears once in OpenAPI. */
  schemas?: TSchema[]
  /** The adapter's own query parameters (beyond screenshot and display_width_px/display_height_px). */
  query?: TObject
  /**
   * Tidies a payload before it is validated, for what clients write that means nothing (e.g.
   * null for an absent optional field, as Python tool wrappers do). Pure; no translation here.
   */
  prepare?: (payload: unknown) => unknown
  /** The version a request's query names, if the adapter has a parameter for it; default the first listed. */
  version?: (query: Query) => string | undefined
  /**
   * The space the translated coordinates live in. Undefined: the client's display
   * (display_width_px/display_height_px, else the real screen), which screenshots are scaled to.
   */
  space?: (context: AdapterContext<Query>) => CoordinateSpace | undefined
  /** Native payload (already valid against the version's schema) → unified actions. Throws 4xx errors from src/errors/errors.ts. */
  translate: (input: Input, context: AdapterContext<Query>) => Translation<Meta>
  /** Outcome → the native tool result; also on failure (the route sends it with the error's status). */
  result: (outcome: AdapterOutcome, context: AdapterContext<Query>, translation: Translation<Meta>) => unknown
  /** Schema of what `result` returns (with a `$id`); the route serialises through it, so it must name every field. */
  resultSchema: TSchema
}
