/**
 * GET /adapters; POST /computer/{adapter} (translate, run as one batch, answer natively);
 * POST /computer/{adapter}/translate (the same translation, nothing run). The pipeline itself
 * is src/pipeline/adapter-pipeline.ts, shared with every other transport; these routes only document
 * it, hand it the request and send what it answers.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifySchema } from 'fastify'
import { adapterQuerySchema, type AdapterPipeline } from '../src/pipeline/adapter-pipeline.ts'
import { errorBody, replyFailure } from '../src/http/error-handler.ts'
import { UnknownAdapter } from '../src/errors/errors.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'
import { AdapterList, TranslateResponse } from '../src/schemas/adapter-responses.ts'
import { strictTextBodies } from '../src/http/text-bodies.ts'
import { clientGone } from './run-options.ts'
import { deferImages } from '../src/http/image-bodies.ts'

export interface AdapterRoutesOptions {
  pipelines: AdapterPipeline[]
  /** The app's validator compiler (coercing for query strings). */
  compile: (request: { schema: TSchema, httpPart?: string }) => (data: unknown) => boolean
}

export const adapterRoutes: FastifyPluginAsyncTypebox<AdapterRoutesOptions> = async (fastify, { pipelines, compile }) => {
  strictTextBodies(fastify)
  const known = pipelines.map((p) => p.adapter.name).join(', ') || 'none'

  fastify.get('/adapters', {
    schema: {
      summary: 'The adapters: name, description, versions and coordinate space of each',
      tags: ['adapters'],
      response: { 200: Type.Ref(AdapterList) },
    },
  }, async () => ({
    adapters: pipelines.map(({ adapter }) => ({
      name: adapter.name,
      description: adapter.description,
      versions: adapter.versions.map(({ name, description }) => ({ name, description })),
      default_version: adapter.versions[0]!.name,
      coordinates: adapter.coordinates,
    })),
  }))

  for (const pipeline of pipelines) {
    const { adapter } = pipeline
    const refs = adapter.versions.map((v) => Type.Ref(v.schema))
    const body = refs.length === 1 ? refs[0]! : Type.Union(refs)
    const querystring = Type.Ref(adapterQuerySchema(adapter))
    // Bodies are checked by the pipeline against the requested version only.
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
      const { body, error } = await pipeline.execute({ payload: request.body, query, signal: clientGone(reply), images: deferImages(reply) })
      if (error) replyFailure(reply, errorBody(error), error)
      return body
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
      return pipeline.translate({ payload: request.body, query, signal: clientGone(reply) })
    })
  }

  const unknown = async (request: { params: { adapter: string } }) => {
    throw new UnknownAdapter(`no adapter '${request.params.adapter}'; known adapters: ${known} (GET /adapters describes them)`)
  }
  const params = Type.Object({ adapter: Type.String() })
  fastify.post('/computer/:adapter', { schema: { hide: true, params } }, unknown)
  fastify.post('/computer/:adapter/translate', { schema: { hide: true, params } }, unknown)
}
