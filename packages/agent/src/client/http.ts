/**
 * One HTTP exchange with the gateway: the token, the base URL, a deadline per attempt, and
 * retries of a 503 (the desktop is starting or restarting; nothing ran) after the Retry-After
 * it names. Any other 4xx/5xx, and no answer at all, throw a GatewayError.
 */
import { GatewayError, errorFromAnswer } from './errors.ts'
import { retryAfterMs } from './retry-after.ts'

export interface ConnectionOptions {
  /** Where the gateway listens, e.g. http://127.0.0.1:8000 (a path prefix is kept). */
  baseUrl: string | URL
  /** The server's token (--token / API_TOKEN), sent as a Bearer token; omit for a server without one. */
  token?: string
  /** The longest one attempt may take, in ms (default 60000). */
  timeoutMs?: number
  /** How many times a 503 is retried (default 3). */
  retries?: number
  /** The wait when a 503 names no Retry-After, and the cap on any wait, in ms (default 1000 and 30000). */
  retryDelayMs?: number
  maxRetryDelayMs?: number
  /** A fetch of your own (a proxy, a test double); default the global fetch. */
  fetch?: typeof fetch
}

export type Query = Record<string, string | number | boolean | undefined | null>

export interface RequestOptions {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  query?: Query | undefined
  /** JSON-encoded, or sent as text/plain when a string. */
  body?: unknown
  signal?: AbortSignal | undefined
}

export interface Answer<T = unknown> {
  status: number
  body: T
  headers: Headers
}

export class Connection {
  readonly #base: string
  readonly #token: string | undefined
  readonly #timeoutMs: number
  readonly #retries: number
  readonly #retryDelayMs: number
  readonly #maxRetryDelayMs: number
  readonly #fetch: typeof fetch

  constructor (options: ConnectionOptions) {
    if (!options || !options.baseUrl) throw new TypeError('computer-gateway: baseUrl is required (e.g. http://127.0.0.1:8000)')
    const base = new URL(String(options.baseUrl))
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`computer-gateway: baseUrl must be http(s), got ${base.protocol}`)
    this.#base = base.href.replace(/\/+$/, '')
    this.#token = options.token
    this.#timeoutMs = options.timeoutMs ?? 60_000
    this.#retries = options.retries ?? 3
    this.#retryDelayMs = options.retryDelayMs ?? 1000
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000
    this.#fetch = options.fetch ?? globalThis.fetch
  }

  /** The answer of a 2xx; throws a GatewayError for anything else. */
  async request<T = unknown> (options: RequestOptions): Promise<Answer<T>> {
    const url = this.url(options.path, options.query)
    const headers: Record<string, string> = { accept: 'application/json' }
    if (this.#token) headers.authorization = `Bearer ${this.#token}`
    let body: string | undefined
    if (options.body !== undefined) {
      const text = typeof options.body === 'string'
      headers['content-type'] = text ? 'text/plain; charset=utf-8' : 'application/json'
      body = text ? options.body as string : JSON.stringify(options.body)
    }
    for (let attempt = 0; ; attempt++) {
      const response = await this.#attempt(url, { method: options.method, headers, ...(body !== undefined && { body }) }, options.signal)
      const parsed = await parse(response)
      if (response.ok) return { status: response.status, body: parsed as T, headers: response.headers }
      if (response.status === 503 && attempt < this.#retries) {
        const wait = retryAfterMs(response.headers.get('retry-after')) ?? this.#retryDelayMs
        await sleep(Math.min(wait, this.#maxRetryDelayMs), options.signal)
        continue
      }
      throw errorFromAnswer(response.status, parsed)
    }
  }

  url (path: string, query: Query = {}): string {
    const url = new URL(this.#base + path)
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value))
    }
    return url.href
  }

  async #attempt (url: string, init: RequestInit, signal: AbortSignal | undefined): Promise<Response> {
    const deadline = AbortSignal.timeout(this.#timeoutMs)
    try {
      return await this.#fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, deadline]) : deadline })
    } catch (error) {
      if (deadline.aborted) throw new GatewayError(0, 'ERR_TIMEOUT', `no answer from ${url} within ${this.#timeoutMs} ms (timeoutMs)`, undefined, { cause: error })
      if (signal?.aborted) throw error
      throw new GatewayError(0, 'ERR_NETWORK', `could not reach ${url}: ${(error as Error).cause ? String(((error as Error).cause as Error).message ?? (error as Error).cause) : (error as Error).message}`, undefined, { cause: error })
    }
  }
}

async function parse (response: Response): Promise<unknown> {
  const text = await response.text()
  if ((response.headers.get('content-type') ?? '').includes('json') && text) {
    try { return JSON.parse(text) } catch { return text }
  }
  return text
}

function sleep (ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve() }, ms)
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason) }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
