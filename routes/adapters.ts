/**
 * GET /adapters; POST /computer/{adapter} (translate, run as one batch, answer natively);
 * POST /computer/{adapter}/translate (the same translation, nothing run).
 *
 * A payload is validated against the schema of the version its query selects, so each route
 * documents the union of its versions but checks exactly one. Errors before anything runs
 * (payload, version, parse) are the usual error body; once the batch is handed to the
 * executor, even a refusal (a point off screen, an unknown key) is answered in the model's
 * own result form, with the error's status, so an agent loop can forward it to the model.
 * The translate route plans what it translated exactly as the execute route would (limits,
 * bounds, keys, allow-list), sending no input, so it refuses what execution would refuse,
 * with the same status and message.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyReply, FastifySchema } from 'fastify'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import type { Adapter, AdapterContext, AdapterOutcome, Translation } from '../src/adapter.ts'
import type { ActionResponse } from '../src/actions/response.ts'
import type { RunOptions } from '../src/executor/executor.ts'
import { errorBody, RETRY_AFTER_SECONDS } from '../src/error-handler.ts'
import { InvalidNativePayload, UnknownAdapter } from '../src/errors.ts'
import { clientSpace } from '../src/scaling.ts'
import { ActionQuery } from '../src/schemas/action-query.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'
import { AdapterList, TranslateResponse } from '../src/schemas/adapter-responses.ts'
import { formatValidationErrors, validationFailedIndex } from '../src/validation.ts'
import { strictTextBodies } from '../src/text-bodies.ts'
import { runOptions } from './run-options.ts'

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null }

export interface AdapterRoutesOptions {
  adapters: Adapter[]
  /** The app's validator compiler (strict for bodies, coercing for the rest). */
  compile: (request: { schema: TSchema, httpPart?: string }) => Validate
}

const capitalised = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)

export function adapterQuerySchema (adapter: Adapter) {
  return Type.Object({ ...ActionQuery.properties, ...adapter.query?.properties }, {
    additionalProperties: false,
    $id: `${capitalised(adapter.name)}Query`,
    title: `${capitalised(adapter.name)}Query`,
  })
}

export const adapterRoutes: FastifyPluginAsyncTypebox<AdapterRoutesOptions> = async (fastify, { adapters, compile }) => {
  const { executor } = fastify
  strictTextBodies(fastify)
  const { limits } = fastify.actionSchemas
  const known = adapters.map((a) => a.name).join(', ') || 'none'

  fastify.get('/adapters', {
    schema: {
      summary: 'The adapters: name, description, versions and coordinate space of each',
      tags: ['adapters'],
      response: { 200: Type.Ref(AdapterList) },
    },
  }, async () => ({
    adapters: adapters.map((adapter) => ({
      name: adapter.name,
      description: adapter.description,
      versions: adapter.versions.map(({ name, description }) => ({ name, description })),
      default_version: adapter.defaultVersion,
      coordinates: adapter.coordinates,
    })),
  }))

  for (const adapter of adapters) {
    const validators = new Map(adapter.versions.map((v) => [v.name, compile({ schema: Type.Ref(v.schema), httpPart: 'body' })]))
    const kinds = actionValues(adapter)
    const refs = adapter.versions.map((v) => Type.Ref(v.schema))
    const body = refs.length === 1 ? refs[0]! : Type.Union(refs)
    const querystring = Type.Ref(adapterQuerySchema(adapter))

    const prepare = async (body: unknown, query: Record<string, unknown>) => {
      const payload = adapter.prepare ? adapter.prepare(body) : body
      const version = adapter.version(query)
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
      const translation = adapter.translate(payload, context)
      return { context, translation, space: adapter.space?.(context) }
    }

    // Bodies are checked in the handler against the requested version only.
    const consumes = adapter.consumes && { consumes: adapter.consumes }
    const schema = (extra: Partial<FastifySchema>) => ({ tags: ['adapters'], querystring, body, ...consumes, ...extra })
    const validatorCompiler = ({ schema: s, httpPart }: { schema: unknown, httpPart?: string }) =>
      httpPart === 'body' ? () => true : compile({ schema: s as TSchema, httpPart })

    fastify.post(`/computer/${adapter.name}`, {
      validatorCompiler,
      schema: schema({
        summary: `Run a ${adapter.name} tool call; answers with ${adapter.name}'s own tool result`,
        description: adapter.description,
        response: {
          200: Type.Ref(adapter.resultSchema),
          '4xx': Type.Union([Type.Ref(adapter.resultSchema), Type.Ref(ErrorBody)]),
          '5xx': Type.Union([Type.Ref(adapter.resultSchema), Type.Ref(ErrorBody)]),
        },
      }),
    }, async (request, reply) => {
      const query = request.query as Record<string, unknown>
      const { context, translation, space } = await prepare(request.body, query)
      const outcome = await execute(translation, space, context, query, reply)
      if (outcome.error) {
        reply.code(outcome.error.statusCode)
        if (outcome.error.statusCode === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      }
      return adapter.result(outcome, context, translation)
    })

    fastify.post(`/computer/${adapter.name}/translate`, {
      validatorCompiler,
      // The schema documents the answer; serialising through it would add every default, and
      // the actions should read exactly as translated.
      serializerCompiler: () => (data) => JSON.stringify(data),
      schema: schema({
        summary: `Translate a ${adapter.name} tool call into unified actions, running nothing`,
        description: 'The same translation POST /computer/' + adapter.name + ' runs. Coordinates are in the space named by `display_width_px`/`display_height_px`: POST the actions to /computer/batch with those as the query to run them.',
        response: { 200: Type.Ref(TranslateResponse), '4xx': Type.Ref(ErrorBody), '5xx': Type.Ref(ErrorBody) },
      }),
    }, async (request, reply) => {
      const query = request.query as Record<string, unknown>
      const { context, translation, space } = await prepare(request.body, query)
      await executor.plan(translation.actions, optionsFor(translation, space, context, query, reply))
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
    })
  }

  const unknown = async (request: { params: { adapter: string } }) => {
    throw new UnknownAdapter(`no adapter '${request.params.adapter}'; known adapters: ${known} (GET /adapters describes them)`)
  }
  const params = Type.Object({ adapter: Type.String() })
  fastify.post('/computer/:adapter', { schema: { hide: true, params } }, unknown)
  fastify.post('/computer/:adapter/translate', { schema: { hide: true, params } }, unknown)

  /** How a translation runs, or is planned by the translate route: the same options for both. */
  function optionsFor (
    translation: Translation,
    space: ReturnType<NonNullable<Adapter['space']>>,
    context: AdapterContext,
    query: Record<string, unknown>,
    reply: FastifyReply,
  ): RunOptions {
    return {
      // A refusal names the action at fault when the translation is a batch; the index is that
      // of the translate route's `actions`.
      ...runOptions(query, reply, translation.actions.length > 1),
      screenshot: translation.screenshot,
      ...(space && { client: space.size, clientName: space.name, screenshotSize: context.display }),
    }
  }

  async function execute (
    translation: Translation,
    space: ReturnType<NonNullable<Adapter['space']>>,
    context: AdapterContext,
    query: Record<string, unknown>,
    reply: FastifyReply,
  ): Promise<AdapterOutcome> {
    const options = optionsFor(translation, space, context, query, reply)
    try {
      const { results, failedIndex, error } = await executor.run(translation.actions, options)
      const outcome = outcomeOf(results, failedIndex, error ?? null)
      if (outcome.error && failedIndex !== null && !outcome.screenshot && wantsScreenshot(translation)) {
        outcome.screenshot = await screenAfterFailure(options, outcome.error.statusCode)
      }
      return outcome
    } catch (caught) {
      const error = caught as Error & { statusCode?: number }
      if (typeof error.statusCode !== 'number') throw caught
      return outcomeOf([], null, error)
    }
  }

  /**
   * A batch that failed part-way changed the screen: the model needs to see it, and some
   * native results cannot go back without an image (OpenAI's computer_call_output). Not when
   * the desktop itself is gone or the client left.
   */
  async function screenAfterFailure (options: RunOptions, status: number): Promise<string | null> {
    if (status === 499 || status === 503) return null
    try {
      const { results } = await executor.run([{ action: 'take_screenshot' }], { ...options, screenshot: false })
      return results[0]?.base64_image ?? null
    } catch {
      return null
    }
  }
}

const wantsScreenshot = (translation: Translation) =>
  translation.screenshot || translation.actions.some((action) => action.screenshot === true || action.action === 'take_screenshot')

function outcomeOf (results: ActionResponse[], failedIndex: number | null, error: Error | null): AdapterOutcome {
  const last = results.at(-1)
  return {
    results,
    failedIndex,
    error: error ? errorBody(error) : null,
    screenshot: [...results].reverse().find((r) => r.base64_image)?.base64_image ?? null,
    cursor: last?.cursor_position ?? null,
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
