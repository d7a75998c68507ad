/**
 * A `Computer` for @openai/agents' computerTool: every action of a computer_call (the GA
 * batched `actions[]` reach it one by one from the runner) goes through our OpenAI dialect,
 * POST /computer/openai, which owns the key names, the pixel-to-notch scrolling and the
 * scaling from `dimensions` (what the model sees) to the screen. A refused action throws a
 * GatewayError: the runner logs it and answers the model with the screenshot after the call.
 */
import type { Computer } from '@openai/agents'
import { GatewayClient, displayQuery, type ConnectionOptions, type Display } from '../client/index.ts'

export interface GatewayComputerOptions extends ConnectionOptions {
  /** The screen as the model sees it (OpenAI suggests 1024x768); default the real screen. */
  display?: Display
  /** Default 'ubuntu' (an X11 desktop). */
  environment?: Environment
}

type Button = Parameters<Computer['click']>[2]
type Environment = NonNullable<Computer['environment']>

const DATA_URL = /^data:image\/png;base64,/

export class GatewayComputer implements Computer {
  readonly environment: Environment
  readonly dimensions: [number, number]
  readonly client: GatewayClient
  #closed = false

  /** Prefer `GatewayComputer.connect`, which reads the real screen size when `display` is not given. */
  constructor (options: GatewayComputerOptions & { display: Display }) {
    this.client = new GatewayClient(options)
    this.environment = options.environment ?? 'ubuntu'
    this.dimensions = [options.display.width, options.display.height]
  }

  static async connect (options: GatewayComputerOptions): Promise<GatewayComputer> {
    const display = options.display ?? (await new GatewayClient(options).health()).screen
    if (!display) throw new Error('computer-gateway: the server does not know its screen size yet (no desktop); pass display')
    return new GatewayComputer({ ...options, display })
  }

  async screenshot (): Promise<string> {
    // The runner prefixes the data URL itself, always as PNG.
    const answer = await this.#send({ type: 'screenshot' }, { screenshot: true, format: 'png' })
    const url = answer.output.image_url
    if (!url || !DATA_URL.test(url)) throw new TypeError('the gateway answered a screenshot without a PNG image')
    return url.replace(DATA_URL, '')
  }

  async click (x: number, y: number, button: Button) { await this.#send({ type: 'click', x, y, button }) }
  async doubleClick (x: number, y: number) { await this.#send({ type: 'double_click', x, y }) }
  async scroll (x: number, y: number, scrollX: number, scrollY: number) { await this.#send({ type: 'scroll', x, y, scroll_x: scrollX, scroll_y: scrollY }) }
  async type (text: string) { await this.#send({ type: 'type', text }) }
  async wait () { await this.#send({ type: 'wait' }) }
  async move (x: number, y: number) { await this.#send({ type: 'move', x, y }) }
  async keypress (keys: string[]) { await this.#send({ type: 'keypress', keys }) }
  async drag (path: [number, number][]) { await this.#send({ type: 'drag', path: path.map(([x, y]) => ({ x, y })) }) }

  /** Refuses later calls: a computer handed back by its provider is not driven again. */
  close (): void { this.#closed = true }

  async #send (action: Record<string, unknown>, query: { screenshot?: boolean, format?: 'png' } = { screenshot: false }) {
    if (this.#closed) throw new Error('computer-gateway: this computer was disposed; the provider creates a new one per run')
    const [width, height] = this.dimensions
    return this.client.post('/computer/openai', action as never, { query: { ...displayQuery({ width, height }), ...query } })
  }
}
