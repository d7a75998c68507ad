/**
 * @computer-gateway/agent/ai-sdk under the Vercel AI SDK's own loop: `generateText` with a mock
 * language model (ai/test) scripted with tool calls, for `anthropic.tools.computer_20251124`
 * and `openai.tools.computer()` (the README's examples, examples/ai-sdk-*.ts), on the real server
 * on Xvfb. The model sees 1024x640 of the 1280x800 screen: its (256, 96) is the screen's
 * (320, 120). Checked: the oracle's click and exact text; what the SDK puts in the model's next
 * prompt (a file part, a data URL) at the declared size; a refusal becomes a tool-error the next
 * step sees, and the loop goes on to its end; nothing held.
 */
import t from 'tap'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { anthropic } from '@ai-sdk/anthropic'
import { anthropicComputer } from '../src/ai-sdk/index.ts'
import { example as anthropicExample } from '../examples/ai-sdk-anthropic.ts'
import { example as openaiExample } from '../examples/ai-sdk-openai.ts'
import { assertAtScreenPoint, assertClickedAndTyped, eventsOf, gatewayDesktop } from '../../../test/helpers/gateway.ts'
import { pngSize } from '../../../test/helpers/adapter-cases.ts'

const gateway = gatewayDesktop(t)

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }
const toolCall = (id: string, input: unknown) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'computer', input: JSON.stringify(input) })
const step = (content: unknown[], finish: 'tool-calls' | 'stop' = 'tool-calls') => ({ content, finishReason: { unified: finish, raw: finish }, usage, warnings: [] })

/** A mock model answering each step with the next scripted content. */
function scripted (steps: unknown[][]) {
  let next = 0
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const content = steps[next++]
      return (content ? step(content) : step([{ type: 'text', text: 'Done.' }], 'stop')) as never
    },
  })
}

interface PromptPart { type: string, toolCallId?: string, output?: { type: string, value?: unknown } }
/** The tool results the SDK put in the prompt of model call `index`. */
function toolResults (model: MockLanguageModelV4, index: number): PromptPart[] {
  return (model.doGenerateCalls[index]!.prompt as Array<{ role: string, content: PromptPart[] }>)
    .filter((m) => m.role === 'tool').flatMap((m) => m.content).filter((p) => p.type === 'tool-result')
}

t.test('anthropic.tools.computer_20251124: generateText clicks at the model\'s pixels, types exactly, shows a file part at the declared size, and goes on after a refusal', async (t) => {
  const text = 'ai-sdk Grüße 美国 🙂'
  const model = scripted([
    [toolCall('c1', { action: 'left_click', coordinate: [256, 96] }), toolCall('c2', { action: 'key', text: 'ctrl+a' })],
    [toolCall('c3', { action: 'type', text })],
    [toolCall('c4', { action: 'key', text: 'nosuchkey' })],
    [toolCall('c5', { action: 'screenshot' })],
  ])
  gateway.oracle.clear()
  const result = await anthropicExample(gateway.baseUrl, gateway.token, model)
  t.equal(result.text, 'Done.', 'the loop reached its end')
  t.equal(model.doGenerateCalls.length, 5)

  await assertClickedAndTyped(t, gateway, text)

  const [click] = toolResults(model, 1)
  t.equal(click?.toolCallId, 'c1')
  const parts = (click!.output as { type: string, value: Array<{ type: string, text?: string, data?: { type: string, data: string }, mediaType?: string }> })
  t.equal(parts.type, 'content')
  t.match(parts.value, [{ type: 'text', text: /clicked left at \(256, 96\)/ }, { type: 'file', mediaType: 'image/png', data: { type: 'data' } }])
  t.strictSame(pngSize(parts.value[1]!.data!.data), { width: 1024, height: 640 }, 'the file part is at the declared size')

  const [refused] = toolResults(model, 3).filter((p) => p.toolCallId === 'c4')
  t.match(refused?.output, { type: 'error-text', value: /unknown key 'nosuchkey'/ }, 'the refusal is the SDK\'s tool error, our message')
  t.match(result.steps[2]!.content.find((c) => c.type === 'tool-error'), { toolName: 'computer', error: { name: 'GatewayError', status: 400, message: /unknown key 'nosuchkey'/ } }, 'execute threw our GatewayError')
  t.strictSame(await gateway.held(), [], 'nothing is held')
})

t.test('openai.tools.computer(): a batched computer_call lands at the model\'s pixels, answered with a data URL at the declared size', async (t) => {
  const text = 'openai-sdk Ñandú Жук 🙂'
  const model = scripted([
    [toolCall('call_1', { actions: [
      { type: 'click', button: 'left', x: 256, y: 96 },
      { type: 'keypress', keys: ['CTRL', 'A'] },
      { type: 'type', text },
      { type: 'scroll', x: 256, y: 96, scrollX: 0, scrollY: 0 },
    ], pendingSafetyChecks: [], status: 'completed' })],
    [toolCall('call_2', { actions: [{ type: 'keypress', keys: ['NOSUCHKEY'] }], pendingSafetyChecks: [], status: 'completed' })],
    [toolCall('call_3', { actions: [{ type: 'move', x: 10, y: 10 }], pendingSafetyChecks: [{ id: 'sc_1', code: 'malicious_instructions', message: 'check' }], status: 'completed' })],
  ])
  gateway.oracle.clear()
  const result = await openaiExample(gateway.baseUrl, gateway.token, model)
  t.equal(result.text, 'Done.', 'the loop reached its end')

  await assertClickedAndTyped(t, gateway, text, { onTextarea: false })

  const [first] = toolResults(model, 1)
  const output = first!.output as { type: string, value: { output: { type: string, imageUrl: string } } }
  t.equal(output.type, 'json')
  t.equal(output.value.output.type, 'computer_screenshot')
  t.match(output.value.output.imageUrl, /^data:image\/png;base64,/)
  t.strictSame(pngSize(output.value.output.imageUrl.replace(/^data:image\/png;base64,/, '')), { width: 1024, height: 640 }, 'at the declared size')
  t.match(toolResults(model, 2).find((p) => p.toolCallId === 'call_2')?.output, { type: 'error-text', value: /unknown key/ })
  t.match(toolResults(model, 3).find((p) => p.toolCallId === 'call_3')?.output, { type: 'error-text', value: /safety check/ }, 'an unacknowledged safety check is refused')
  t.strictSame(await gateway.held(), [], 'nothing is held')
})

t.test('anthropic.tools.computerToolset_20260801: members as `action` run through the toolset route, the screenshot a file part at the declared size', async (t) => {
  const model = scripted([
    [toolCall('m1', { action: 'left_click', coordinate: [256, 96] }), toolCall('m2', { action: 'screenshot' })],
    [toolCall('m3', { action: 'cursor_position' })],
  ])
  const computer = anthropic.tools.computerToolset_20260801(anthropicComputer({
    baseUrl: gateway.baseUrl, token: gateway.token, version: 'computer_toolset_20260801', display: { width: 1024, height: 640 },
  }))
  gateway.oracle.clear()
  const result = await generateText({ model, tools: { computer }, stopWhen: stepCountIs(5), prompt: 'Click the text box.' })
  t.equal(result.text, 'Done.')
  const events = await gateway.oracle.until((e) => eventsOf(e, 'mousedown').length > 0)
  const down = eventsOf(events, 'mousedown')[0]
  assertAtScreenPoint(t, down)
  const [click, shot] = toolResults(model, 1) as Array<{ output: { value: Array<{ type: string, text?: string, data?: { data: string } }> } }>
  t.strictSame(click!.output.value, [{ type: 'text', text: 'Clicked.' }], 'the toolset\'s acknowledgment')
  t.equal(shot!.output.value[0]!.type, 'file')
  t.strictSame(pngSize(shot!.output.value[0]!.data!.data), { width: 1024, height: 640 })
  const cursor = toolResults(model, 2).find((p) => p.toolCallId === 'm3') as { output: { value: Array<{ text?: string }> } }
  t.match(cursor.output.value[0]!.text, /^X=256,Y=9[67]$/)
  t.strictSame(await gateway.held(), [], 'nothing is held')
})
