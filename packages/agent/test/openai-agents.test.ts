/**
 * @computer-gateway/agent/openai-agents under @openai/agents' own loop: `run()` with ScriptedModel
 * (the README's example, examples/openai-agents.ts) drives the real server on Xvfb. The model
 * sees 1024x640 of the 1280x800 screen: its (256, 96) is the screen's (320, 120). Checked in
 * Chromium's event oracle: the click's pixel, the exact non-ASCII text; the screenshot the runner
 * hands back is a PNG data URL at the model's size; a refused key becomes the thrown error the
 * runner logs, answered with an empty image, and the run goes on to its end; nothing is held.
 */
import t from 'tap'
import { setTracingDisabled } from '@openai/agents'
import { ScriptedModel, assistantMessage } from '@openai/agents/testing'
import { example } from '../examples/openai-agents.ts'
import { GatewayComputer, GatewayError, gatewayComputerProvider } from '../src/openai-agents/index.ts'
import { assertClickedAndTyped, gatewayDesktop } from '../../../test/helpers/gateway.ts'
import { pngSize } from '../../../test/helpers/adapter-cases.ts'

setTracingDisabled(true)
const gateway = gatewayDesktop(t)
const DATA_URL = 'data:image/png;base64,'

t.test('run() with ScriptedModel: a batched computer_call lands at the model\'s pixels, a refused key is an error the run survives', async (t) => {
  const text = 'agents Grüße 美国 🙂'
  const model = new ScriptedModel([
    [{ type: 'computer_call', callId: 'call_1', status: 'completed', actions: [
      { type: 'click', x: 256, y: 96, button: 'left' },
      { type: 'keypress', keys: ['CTRL', 'A'] },
      { type: 'type', text },
    ] }],
    [{ type: 'computer_call', callId: 'call_2', status: 'completed', action: { type: 'keypress', keys: ['NOSUCHKEY'] } }],
    [assistantMessage('Done.')],
  ])
  gateway.oracle.clear()
  const result = await example(gateway.baseUrl, gateway.token, model)
  t.equal(result.finalOutput, 'Done.', 'the run reached its end')
  model.assertComplete()

  await assertClickedAndTyped(t, gateway, text)

  // What the runner handed the model after each call.
  const outputs = model.calls.flatMap((call) => (call.request.input as Array<{ type: string, callId?: string, output?: { data: string } }>))
    .filter((item) => item.type === 'computer_call_result')
  const byCall = new Map(outputs.map((item) => [item.callId, item.output!.data]))
  t.ok(byCall.get('call_1')!.startsWith(DATA_URL), 'a PNG data URL')
  t.strictSame(pngSize(byCall.get('call_1')!.slice(DATA_URL.length)), { width: 1024, height: 640 }, 'at the size the model declared')
  t.equal(byCall.get('call_2'), '', 'the refused call is answered as the runner answers a failed action')
  t.strictSame(await gateway.held(), [], 'nothing is held')
})

t.test('the Computer throws a GatewayError with our status, code and message', async (t) => {
  const computer = await GatewayComputer.connect({ baseUrl: gateway.baseUrl, token: gateway.token, display: { width: 1024, height: 640 } })
  t.strictSame(computer.dimensions, [1024, 640])
  const refused = await computer.keypress(['NOSUCHKEY']).catch((error: unknown) => error)
  t.ok(refused instanceof GatewayError)
  t.match(refused, { status: 400, code: 'ERR_UNKNOWN_KEY', message: /unknown key/ })
  const offScreen = await computer.click(2000, 10, 'left').catch((error: unknown) => error)
  t.match(offScreen, { status: 400, message: /\(2000, 10\) is outside .*x must be 0..1023/ }, 'a point off the model\'s screen is refused in its pixels')

  const wrongToken = await GatewayComputer.connect({ baseUrl: gateway.baseUrl, token: 'wrong', display: { width: 1024, height: 640 } })
  t.match(await wrongToken.move(1, 1).catch((error: unknown) => error), { status: 401, code: 'ERR_UNAUTHORIZED' })

  const real = await GatewayComputer.connect({ baseUrl: gateway.baseUrl, token: gateway.token })
  t.strictSame(real.dimensions, [1280, 800], 'without a display, the real screen')

  const provider = gatewayComputerProvider({ baseUrl: gateway.baseUrl, token: gateway.token, display: { width: 800, height: 500 } })
  const made = await provider.create()
  t.strictSame(pngSize(await made.screenshot()), { width: 800, height: 500 })
  provider.dispose({ computer: made })
  await t.rejects(made.move(1, 1), /disposed/, 'a disposed computer refuses calls')
  t.strictSame(await gateway.held(), [], 'nothing is held')
})
