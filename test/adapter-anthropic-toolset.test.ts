/**
 * The anthropic adapter's computer_toolset_20260801 (the default version) on recorded member
 * tool_use blocks (test/fixtures/anthropic, each case naming its source): every member →
 * unified actions; a turn's blocks → the tool_result blocks, proven equal to what
 * @anthropic-ai/sdk's own toolset pipeline renders for the same blocks and outcomes; refusals,
 * whole; and the screenshot sized for Claude when the screen is larger than its image limits.
 */
import t from 'tap'
import Anthropic from '@anthropic-ai/sdk'
import { BetaAbstractComputerToolset20260801, ToolError, type BetaToolsetCallContext } from '@anthropic-ai/sdk/helpers/beta/toolsets'
import type { BetaContentBlock, BetaToolResultBlockParam } from '@anthropic-ai/sdk/resources/beta/messages/messages'
import { anthropicAdapter } from '../adapters/anthropic/index.ts'
import { TOOLSET_MEMBERS } from '../adapters/anthropic/computer_toolset_20260801.ts'
import { NOT_EXECUTED, NOT_EXECUTED_REFUSED } from '../adapters/anthropic/toolset-to-native-result.ts'
import { build, post } from './helpers/build.ts'
import { adapterCases, badRequest, imageSize } from './helpers/adapter-cases.ts'

interface Block { type: 'tool_use', id: string, name: string, toolset_name: 'computer', input: Record<string, unknown> }

const block = (id: string, name: string, input: Record<string, unknown> = {}): Block => ({ type: 'tool_use', id, name, toolset_name: 'computer', input })
const withoutNulls = (input: Record<string, unknown>) => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null))

t.test('recorded member calls → unified actions (the default version)', async (t) => {
  const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
  const cases = adapterCases('anthropic', 'translate-computer_toolset_20260801.json') as Array<{ name: string, source: string, payload: Block | Block[], actions: unknown[] }>
  for (const c of cases) {
    // The turn's other blocks (text, thinking) are passed over: one call per member block.
    const blocks = (Array.isArray(c.payload) ? c.payload : [c.payload]).filter((b) => b.toolset_name === 'computer')
    const { status, body } = await post(app, '/computer/anthropic/translate', c.payload)
    t.equal(status, 200, `${c.name} (${c.source})`)
    t.strictSame(body, {
      adapter: 'anthropic',
      version: 'computer_toolset_20260801',
      actions: c.actions,
      screenshot: false,
      display_width_px: 1280,
      display_height_px: 800,
      meta: {
        calls: blocks.map((b, i) => ({
          id: b.id, name: b.name, input: withoutNulls(b.input),
          first: Array.isArray(c.payload) ? i : 0, count: Array.isArray(c.payload) ? 1 : c.actions.length,
        })),
      },
    }, `${c.name} (${c.source})`)
  }
  const covered = new Set(cases.flatMap((c) => (Array.isArray(c.payload) ? c.payload : [c.payload]).map((b) => b.name)))
  t.strictSame(TOOLSET_MEMBERS.filter((m) => !covered.has(m)), [], 'every member has a recorded case')
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

/**
 * The SDK's toolset, whose members report what our executor did: each member runs its one
 * block through the server (over its own fake driver) and hands back the outcome as a member
 * does: nothing for a pure action, the image, the cursor, or a ToolError with our message.
 */
class ReportingToolset extends BetaAbstractComputerToolset20260801 {
  readonly #send: (block: Block) => Promise<{ body: Array<{ content: unknown, is_error?: true }> }>
  constructor (send: (block: Block) => Promise<{ body: Array<{ content: unknown, is_error?: true }> }>) {
    super({ confirm: () => true })
    this.#send = send
  }

  async #report (ctx: BetaToolsetCallContext, name: string, input: unknown) {
    const toolUse = ctx.toolUse as { id: string }
    const { body } = await this.#send(block(toolUse.id, name, input as Record<string, unknown>))
    const [result] = body
    const content = result!.content as Array<{ type: string, text?: string, source?: { data: string } }>
    if (result!.is_error) throw new ToolError(content.map((c) => ({ type: 'text' as const, text: c.text! })))
    if (name === 'screenshot' || name === 'zoom') return { data: content[0]!.source!.data, mediaType: 'image/png' as const }
    if (name === 'cursor_position') {
      const [, x, y] = /^X=(\d+),Y=(\d+)$/.exec(content[0]!.text!)!
      return { x: Number(x), y: Number(y) }
    }
    return undefined
  }

  protected override key (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'key', input) as Promise<undefined> }
  protected override hold_key (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'hold_key', input) as Promise<undefined> }
  protected override type_ (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'type', input) as Promise<undefined> }
  protected override cursor_position (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'cursor_position', input) as Promise<{ x: number, y: number }> }
  protected override mouse_move (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'mouse_move', input) as Promise<undefined> }
  protected override left_mouse_down (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'left_mouse_down', input) as Promise<undefined> }
  protected override left_mouse_up (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'left_mouse_up', input) as Promise<undefined> }
  protected override left_click (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'left_click', input) as Promise<undefined> }
  protected override left_click_drag (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'left_click_drag', input) as Promise<undefined> }
  protected override right_click (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'right_click', input) as Promise<undefined> }
  protected override middle_click (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'middle_click', input) as Promise<undefined> }
  protected override double_click (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'double_click', input) as Promise<undefined> }
  protected override triple_click (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'triple_click', input) as Promise<undefined> }
  protected override scroll (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'scroll', input) as Promise<undefined> }
  protected override wait (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'wait', input) as Promise<undefined> }
  protected override screenshot (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'screenshot', input) as Promise<{ data: string, mediaType: 'image/png' }> }
  protected override zoom (ctx: BetaToolsetCallContext, input: object) { return this.#report(ctx, 'zoom', input) as Promise<{ data: string, mediaType: 'image/png' }> }
}

/** What the SDK's tool runner answers for an assistant turn of these blocks (no request is made). */
async function sdkAnswer (toolset: ReportingToolset, blocks: Content[]): Promise<BetaToolResultBlockParam[]> {
  const client = new Anthropic({ apiKey: 'unused', fetch: () => { throw new Error('no request is made') } })
  const runner = client.beta.messages.toolRunner({
    model: 'claude-test',
    max_tokens: 1,
    tools: [toolset],
    messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: blocks as unknown as BetaContentBlock[] }],
  })
  const response = await runner.generateToolResponse()
  return response!.content as BetaToolResultBlockParam[]
}

const failOnKeys = (call: { call: string }) => { if (call.call === 'keyDown') throw new Error('keyboard unplugged') }

type Content = Block | (Record<string, unknown> & { type: string })

const TURNS: Array<{ name: string, blocks: Content[], status: number, failKeys?: boolean }> = [
  {
    name: 'every member, one turn',
    status: 200,
    blocks: [
      block('toolu_1', 'mouse_move', { coordinate: [700, 50] }),
      block('toolu_2', 'left_click', { coordinate: [512, 384], text: 'shift' }),
      block('toolu_3', 'right_click', {}),
      block('toolu_4', 'middle_click', { coordinate: [5, 5] }),
      block('toolu_5', 'double_click', { coordinate: [10, 20] }),
      block('toolu_6', 'triple_click', { coordinate: [10, 20] }),
      block('toolu_7', 'left_click_drag', { start_coordinate: [10, 20], coordinate: [300, 400] }),
      block('toolu_8', 'left_mouse_down', {}),
      block('toolu_9', 'left_mouse_up', {}),
      block('toolu_10', 'key', { text: 'ctrl+s', repeat: 2 }),
      block('toolu_11', 'hold_key', { text: 'shift', duration: 0.05 }),
      block('toolu_12', 'type', { text: 'Hello, world!\n' }),
      block('toolu_13', 'scroll', { coordinate: [640, 400], scroll_direction: 'down', scroll_amount: 3 }),
      block('toolu_14', 'wait', { duration: 0.05 }),
      block('toolu_15', 'cursor_position', {}),
      block('toolu_16', 'screenshot', {}),
      block('toolu_17', 'zoom', { region: [100, 100, 300, 200] }),
    ],
  },
  {
    name: 'a failure stops the turn: the failing call is_error, the rest not executed',
    status: 500,
    failKeys: true,
    blocks: [
      { type: 'thinking', thinking: 'The field is at the top.', signature: 'EqQBCgIYAhIM' },
      { type: 'text', text: 'I will fill in the field.' },
      block('toolu_a', 'left_click', { coordinate: [100, 100] }),
      block('toolu_b', 'key', { text: 'Return' }),
      block('toolu_c', 'type', { text: 'never typed' }),
      block('toolu_d', 'screenshot', {}),
    ],
  },
  { name: 'one block', status: 200, blocks: [block('toolu_one', 'scroll', { scroll_direction: 'up', scroll_amount: 1 })] },
]

t.test('tool_result blocks equal what the SDK\'s toolset renders for the same blocks and outcomes', async (t) => {
  for (const turn of TURNS) {
    t.test(turn.name, async (t) => {
      const ours = await build(t, { adapters: [anthropicAdapter], ...(turn.failKeys && { fake: { beforeCall: failOnKeys } }) })
      const reporter = await build(t, { adapters: [anthropicAdapter], ...(turn.failKeys && { fake: { beforeCall: failOnKeys } }) })
      const answer = await post(ours.app, '/computer/anthropic', turn.blocks.length === 1 ? turn.blocks[0] : turn.blocks)
      t.equal(answer.status, turn.status)
      const expected = await sdkAnswer(new ReportingToolset((b) => post(reporter.app, '/computer/anthropic', b)), turn.blocks)
      t.strictSame(answer.body, expected)
      // Inputs only: after a failure the pipeline also reads the screen, which no text-only error result carries.
      const inputs = (calls: Array<{ call: string }>) => calls.map((c) => c.call).filter((c) => c !== 'screenshot')
      t.strictSame(inputs(ours.driver.calls), inputs(reporter.driver.calls), 'the same inputs reached the desktop')
    })
  }
})

t.test('what the blocks say, whole', async (t) => {
  const { app } = await build(t, { adapters: [anthropicAdapter] })
  const { status, body } = await post(app, '/computer/anthropic', [
    block('toolu_1', 'key', { text: 'ctrl+s' }),
    block('toolu_2', 'hold_key', { text: 'shift', duration: 0.05 }),
    block('toolu_3', 'scroll', { scroll_direction: 'down', scroll_amount: 2 }),
    block('toolu_4', 'wait', { duration: 0.05 }),
    block('toolu_5', 'mouse_move', { coordinate: [7, 9] }),
    block('toolu_6', 'cursor_position', {}),
    block('toolu_7', 'zoom', { region: [0, 0, 200, 100] }),
  ])
  t.equal(status, 200)
  const result = (id: string, content: unknown) => ({ type: 'tool_result', tool_use_id: id, toolset_name: 'computer', content })
  t.strictSame(body.slice(0, 6), [
    result('toolu_1', [{ type: 'text', text: 'Pressed ctrl+s.' }]),
    result('toolu_2', [{ type: 'text', text: 'Held shift for 0.05s.' }]),
    result('toolu_3', [{ type: 'text', text: 'Scrolled down.' }]),
    result('toolu_4', [{ type: 'text', text: 'Waited 0.05s.' }]),
    result('toolu_5', [{ type: 'text', text: 'Moved the mouse.' }]),
    result('toolu_6', [{ type: 'text', text: 'X=7,Y=9' }]),
  ])
  t.strictSame(imageSize(body[6].content[0].source.data), { width: 200, height: 100 }, 'a zoom is the region at its own size')
})

t.test('a turn refused before anything ran: the call at fault carries the error, the others say none ran', async (t) => {
  const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
  const { status, body } = await post(app, '/computer/anthropic', [
    block('toolu_1', 'left_click', { coordinate: [10, 10] }),
    block('toolu_2', 'left_click', { coordinate: [10, 2000] }),
    block('toolu_3', 'screenshot', {}),
  ])
  t.equal(status, 400)
  t.strictSame(body, [
    { type: 'tool_result', tool_use_id: 'toolu_1', toolset_name: 'computer', content: NOT_EXECUTED_REFUSED, is_error: true },
    { type: 'tool_result', tool_use_id: 'toolu_2', toolset_name: 'computer', content: [{ type: 'text', text: 'actions[1]: coordinates (10, 2000) is outside the 1280x800 screen: x must be 0..1279 and y 0..799' }], is_error: true },
    { type: 'tool_result', tool_use_id: 'toolu_3', toolset_name: 'computer', content: NOT_EXECUTED, is_error: true },
  ])
  t.strictSame(driver.calls, [], 'nothing ran')
})

t.test('refusals before anything runs, whole', async (t) => {
  const { app, driver } = await build(t, { adapters: [anthropicAdapter] })
  const refused = (message: string, extra = {}) => ({ ...badRequest('ERR_INVALID_PAYLOAD', `anthropic computer_toolset_20260801: ${message}`), ...extra })
  const cases: Array<{ name: string, body: unknown, query?: string, response: unknown }> = [
    { name: 'the computer tool\'s input sent to the toolset', body: { action: 'left_click', coordinate: [1, 2] },
      response: refused('this is the computer tool\'s input {"action", …}; computer_toolset_20260801 takes the member tool_use blocks (name = the member, toolset_name "computer"): for the computer tool choose its version with tool_version (e.g. computer_20251124)') },
    { name: 'a computer tool block sent to the toolset', body: { type: 'tool_use', id: 'toolu_x', name: 'computer', input: { action: 'screenshot' } },
      response: refused('this is a tool_use block of the computer tool (name "computer"); computer_toolset_20260801 takes the member tool_use blocks (name = the member, toolset_name "computer"): for the computer tool choose its version with tool_version (e.g. computer_20251124)') },
    { name: 'an unknown member', body: block('toolu_x', 'open_app'),
      response: refused('name must be one of "key", "hold_key", "type", "cursor_position", "mouse_move", "left_mouse_down", "left_mouse_up", "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "triple_click", "scroll", "wait", "screenshot", "zoom", not "open_app"') },
    { name: 'a field the member does not take', body: block('toolu_x', 'left_mouse_down', { coordinate: [1, 2] }),
      response: refused('input must be empty: left_mouse_down takes no fields') },
    { name: 'a bad field in the second block of a turn', body: [block('toolu_1', 'left_click'), block('toolu_2', 'zoom', { region: [1, 2] })],
      response: refused('[1]: region must be a list of 4 non-negative integers [x0, y0, x1, y1]', { failed_index: 1 }) },
    { name: 'a missing field', body: block('toolu_x', 'left_click_drag', { coordinate: [1, 2] }),
      response: refused('missing required field \'start_coordinate\' in input') },
    { name: 'key repeat out of bounds', body: block('toolu_x', 'key', { text: 'a', repeat: 0 }),
      response: refused('repeat must be a whole number from 1 to 100') },
    { name: 'an empty turn', body: [], response: refused('the list of blocks is empty: send the turn\'s content, with at least one computer member tool_use block') },
    { name: 'a turn with no member call', body: [{ type: 'text', text: 'Done.' }, { type: 'tool_use', id: 'toolu_x', name: 'computer', input: { action: 'screenshot' } }],
      response: refused('the turn has no computer toolset member call: a member is a tool_use block with toolset_name "computer" (the computer tool\'s blocks, name "computer", take tool_version=computer_20251124)') },
    { name: 'a block of the turn that is no block', body: [block('toolu_1', 'left_click'), 'left_click'],
      response: refused('[1]: each item must be a content block of the turn, an object with a "type" (a computer member: a tool_use block with toolset_name "computer")', { failed_index: 1 }) },
    { name: 'the same id twice', body: [block('toolu_1', 'left_click'), block('toolu_1', 'right_click')],
      response: refused('[1]: tool_use id \'toolu_1\' is given twice; each block needs its own', { failed_index: 1 }) },
    { name: 'the tool_use_id query', body: block('toolu_x', 'screenshot'), query: '?tool_use_id=toolu_x',
      response: refused('the tool_use_id query does not apply: every member tool_use block carries its own id') },
    { name: 'screenshot=true', body: block('toolu_x', 'left_click'), query: '?screenshot=true',
      response: refused('screenshot=true does not apply: a member answers as the SDK does, and the model asks for the screen with the screenshot member') },
  ]
  for (const c of cases) {
    for (const route of ['/computer/anthropic/translate', '/computer/anthropic']) {
      const { status, body } = await post(app, route + (c.query ?? ''), c.body)
      t.equal(status, 400, `${c.name} (${route})`)
      t.strictSame(body, c.response, `${c.name} (${route})`)
    }
  }
  t.strictSame(driver.calls, [], 'nothing reached the driver')
})

t.test('the screenshot Claude sees: a screen over its image limits is scaled down, and coordinates are in that image', async (t) => {
  const { app, driver } = await build(t, { adapters: [anthropicAdapter], fake: { screen: { width: 2560, height: 1440 } } })
  // min(1568 / 2560 = 0.6125, sqrt(1150000 / (2560 * 1440)) = 0.55853…) → floor(1429.8) x floor(804.3) = 1429x804.
  const translated = await post(app, '/computer/anthropic/translate', block('toolu_1', 'left_click', { coordinate: [714, 402] }))
  t.equal(translated.body.display_width_px, 1429)
  t.equal(translated.body.display_height_px, 804)
  const shot = await post(app, '/computer/anthropic', block('toolu_2', 'screenshot'))
  t.strictSame(imageSize(shot.body[0].content[0].source.data), { width: 1429, height: 804 })
  driver.calls.length = 0
  await post(app, '/computer/anthropic', block('toolu_3', 'left_click', { coordinate: [714, 402] }))
  // Pixel centre to pixel centre: floor(714.5 * 2560 / 1429) = 1280, floor(402.5 * 1440 / 804) = 720.
  t.strictSame(driver.calls.find((c) => c.call === 'moveMouse'), { call: 'moveMouse', x: 1280, y: 720 }, 'the middle of the image is the middle of the screen')
  const declared = await post(app, '/computer/anthropic/translate?display_width_px=1280&display_height_px=720', block('toolu_4', 'left_click', { coordinate: [640, 360] }))
  t.equal(declared.body.display_width_px, 1280, 'a declared display is used as declared')
})

t.test('GET /adapters lists the toolset first, as the default', async (t) => {
  const { app } = await build(t, { adapters: [anthropicAdapter] })
  const response = await app.inject({ method: 'GET', url: '/adapters' })
  const anthropic = response.json().adapters.find((a: { name: string }) => a.name === 'anthropic')
  t.strictSame(anthropic.versions.map((v: { name: string }) => v.name), ['computer_toolset_20260801', 'computer_20251124', 'computer_20250124', 'computer_20241022',
    'bash_20250124', 'bash_20241022', 'text_editor_20250728', 'text_editor_20250429', 'text_editor_20250124', 'text_editor_20241022'])
  t.match(anthropic.coordinates, /toolset: the pixels of the screenshot Claude is shown/)
})

t.test('a turn that fails with the left button down releases it: nothing is left held', async (t) => {
  const { app, driver } = await build(t, { adapters: [anthropicAdapter], fake: { beforeCall: failOnKeys } })
  const { status, body } = await post(app, '/computer/anthropic', [
    block('toolu_1', 'left_mouse_down'),
    block('toolu_2', 'key', { text: 'shift+a' }),
    block('toolu_3', 'left_mouse_up'),
  ])
  t.equal(status, 500)
  t.strictSame(body.map((b: { is_error?: boolean }) => b.is_error ?? false), [false, true, true])
  t.equal(body[2].content, NOT_EXECUTED)
  const calls = driver.calls.map((c) => c.call)
  t.ok(calls.indexOf('buttonUp') > calls.indexOf('buttonDown') && calls.includes('buttonDown'), `the button went up after the failure (${calls.join(', ')})`)
})
