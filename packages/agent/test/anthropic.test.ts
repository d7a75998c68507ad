/**
 * @computer-gateway/agent/anthropic under @anthropic-ai/sdk's own loop: `toolRunner` (the README's
 * example, examples/anthropic.ts) with an Anthropic client whose fetch replays Messages API
 * replies (fixtures/clients), on the real server on Xvfb. Claude is shown 1024x640 of the
 * 1280x800 screen: its (256, 96) is the screen's (320, 120). Checked: the oracle's click and
 * exact text, the image block the runner sends back at the declared size, a refused key sent
 * back as is_error with our message while the loop goes on, the cursor in Claude's pixels,
 * nothing held.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import Anthropic from '@anthropic-ai/sdk'
import { example } from '../examples/anthropic.ts'
import { GatewayComputerToolset, GatewayError, gatewayComputerTool } from '../src/anthropic/index.ts'
import { assertClickedAndTyped, emptyTextarea, gatewayDesktop } from '../../../test/helpers/gateway.ts'
import { pngSize } from '../../../test/helpers/adapter-cases.ts'

const gateway = gatewayDesktop(t)
const recorded = (file: string) => (JSON.parse(readFileSync(new URL(`fixtures/clients/${file}`, import.meta.url), 'utf8')) as { responses: unknown[] }).responses
const responses = recorded('anthropic-toolset-replies.json')

interface Sent { messages: Array<{ role: string, content: Array<{ type: string, tool_use_id?: string, is_error?: boolean, content?: Array<{ type: string, text?: string, source?: { data: string, media_type: string } }> }> | string }>, tools: unknown[] }

/** An Anthropic client whose fetch answers each request with the next recorded reply, keeping what was sent. */
function replaying (replies = responses) {
  const sent: Sent[] = []
  let next = 0
  const anthropic = new Anthropic({
    apiKey: 'sk-ant-replay',
    maxRetries: 0,
    fetch: async (_url: string | URL | Request, init?: RequestInit) => {
      sent.push(JSON.parse(String(init!.body)))
      const reply = replies[next++]
      if (!reply) return new Response(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'no more recorded replies' } }), { status: 400, headers: { 'content-type': 'application/json' } })
      return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json', 'request-id': `req_${next}` } })
    },
  })
  return { anthropic, sent, used: () => next }
}

const resultsIn = (request: Sent) => {
  const last = request.messages.at(-1)!
  return Array.isArray(last.content) ? last.content.filter((c) => c.type === 'tool_result') : []
}

t.test('toolRunner with replayed replies: clicks at Claude\'s pixels, types exactly, screenshots at the declared size, a refusal is is_error and the loop goes on', async (t) => {
  const text = 'claude Grüße 美国 🙂'
  const { anthropic, sent, used } = replaying()
  gateway.oracle.clear()
  const final = await example(gateway.baseUrl, gateway.token, anthropic)
  t.equal(used(), responses.length, 'every recorded reply was used')
  t.strictSame(final.content, [{ type: 'text', text: 'The greeting is written.' }], 'the loop reached its end')
  t.match(sent[0]!.tools, [{ type: 'computer_toolset_20260801' }], 'the toolset is declared to the API')

  await assertClickedAndTyped(t, gateway, text)

  const [shot] = resultsIn(sent[1]!)
  t.match(shot, { tool_use_id: 'toolu_01Shot', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] })
  t.strictSame(pngSize(shot!.content![0]!.source!.data), { width: 1024, height: 640 }, 'the image block is at the declared size')
  t.strictSame(resultsIn(sent[2]!).map((r) => [r.tool_use_id, r.is_error ?? false]), [['toolu_02Click', false], ['toolu_03Key', false], ['toolu_04Type', false]])
  const [refused] = resultsIn(sent[3]!)
  t.equal(refused?.tool_use_id, 'toolu_05BadKey')
  t.equal(refused?.is_error, true, 'our refusal is the SDK\'s is_error result')
  t.match(JSON.stringify(refused?.content), /unknown key 'nosuchkey'/, 'with our message')
  const [cursor] = resultsIn(sent[4]!)
  t.match(JSON.stringify(cursor?.content), /X=256,Y=9[67]/, 'the cursor in the pixels Claude is shown')
  t.strictSame(await gateway.held(), [], 'nothing is held')
})

t.test('toolResult: a wrong token is not a ToolError: the SDK answers it as any thrown error, with our 401 message', async (t) => {
  const toolset = new GatewayComputerToolset({ baseUrl: gateway.baseUrl, token: 'wrong', confirm: () => true })
  const result = await toolset.toolResult({ type: 'tool_use', id: 'toolu_x', name: 'mouse_move', input: { coordinate: [1, 1] }, toolset_name: 'computer' } as never)
  t.match(result, { type: 'tool_result', tool_use_id: 'toolu_x', toolset_name: 'computer', is_error: true, content: [{ type: 'text', text: /^Error: .*token/ }] })
  const direct = await toolset.client.health()
  t.equal(typeof direct.screen?.width, 'number', 'GET /health needs no token')
  await t.rejects(toolset.client.computer({ action: 'get_cursor_position' }), GatewayError)
})

t.test('the computer_20251124 tool under toolRunner: text and screenshot at the declared size, a refusal is is_error, the loop goes on', async (t) => {
  const text = 'tool Ñandú Жук 🙂'
  const replies = recorded('anthropic-computer-tool-replies.json')
  const { anthropic, sent, used } = replaying(replies)
  // The first test's text gone, and its clicks at the same spot out of Chromium's multi-click count.
  await emptyTextarea(gateway)
  gateway.oracle.clear()
  const computer = gatewayComputerTool({ baseUrl: gateway.baseUrl, token: gateway.token, version: 'computer_20251124', display: { width: 1024, height: 640 } })
  const final = await anthropic.beta.messages.toolRunner({
    model: 'claude-opus-4-8', max_tokens: 1024, tools: [computer], messages: [{ role: 'user', content: 'Write in the text box.' }],
  }).runUntilDone()
  t.equal(used(), replies.length)
  t.strictSame(final.content, [{ type: 'text', text: 'Written.' }])
  t.match(sent[0]!.tools, [{ type: 'computer_20251124', name: 'computer', display_width_px: 1024, display_height_px: 640 }])

  await assertClickedAndTyped(t, gateway, text, { onTextarea: false })

  const [clicked] = resultsIn(sent[1]!)
  t.match(clicked, { tool_use_id: 'toolu_11Click', content: [{ type: 'text', text: /clicked left 3 times at \(256, 96\)|triple/ }, { type: 'image' }] })
  t.strictSame(pngSize(clicked!.content![1]!.source!.data), { width: 1024, height: 640 })
  const [refused] = resultsIn(sent[3]!)
  t.match(refused, { tool_use_id: 'toolu_13BadKey', is_error: true })
  t.match(JSON.stringify(refused?.content), /unknown key 'nosuchkey'/)
  t.strictSame(await gateway.held(), [], 'nothing is held')
})
