/**
 * The recording hooks: a request to an action route (the unified routes, an adapter's, /mcp)
 * that carries X-Recording-Id runs inside a step of that episode (step.ts), and the step is
 * stored when the request ends, with the route, the payload as received, the runs the
 * executor saw, the status or error and the timings. HTTP and MCP over HTTP both pass here;
 * registered after auth, so a refused request is never recorded.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { errorBody } from '../http/error-handler.ts'
import { InvalidRecordingId } from '../errors/errors.ts'
import type { Recorder } from './recorder.ts'
import { RECORDING_ID_PATTERN, RESERVED_IDS } from './schema.ts'
import { currentStep, type StepDraft } from './step.ts'

export const RECORDING_HEADER = 'x-recording-id'
/** The routes whose requests are steps: what acts on or reads the desktop for a model. */
const RECORDED = [/^\/computer(\/|$)/, /^\/v1\/instance\//, /^\/mcp$/, /^\/accessibility$/]
const ID = new RegExp(RECORDING_ID_PATTERN)
/** Longer answers are not kept (a step still has its runs and images). */
const MAX_RESPONSE_CHARS = 32 << 20

declare module 'fastify' {
  interface FastifyRequest {
    recordingStep?: StepDraft
  }
}

/** The episode X-Recording-Id names; 400 when it is not a name an episode may have. */
export function recordingId (header: string | string[]): string {
  const id = Array.isArray(header) ? header.join(',') : header
  if (!ID.test(id) || RESERVED_IDS.has(id)) {
    throw new InvalidRecordingId(`X-Recording-Id must be 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit${RESERVED_IDS.has(id) ? `, and not '${id}'` : ''} (got '${id.slice(0, 80)}')`)
  }
  return id
}

export function recordingHooks (app: FastifyInstance, recorder: Recorder): void {
  app.decorateRequest('recordingStep', undefined)

  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const header = request.headers[RECORDING_HEADER]
    const route = request.routeOptions.url
    if (header === undefined || !route || !RECORDED.some((pattern) => pattern.test(route))) { done(); return }
    let id: string
    try {
      id = recordingId(header)
    } catch (error) {
      done(error as Error)
      return
    }
    const step: StepDraft = { episode: id, startedAt: Date.now(), runs: [], error: null }
    // Per client address: behind a proxy, all of its clients are one (the proxy's own limits apply there).
    recorder.begin(id, request.ip).then(() => {
      request.recordingStep = step
      // The rest of the request (its handler, the pipeline, MCP's tool calls) runs inside the step.
      currentStep.run(step, () => done())
    }, (error: Error) => done(error))
  })

  app.addHook('onError', async (request, _reply, error) => {
    if (request.recordingStep) request.recordingStep.error = errorBody(error)
  })

  app.addHook('onSend', async (request, _reply, payload) => {
    // Only a body sent whole: a stream (a file) is not an answer to keep, and MCP's answers bypass onSend.
    // A JSON answer with screenshots comes as bytes (src/http/image-bodies.ts).
    const step = request.recordingStep
    if (step && typeof payload === 'string' && payload.length <= MAX_RESPONSE_CHARS) step.response = payload
    if (step && Buffer.isBuffer(payload) && payload.length <= MAX_RESPONSE_CHARS) step.response = payload.toString('utf8')
    return payload
  })

  app.addHook('onResponse', async (request, reply) => {
    const step = request.recordingStep
    if (!step) return
    const route = request.routeOptions.url!
    // MCP's handshake and listings are not steps; its tool calls are.
    if (route === '/mcp' && step.runs.length === 0 && !isToolCall(request.body)) return
    recorder.commit(step, {
      method: request.method,
      route: request.url.split('?')[0]!,
      url: request.url,
      payload: request.body,
      status: reply.statusCode,
      ms: reply.elapsedTime,
    })
  })
}

function isToolCall (body: unknown): boolean {
  const calls = Array.isArray(body) ? body : [body]
  return calls.some((call) => typeof call === 'object' && call !== null && (call as { method?: unknown }).method === 'tools/call')
}
