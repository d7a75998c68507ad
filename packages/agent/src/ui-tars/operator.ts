/**
 * An Operator for @ui-tars/sdk's GUIAgent: its screenshot is a real PNG of the screen (at
 * `display` when given) that the SDK decodes for its size; each action the SDK parsed runs
 * through our UI-TARS dialect, POST /computer/uitars on the 0–1000 grid, and the dialect's
 * finished/call_user become the SDK's END/CALL_USER (the gateway answers call_user once a
 * person has taken the desktop over and handed it back, or its wait ran out: docs/takeover.md).
 * A refusal throws a GatewayError, which
 * GUIAgent reports as its execute error and stops on.
 */
import { Operator, StatusEnum, type ExecuteParams, type ExecuteOutput, type ScreenshotOutput } from '@ui-tars/sdk/core'
import { GatewayClient, type ConnectionOptions, type Display } from '../client/index.ts'
import { actionText } from './action-text.ts'

export interface GatewayOperatorOptions extends ConnectionOptions {
  /** The size of the screenshots the model is shown; default the screen. */
  display?: Display
}

interface UitarsAnswer { finished: string | null, call_user: string | null }

/** Not actions: GUIAgent's own signals to its operator. */
const SIGNALS = new Set(['user_stop', 'error_env', 'max_loop', ''])

export class GatewayOperator extends Operator {
  static override MANUAL = {
    ACTION_SPACES: [
      "click(start_box='[x1, y1, x2, y2]')",
      "left_double(start_box='[x1, y1, x2, y2]')",
      "right_single(start_box='[x1, y1, x2, y2]')",
      "drag(start_box='[x1, y1, x2, y2]', end_box='[x3, y3, x4, y4]')",
      "hotkey(key='')",
      "type(content='') #If you want to submit your input, use \"\\n\" at the end of `content`.",
      "scroll(start_box='[x1, y1, x2, y2]', direction='down or up or right or left')",
      'wait() #Sleep for 5s and take a screenshot to check for any changes.',
      'finished()',
      "call_user() # Submit the task and call the user when the task is unsolvable, or when you need the user's help.",
    ],
  }

  readonly client: GatewayClient
  readonly #display: Display | undefined

  constructor (options: GatewayOperatorOptions) {
    super()
    this.client = new GatewayClient(options)
    this.#display = options.display
  }

  async screenshot (): Promise<ScreenshotOutput> {
    return { base64: await this.client.screenshot(this.#display, { format: 'png' }), scaleFactor: 1 }
  }

  async execute ({ parsedPrediction }: ExecuteParams): Promise<ExecuteOutput> {
    if (SIGNALS.has(parsedPrediction.action_type)) return { status: StatusEnum.RUNNING }
    const answer = await this.client.post('/computer/uitars', actionText(parsedPrediction) as never, {
      query: { coordinates: 'relative', screenshot: false } as never,
    }) as unknown as UitarsAnswer
    if (answer.finished !== null) return { status: StatusEnum.END }
    if (answer.call_user !== null) return { status: StatusEnum.CALL_USER }
    return { status: StatusEnum.RUNNING }
  }
}
