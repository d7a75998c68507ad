/**
 * The adapter pipeline, once for every transport (HTTP now, MCP next): prepare, validate
 * against the version the query selects, translate, plan or run as one batch, take a
 * screenshot after a failure, render the native result. It knows no HTTP: a transport hands
 * it the payload, the validated query and an AbortSignal, and sends what it answers.
 *
 * Errors before the executor has the batch (payload, version, parse, planning on the
 * translate path) are thrown as the usual 4xx errors; once the batch is handed to the
 * executor, even a refusal is answered in the model's own result form with the error's
 * status, so an agent loop can forward it to the model.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import type { Adapter, AdapterContext, AdapterOutcome, CoordinateSpace, Translation } from './adapter.ts'
import type { Limits } from '../actions/index.ts'
import type { ActionResponse } from '../actions/response.ts'
import type { Executor, RunOptions } from '../executor/executor.ts'
import { errorBody } from '../http/error-handler.ts'
import { InvalidNativePayload } from '../errors/errors.ts'
import { clientSpace } from '../screen/scaling.ts'
import { ActionQuery } from '../schemas/action-query.ts'
import type { TranslateResponse } from '../schemas/adapter-responses.ts'
import { formatValidationErrors, validationFailedIndex } from '../schemas/validation.ts'
import type { Static } from '@sinclair/typebox'
import { mediaTypeOf, screenshotOptions } from '../http/screenshot-query.ts'
import type { ImageMediaType } from '../screen/screenshot.ts'
import type { DeferredImages } from '../screen/deferred-images.ts'

/** A compiled validator, as the app's validator compiler returns it. */
export type Validate = ((data: unknown) => boolean) & { errors?: Parameters<typeof formatValidationErrors>[0] | null }

export interface PipelineOptions {
  executor: Executor
  limits: Limits
  /** The app's validator compiler for bodies (strict). */
  compile: (schema: TSchema) => Validate
}

/** One call through the pipeline, from any transport. */
export interface PipelineCall {
  /** The native payload as received (a parsed JSON value, or the model's raw text). */
  payload: unknown
  /** The query, already validated against `adapterQuerySchema(adapter)`. */
  query: Record<string, unknown>
  /** Aborted when the caller has gone: nothing more runs, held input is released. */
  signal?: AbortSignal
  /** Where the screenshots go as bytes, the answer carrying tokens (RunOptions.images). */
  images?: DeferredImages
}

/** What the execute path answers: the native result, sent with `status`. */
export interface PipelineResult {
  status: number
  body: unknown
  /** Why the batch stopped, for the transport's log (the body already says it to the model). */
  error?: Error
}

export interface AdapterPipeline {
  adapter: Adapter
  /** Runs the call and renders the native result (success and failure alike). */
  execute: (call: PipelineCall) => Promise<PipelineResult>
  /** Translates and plans the call as `execute` would, running nothing. */
  translate: (call: PipelineCall) => Promise<Static<typeof TranslateResponse>>
}

const capitalised = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)

/** The query an adapter's routes accept: the common action query plus the adapter's own. */
export function adapterQuerySchema (adapter: Adapter) {
  return Type.Object({ ...ActionQuery.properties, ...adapter.query?.properties }, {
    additionalProperties: false,
    $id: `${capitalised(adapter.name)}Query`,
    title: `${capitalised(adapter.name)}Query`,
  })
}

/** The version a query selects: the adapter's own rule, else the first it lists. */
export function versionOf (adapter: Adapter, query: Record<string, unknown>): string {
  return adapter.version?.(query) ?? adapter.versions[0]!.name
}

export function adapterPipeline (adapter: Adapter, { executor, limits, compile }: PipelineOptions): AdapterPipeline {
  const validators = new Map(adapter.versions.map((v) => [v.name, compile(Type.Ref(v.schema))]))
  const kinds = actionValues(adapter)

  const prepare = async ({ payload: raw, query }: PipelineCall) => {
    const payload = adapter.prepare ? adapter.prepare(raw) : raw
    const version = versionOf(adapter, query)
    const validate = validators.get(version)!
    if (!validate(payload)) {
      const where = adapter.versions.length > 1 ? `${adapter.name} ${version}` : adapter.name
      const errors = validate.errors ?? []
      const message = formatValidationErrors(errors, 'payload', kinds)
      // In a payload of several calls, the one at fault, by its index in the payload.
      const index = validationFailedIndex(errors, true)
      if (index === undefined) throw new InvalidNativePayload(`${where}: ${message}`)
      const named = message.includes(`[${index}]`) ? message : `[${index}]: ${message}`
      throw Object.assign(new InvalidNativePayload(`${where}: ${named}`), { failedIndex: index })
    }
    const screen = await executor.screenSize()
    const context: AdapterContext = { version, screen, display: clientSpace(query, limits) ?? screen, query }
    const translation: Translation = adapter.translate(payload, context)
    return { context, translation, space: adapter.space?.(context) }
  }

  /** How a translation runs, or is planned by the translate path: the same options for both. */
  const optionsFor = (call: PipelineCall, translation: Translation, context: AdapterContext, space: CoordinateSpace | undefined): RunOptions => {
    const client = clientSpace(call.query, limits)
    return {
      ...(client && { client }),
      ...(call.signal && { signal: call.signal }),
      ...(call.images && { images: call.images }),
      limits,
      // A refusal names the action at fault when the translation is a batch; the index is that
      // of the translate path's `actions`.
      indexed: translation.actions.length > 1,
      screenshot: translation.screenshot,
      ...(space && { client: space.size, clientName: space.name, screenshotSize: space.screenshot ?? context.display }),
      // Settled unless asked otherwise: the models behind adapters act on what the screenshot shows.
      ...screenshotOptions(call.query, true),
    }
  }

  /**
   * A batch that failed part-way changed the screen: the model needs to see it, and some
   * native results cannot go back without an image (OpenAI's computer_call_output). Not when
   * the desktop itself is gone or the client left.
   */
  const screenAfterFailure = async (options: RunOptions, status: number): Promise<string | null> => {
    if (status === 499 || status === 503) return null
    try {
      const { results } = await executor.run([{ action: 'take_screenshot' }], { ...options, screenshot: false })
      return results[0]?.base64_image ?? null
    } catch {
      return null
    }
  }

  const run = async (translation: Translation, options: RunOptions): Promise<{ outcome: AdapterOutcome, error?: Error }> => {
    try {
      const { results, failedIndex, error } = await executor.run(translation.actions, options)
      const outcome = outcomeOf(results, failedIndex, error ?? null, mediaTypeOf(options.image))
      if (outcome.error && failedIndex !== null && !outcome.screenshot && wantsScreenshot(translation)) {
        outcome.screenshot = await screenAfterFailure(options, outcome.error.statusCode)
      }
      return { outcome, ...(error && { error }) }
    } catch (caught) {
      const error = caught as Error & { statusCode?: number }
      if (typeof error.statusCode !== 'number') throw caught
      return { outcome: outcomeOf([], null, error, mediaTypeOf(options.image)), error }
    }
  }

  return {
    adapter,
    async execute (call) {
      const { context, translation, space } = await prepare(call)
      const { outcome, error } = await run(translation, optionsFor(call, translation, context, space))
      const body = adapter.result(outcome, context, translation)
      return { status: outcome.error?.statusCode ?? 200, body, ...(error && { error }) }
    },
    async translate (call) {
      const { context, translation, space } = await prepare(call)
      await executor.plan(translation.actions, optionsFor(call, translation, context, space))
      const size = space?.size ?? context.display
      return {
        adapter: adapter.name,
        version: context.version,
        actions: translation.actions,
        screenshot: translation.screenshot,
        display_width_px: size.width,
        display_height_px: size.height,
        meta: translation.meta ?? null,
      }
    },
  }
}

const wantsScreenshot = (translation: Translation) =>
  translation.screenshot || translation.actions.some((action) => action.screenshot === true || action.action === 'take_screenshot')

function outcomeOf (results: ActionResponse[], failedIndex: number | null, error: Error | null, mediaType: ImageMediaType): AdapterOutcome {
  const last = results.at(-1)
  return {
    results,
    failedIndex,
    error: error ? errorBody(error) : null,
    screenshot: [...results].reverse().find((r) => r.base64_image)?.base64_image ?? null,
    cursor: last?.cursor_position ?? null,
    mediaType,
  }
}

/** The `action` values the adapter's schemas accept, for messages about a missing one. */
function actionValues (adapter: Adapter): string[] {
  const values = new Set<string>()
  const visit = (schema: unknown): void => {
    if (!schema || typeof schema !== 'object') return
    const s = schema as { properties?: { action?: { const?: string, enum?: string[], anyOf?: Array<{ const?: string }> } }, anyOf?: unknown[], oneOf?: unknown[] }
    const action = s.properties?.action
    if (action?.const) values.add(action.const)
    for (const v of action?.enum ?? []) values.add(v)
    for (const v of action?.anyOf ?? []) if (v.const) values.add(v.const)
    for (const member of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) visit(member)
  }
  for (const version of adapter.versions) visit(version.schema)
  return [...values]
}
