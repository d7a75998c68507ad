/**
 * @computer-gateway/agent/fleet — a typed client of the fleet's lifecycle API (fleet/openapi.yaml):
 * create, get, list, reset and delete desktops, each a `FleetDesktop` whose `.computer()` is the
 * typed client of ../client for that desktop's routes through the fleet (one URL, one key), and
 * `.direct()` the same client on the desktop's own URL and token, for a program that wants no hop.
 * Every 4xx/5xx throws a GatewayError (a 429 at the fleet's --max included); a 503 is retried
 * after its Retry-After, as the client's are.
 */
import { GatewayClient } from '../client/index.ts'
import { Connection, type ConnectionOptions } from '../client/http.ts'
import type { paths } from './openapi.ts'

export { GatewayError } from '../client/errors.ts'
export type { paths as fleetPaths } from './openapi.ts'

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never
/** A desktop as the fleet describes it: its id, status, screen, profile, TTL, labels, and its own URL and token. */
export type DesktopView = JsonOf<paths['/desktops/{id}']['get']['responses'][200]>
/** What a create may ask for: screen, desktop profile, autostart apps, TTL, labels. */
export type CreateDesktop = NonNullable<paths['/desktops']['post']['requestBody']>['content']['application/json']
export type FleetHealth = JsonOf<paths['/health']['get']['responses'][200]>

export interface WaitOptions {
  /** How long to wait, in ms (default 180000: a cold start of the full desktop). */
  timeoutMs?: number
  /** Between two looks, in ms (default 500). */
  intervalMs?: number
}

export class FleetClient {
  readonly connection: Connection
  readonly #options: ConnectionOptions

  /** `baseUrl`: the fleet (e.g. http://127.0.0.1:8100); `token`: the fleet's key (its API_TOKEN). */
  constructor (options: ConnectionOptions) {
    this.connection = new Connection(options)
    this.#options = options
  }

  health (): Promise<FleetHealth> {
    return this.#call<FleetHealth>('GET', '/health')
  }

  /** A new desktop (from the warm pool when it asks for the pool's spec). */
  async create (options: CreateDesktop = {}): Promise<FleetDesktop> {
    return this.#desktop(await this.#call<DesktopView>('POST', '/desktops', options))
  }

  async get (id: string): Promise<FleetDesktop> {
    return this.#desktop(await this.#call<DesktopView>('GET', `/desktops/${encodeURIComponent(id)}`))
  }

  /** The desktops handed out and not ended. */
  async list (): Promise<FleetDesktop[]> {
    const { desktops } = await this.#call<{ desktops: DesktopView[] }>('GET', '/desktops')
    return desktops.map((view) => this.#desktop(view))
  }

  /** A fresh desktop under the same id (nothing of the last one survives); its URL and token change. */
  async reset (id: string): Promise<FleetDesktop> {
    return this.#desktop(await this.#call<DesktopView>('POST', `/desktops/${encodeURIComponent(id)}/reset`))
  }

  /** Ends the desktop and removes its home. */
  async delete (id: string): Promise<void> {
    await this.#call('DELETE', `/desktops/${encodeURIComponent(id)}`)
  }

  /** The typed client for a desktop's routes through the fleet, with the fleet's key. */
  computer (id: string): GatewayClient {
    const base = String(this.#options.baseUrl).replace(/\/+$/, '')
    return new GatewayClient({ ...this.#options, baseUrl: `${base}/desktops/${encodeURIComponent(id)}` })
  }

  async #call<T> (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return (await this.connection.request<T>({ method, path, ...(body !== undefined && { body }) })).body
  }

  #desktop (view: DesktopView): FleetDesktop {
    return new FleetDesktop(this, view, this.#options)
  }
}

/** One desktop of a fleet: what the fleet last said of it, and its clients. */
export class FleetDesktop {
  readonly id: string
  readonly #fleet: FleetClient
  readonly #options: ConnectionOptions
  #view: DesktopView

  constructor (fleet: FleetClient, view: DesktopView, options: ConnectionOptions) {
    this.#fleet = fleet
    this.#view = view
    this.#options = options
    this.id = view.id
  }

  /** What the fleet said at the last create, get, refresh or reset. */
  get view (): DesktopView { return this.#view }
  get status (): DesktopView['status'] { return this.#view.status }

  /** The typed client of this desktop's API through the fleet (the fleet's URL and key). */
  computer (): GatewayClient {
    return this.#fleet.computer(this.id)
  }

  /** The typed client on the desktop's own URL and token, no hop; both change on a reset. */
  direct (): GatewayClient {
    const { url, token } = this.#view
    if (!url || !token) throw new TypeError(`computer-gateway: desktop ${this.id} has no direct URL now (status ${this.#view.status})`)
    return new GatewayClient({ ...this.#options, baseUrl: url, token })
  }

  async refresh (): Promise<this> {
    this.#view = (await this.#fleet.get(this.id)).view
    return this
  }

  /** Until the fleet says it runs; throws when it ended or the time is up. */
  async ready ({ timeoutMs = 180_000, intervalMs = 500 }: WaitOptions = {}): Promise<this> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      await this.refresh()
      if (this.#view.status === 'running') return this
      if (this.#view.status === 'terminated') throw new Error(`computer-gateway: desktop ${this.id} ended (${this.#view.reason ?? 'no reason given'})`)
      if (Date.now() + intervalMs > deadline) throw new Error(`computer-gateway: desktop ${this.id} is not running within ${timeoutMs} ms (status ${this.#view.status})`)
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
    }
  }

  async reset (): Promise<this> {
    this.#view = (await this.#fleet.reset(this.id)).view
    return this
  }

  delete (): Promise<void> {
    return this.#fleet.delete(this.id)
  }
}
