/**
 * @computer-gateway/agent/ui-tars under @ui-tars/sdk's own loop: `GUIAgent.run` (the README's
 * example, examples/ui-tars.ts) with a UITarsModel whose invokeModelProvider returns recorded
 * UI-TARS replies, on the real server on Xvfb. The model answers on the 0–1000 grid: its
 * (250, 150) on the 1280x800 screen is (250.5 * 1.28, 150.5 * 0.8) = (320, 120). The operator's
 * screenshots are 1024x640. Checked: the oracle's click and exact text, the screenshot GUIAgent
 * decoded at the declared size, finished ending the run, a refused key stopping it with
 * GUIAgent's execute error carrying our message, nothing held; call_user waiting for a person
 * (a takeover and hand-back through /control) before the run ends as CALL_USER; a typed text with \', \\ and \n
 * arriving in the textarea as the model meant it (the quote, one backslash, Enter).
 */
import t from 'tap'
import { StatusEnum, type GUIAgentData } from '@ui-tars/sdk'
import { UITarsModel } from '@ui-tars/sdk/core'
import { actionParser } from '@ui-tars/action-parser'
import { example } from '../examples/ui-tars.ts'
import { GatewayOperator, actionText } from '../src/ui-tars/index.ts'
import { assertClickedAndTyped, gatewayDesktop } from '../../../test/helpers/gateway.ts'
import { pngSize } from '../../../test/helpers/adapter-cases.ts'
import { parseCalls } from '../../../adapters/uitars/calls.ts'

const gateway = gatewayDesktop(t)

/** A UI-TARS model answering each turn with the next recorded reply. */
class RecordedModel extends UITarsModel {
  readonly replies: string[]
  turns = 0
  constructor (replies: string[]) {
    super({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'none', model: 'ui-tars-recorded' })
    this.replies = replies
  }

  protected override async invokeModelProvider () {
    const prediction = this.replies[this.turns++]
    if (prediction === undefined) throw new Error('no more recorded replies')
    return { prediction, costTime: 1, costTokens: 1 }
  }
}

const quiet = { log () {}, info () {}, warn () {}, error () {} }
const last = (updates: GUIAgentData[]) => updates.at(-1)!

t.test('GUIAgent.run: recorded replies click at the grid point, type exactly, and finish', async (t) => {
  const text = 'uitars Grüße 美国 🙂'
  const model = new RecordedModel([
    "Thought: The text box is at the top left.\nAction: click(start_box='(250,150)')",
    "Thought: Select what is there.\nAction: hotkey(key='ctrl a')",
    `Thought: Write the greeting.\nAction: type(content='${text}')`,
    "Thought: It is written.\nAction: finished(content='done')",
  ])
  gateway.oracle.clear()
  const updates = await example(gateway.baseUrl, gateway.token, model, quiet)
  t.equal(model.turns, 4, 'every recorded reply was used')
  t.equal(last(updates).status, StatusEnum.END, 'finished ended the run')

  await assertClickedAndTyped(t, gateway, text)

  const shots = updates.flatMap((u) => u.conversations).filter((c) => c.screenshotBase64)
  t.ok(shots.length >= 4, 'a screenshot every turn')
  t.strictSame(shots[0]!.screenshotContext?.size, { width: 1024, height: 640 }, 'GUIAgent decoded it at the declared size')
  t.strictSame(pngSize(shots[0]!.screenshotBase64!.replace(/^data:image\/png;base64,/, '')), { width: 1024, height: 640 })
  t.strictSame(await gateway.held(), [], 'nothing is held')
})

t.test('GUIAgent.run: a refused key stops the run with the SDK\'s execute error, our message inside', async (t) => {
  const model = new RecordedModel(["Thought: Press it.\nAction: hotkey(key='nosuchkey')", "Action: finished(content='never reached')"])
  const updates = await example(gateway.baseUrl, gateway.token, model, quiet)
  t.equal(model.turns, 1, 'the loop stopped after the refusal')
  t.equal(last(updates).status, StatusEnum.ERROR)
  t.match(JSON.stringify(last(updates).error), /unknown key/, 'the SDK\'s error carries our message')
  t.strictSame(await gateway.held(), [], 'nothing is held')
})

/**
 * The gateway answers call_user once a person has taken the desktop over and handed it back
 * (docs/takeover.md): what a person at the live view does, done here through /control as soon
 * as the request waits. Resolves with the request's message.
 */
async function personAnswers (message: string): Promise<string> {
  const call = (method: string, path: string, body?: object) => fetch(`${gateway.baseUrl}${path}`, {
    method, headers: { authorization: `Bearer ${gateway.token}`, ...(body && { 'content-type': 'application/json' }) }, ...(body && { body: JSON.stringify(body) }),
  }).then(async (response) => ({ status: response.status, body: await response.json() as { requests: Array<{ message: string }> } }))
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const waiting = (await call('GET', '/control')).body.requests[0]
    if (!waiting) continue
    for (const [path, body] of [['/control/takeover', { holder: 'person' }], ['/control/release', { message }]] as const) {
      const { status } = await call('POST', path, body)
      if (status !== 200) throw new Error(`${path} answered ${status}`)
    }
    return waiting.message
  }
  throw new Error('no request for a person came within 30 s')
}

t.test('call_user waits for a person, then ends the run as the SDK\'s CALL_USER', async (t) => {
  const model = new RecordedModel(["Thought: I need a password.\nAction: call_user()"])
  const [updates, asked] = await Promise.all([example(gateway.baseUrl, gateway.token, model, quiet), personAnswers('typed it in')])
  t.equal(last(updates).status, StatusEnum.CALL_USER)
  t.type(asked, 'string', 'the person saw the request while the run waited')
  t.strictSame((await (await fetch(`${gateway.baseUrl}/control`, { headers: { authorization: `Bearer ${gateway.token}` } })).json()), { lease: null, requests: [] }, 'nothing waits or is held after')
})

t.test('the operator reports the dialect\'s finished and call_user as the SDK\'s END and CALL_USER, and passes over GUIAgent\'s own signals', async (t) => {
  const operator = new GatewayOperator({ baseUrl: gateway.baseUrl, token: gateway.token })
  const run = (action_type: string, action_inputs: Record<string, unknown> = {}) => operator.execute({
    prediction: '', parsedPrediction: { action_type, action_inputs, reflection: null, thought: '' }, screenWidth: 1280, screenHeight: 800, scaleFactor: 1, factors: [1000, 1000],
  })
  t.strictSame(await run('finished', { content: 'done' }), { status: StatusEnum.END })
  t.strictSame((await Promise.all([run('call_user'), personAnswers('done')]))[0], { status: StatusEnum.CALL_USER })
  t.strictSame(await run('wait'), { status: StatusEnum.RUNNING })
  t.strictSame(await run('user_stop'), { status: StatusEnum.RUNNING })
  await t.rejects(run('teleport', { start_box: '[0.1,0.1,0.1,0.1]' }), { name: 'GatewayError', status: 400 })
  const shot = await operator.screenshot()
  t.strictSame(pngSize(shot.base64), { width: 1280, height: 800 }, 'without a display, the screen')
})

t.test('GUIAgent.run: the text typed is the text the model wrote, its escapes resolved, \\n pressing Enter', async (t) => {
  // What the model wrote between the quotes: it\'s a\\b ok\n — typed as it's a\b ok, then Enter.
  const model = new RecordedModel([
    "Thought: The text box.\nAction: click(start_box='(250,150)')",
    "Thought: Select what is there.\nAction: hotkey(key='ctrl a')",
    "Thought: Write and submit.\nAction: type(content='it\\'s a\\\\b ok\\n')",
    "Thought: It is written.\nAction: finished(content='done')",
  ])
  gateway.oracle.clear()
  const updates = await example(gateway.baseUrl, gateway.token, model, quiet)
  t.equal(last(updates).status, StatusEnum.END, 'finished ended the run')
  t.equal(model.turns, 4)
  await assertClickedAndTyped(t, gateway, "it's a\\b ok\n")
  const events = await gateway.oracle.until(() => true, 0)
  t.equal(events.filter((e) => e.type === 'keydown' && e.target === 'text').at(-1)?.key, 'Enter', 'the \\n is the Enter key, the last key pressed')
  t.equal(events.filter((e) => e.type === 'input').at(-1)?.inputType, 'insertLineBreak')
  t.strictSame(await gateway.held(), [], 'nothing is held')
})

t.test('actionText of what the SDK\'s parser read: the dialect reads the model\'s own values back', async (t) => {
  // [the model's call, the values it means]: the SDK's parser (as GUIAgent runs it) leaves quoted
  // values as written (escapes and all, a line break made \n, the closing quote dropped).
  const rows: Array<[string, Record<string, string>]> = [
    ["type(content='it\\'s ok\\n')", { content: "it's ok\n" }],
    ["type(content='a\\\\b and \\\\n')", { content: 'a\\b and \\n' }],
    ['type(content=\'say "hi" \\"twice\\"\')', { content: 'say "hi" "twice"' }],
    ["type(content='one\ntwo')", { content: 'one\ntwo' }],
    ["type(content='tab\\there, 50\\% off')", { content: 'tab\there, 50\\% off' }],
    ["hotkey(key='ctrl a')", { key: 'ctrl a' }],
    ["scroll(start_box='(500,500)', direction='down')", { start_box: '(500,500)', direction: 'down' }],
    ["click(start_box='<|box_start|>(250,150)<|box_end|>')", { start_box: '(250,150)' }],
  ]
  for (const [call, meant] of rows) {
    const [parsed] = actionParser({ prediction: `Thought: x\nAction: ${call}`, factor: [1000, 1000] }).parsed
    const text = actionText(parsed!)
    t.strictSame(parseCalls(text.replace(/^Action: /, ''))[0]!.args, meant, call)
  }
})

t.test('actionText: the parser\'s fractions back on the 0–1000 grid, values written as Python reads them', async (t) => {
  const rows: Array<[Parameters<typeof actionText>[0], string]> = [
    [{ action_type: 'click', action_inputs: { start_box: '[0.25,0.15,0.25,0.15]', start_coords: [320, 120] } }, "Action: click(start_box='(250,150)')"],
    [{ action_type: 'drag', action_inputs: { start_box: '[0.1,0.2,0.3,0.4]', end_box: '[0.5,0.5]' } }, "Action: drag(start_box='(200,300)', end_box='(500,500)')"],
    // As the parser leaves them: escaped text kept escaped once, bare quotes and line breaks escaped.
    [{ action_type: 'type', action_inputs: { content: "it\\'s a\\\\b\\nc" } }, "Action: type(content='it\\'s a\\\\b\\nc')"],
    [{ action_type: 'type', action_inputs: { content: "it's\nok\\" } }, "Action: type(content='it\\'s\\nok\\\\')"],
    [{ action_type: 'wait', action_inputs: {} }, 'Action: wait()'],
  ]
  for (const [parsed, text] of rows) t.equal(actionText(parsed), text)
  t.throws(() => actionText({ action_type: 'click', action_inputs: { start_box: '[1,2,3]' } }), /cannot read the box/)
})
