/**
 * @computer-gateway/agent/client — a typed client over the routes of openapi.yaml: `get`/`post` take
 * a path of the document and are typed by it (query, body, answer), plus named shortcuts for
 * the routes an agent loop uses most. Every 4xx/5xx throws a GatewayError.
 */
import { Connection, type ConnectionOptions, type Query } from './http.ts'
import type { components } from './openapi.ts'
import type { BodyOf, GetOp, GetPath, OkOf, PathParamsOf, PostOp, PostPath, QueryOf } from './typed-routes.ts'

export { GatewayError } from './errors.ts'
export type { ConnectionOptions } from './http.ts'
export type { components, paths, operations } from './openapi.ts'

type Schemas = components['schemas']
export type UnifiedAction = Schemas['UnifiedAction']
export type ActionResponse = Schemas['ActionResponse']
export type BatchResponse = Schemas['BatchResponse']
export type ErrorBody = Schemas['ErrorBody']

interface CallOptions<Q, A> {
  query?: Q
  /** Values of the path's {parameters}, e.g. { instance_id: 'a' }. */
  params?: A
  signal?: AbortSignal
}

/** The size the model sees: coordinates are scaled from it and screenshots to it by the server. */
export interface Display { width: number, height: number }

export class GatewayClient {
  readonly connection: Connection

  constructor (options: ConnectionOptions) {
    this.connection = new Connection(options)
  }

  /** GET a path of openapi.yaml; resolves with its 200 answer. */
  async get<P extends GetPath> (path: P, options: CallOptions<QueryOf<GetOp<P>>, PathParamsOf<GetOp<P>>> = {}): Promise<OkOf<GetOp<P>>> {
    const answer = await this.connection.request({ method: 'GET', path: fill(path, options.params), query: options.query as Query | undefined, signal: options.signal })
    return answer.body as OkOf<GetOp<P>>
  }

  /** POST to a path of openapi.yaml; resolves with its 200 answer. */
  async post<P extends PostPath> (path: P, body: BodyOf<PostOp<P>>, options: CallOptions<QueryOf<PostOp<P>>, PathParamsOf<PostOp<P>>> = {}): Promise<OkOf<PostOp<P>>> {
    const answer = await this.connection.request({ method: 'POST', path: fill(path, options.params), query: options.query as Query | undefined, body, signal: options.signal })
    return answer.body as OkOf<PostOp<P>>
  }

  health () { return this.get('/health') }

  /** One unified action; `display` scales its coordinates and screenshot. */
  computer (action: UnifiedAction, query: QueryOf<PostOp<'/computer'>> = {}) {
    return this.post('/computer', action, { query })
  }

  batch (actions: UnifiedAction[], query: QueryOf<PostOp<'/computer/batch'>> = {}) {
    return this.post('/computer/batch', { actions }, { query })
  }

  /** A screenshot as base64 (PNG unless `format` says otherwise), at `display` when given. */
  async screenshot (display?: Display, query: QueryOf<PostOp<'/computer'>> = {}): Promise<string> {
    const answer = await this.computer({ action: 'take_screenshot' }, { ...displayQuery(display), ...query })
    if (!answer.base64_image) throw new TypeError('the gateway answered a screenshot without an image')
    return answer.base64_image
  }
}

/** display_width_px/display_height_px for a display, or nothing (the real screen). */
export function displayQuery (display: Display | undefined): { display_width_px?: number, display_height_px?: number } {
  return display ? { display_width_px: display.width, display_height_px: display.height } : {}
}

function fill (path: string, params: unknown): string {
  if (!params) return path
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = (params as Record<string, unknown>)[name]
    if (value === undefined) throw new TypeError(`computer-gateway: ${path} needs the path parameter ${name}`)
    return encodeURIComponent(String(value))
  })
}
