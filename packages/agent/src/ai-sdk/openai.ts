/**
 * `execute` for the Vercel AI SDK's `openai.tools.computer()` (the tool key must be
 * `computer`): its `actions` run as one computer_call through POST /computer/openai, answered
 * with the screenshot after them as a data URL. Pending safety checks are refused (409) unless
 * `acknowledgeSafetyChecks` says to acknowledge them; a refusal throws a GatewayError.
 */
import { GatewayClient, displayQuery, type ConnectionOptions, type Display } from '../client/index.ts'

export interface OpenaiComputerOptions extends ConnectionOptions {
  /** The screen as the model sees it; default the real screen. */
  display?: Display
  acknowledgeSafetyChecks?: boolean
}

interface SafetyCheck { id: string, code?: string | undefined, message?: string | undefined }
interface Action { type: string, scrollX?: number, scrollY?: number, [field: string]: unknown }

export function openaiComputer (options: OpenaiComputerOptions) {
  const client = new GatewayClient(options)
  const query = { ...displayQuery(options.display), format: 'png', ...(options.acknowledgeSafetyChecks && { acknowledge_safety_checks: true }) }
  return {
    async execute (input: { actions: Action[], pendingSafetyChecks?: SafetyCheck[] }, { toolCallId }: { toolCallId: string }) {
      const call = {
        type: 'computer_call',
        call_id: toolCallId,
        actions: input.actions.map(wireAction),
        ...(input.pendingSafetyChecks?.length && { pending_safety_checks: input.pendingSafetyChecks }),
      }
      const answer = await client.post('/computer/openai', call as never, { query: query as never })
      const imageUrl = answer.output.image_url
      if (!imageUrl) throw new TypeError('the gateway answered a computer_call without a screenshot')
      return {
        output: { type: 'computer_screenshot' as const, imageUrl },
        ...(answer.acknowledged_safety_checks && { acknowledgedSafetyChecks: answer.acknowledged_safety_checks as SafetyCheck[] }),
      }
    },
  }
}

/** The SDK's camelCase scroll fields as the Responses API's. */
function wireAction ({ scrollX, scrollY, ...action }: Action) {
  return { ...action, ...(scrollX !== undefined && { scroll_x: scrollX }), ...(scrollY !== undefined && { scroll_y: scrollY }) }
}
