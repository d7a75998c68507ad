/**
 * The adapter against the `openai` package's own types (v6), checked by `tsc --noEmit`: our
 * computer_call_output must be assignable to `ResponseInputItem.ComputerCallOutput` (and be a
 * `ResponseInputItem`), the tool versions must be the package's computer tool types, our
 * action types the package's action union (single and batched), and every action and whole
 * `computer_call` the package types must fit our input. A drift stops the build; the test
 * below then sends package-typed values through the server and hands the answer back.
 */
import t from 'tap'
import type { Static } from '@sinclair/typebox'
import type {
  ComputerAction, ComputerTool, ComputerUsePreviewTool, ResponseComputerToolCall, ResponseInputItem,
} from 'openai/resources/responses/responses'
import { openaiAdapter, OpenaiComputerCallOutput, type OpenaiBody } from '../adapters/openai/index.ts'
import type { OpenaiAction, OpenaiActionType } from '../adapters/openai/actions.ts'
import type { BatchCall, PreviewCall } from '../adapters/openai/computer-call.ts'
import type { ToolVersion } from '../adapters/openai/query.ts'
import { build, post } from './helpers/build.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const same = <A, B>(proof: Equal<A, B>) => proof

type Answer = Static<typeof OpenaiComputerCallOutput>
// Once it carries a call_id, our answer is the package's input item (our `error` and the
// guide's `detail` are extra fields, which a structural type allows).
const toItem = (answer: Answer & { call_id: string }): ResponseInputItem.ComputerCallOutput => answer
const toInput = (answer: Answer & { call_id: string }): ResponseInputItem => answer
// Without one, it lacks nothing else.
const withoutCallId = (answer: Answer): Omit<ResponseInputItem.ComputerCallOutput, 'call_id'> => answer

// The tool versions are the package's computer tool types, no more and no fewer.
same<ToolVersion, ComputerTool['type'] | ComputerUsePreviewTool['type']>(true)

// Our action types are the package's, for `action` and for the batched `actions`.
type SdkAction = NonNullable<ResponseComputerToolCall['action']>
same<OpenaiActionType, SdkAction['type']>(true)
same<OpenaiActionType, ComputerAction['type']>(true)

// Each action the package types fits our schema, and names no field we lack.
type Fits<A> = [Exclude<keyof A, keyof Extract<OpenaiAction, { type: A extends { type: infer T } ? T : never }>>] extends [never]
  ? A extends OpenaiAction ? true : false
  : false
const actions: Array<true> = [
  true satisfies Fits<ResponseComputerToolCall.Click>,
  true satisfies Fits<ResponseComputerToolCall.DoubleClick>,
  true satisfies Fits<ResponseComputerToolCall.Drag>,
  true satisfies Fits<ResponseComputerToolCall.Keypress>,
  true satisfies Fits<ResponseComputerToolCall.Move>,
  true satisfies Fits<ResponseComputerToolCall.Screenshot>,
  true satisfies Fits<ResponseComputerToolCall.Scroll>,
  true satisfies Fits<ResponseComputerToolCall.Type>,
  true satisfies Fits<ResponseComputerToolCall.Wait>,
  true satisfies Fits<ComputerAction.Click>,
  true satisfies Fits<ComputerAction.DoubleClick>,
  true satisfies Fits<ComputerAction.Drag>,
  true satisfies Fits<ComputerAction.Keypress>,
  true satisfies Fits<ComputerAction.Move>,
  true satisfies Fits<ComputerAction.Screenshot>,
  true satisfies Fits<ComputerAction.Scroll>,
  true satisfies Fits<ComputerAction.Type>,
  true satisfies Fits<ComputerAction.Wait>,
]

// The whole item as the package types it is a computer-tool body, and a single-action one a
// computer_use_preview body; the item names no field we lack.
const asBody = (call: ResponseComputerToolCall): BatchCall => call
const asPreview = (call: ResponseComputerToolCall & { action: SdkAction, actions?: undefined }): PreviewCall => call
true satisfies [Exclude<keyof ResponseComputerToolCall, keyof BatchCall>] extends [never] ? true : false

t.test('a computer_call typed by the package goes in, and the answer is the package\'s input item', async (t) => {
  t.equal(actions.length, 18, 'one check per action, single and batched')
  const tool: ComputerUsePreviewTool = { type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'linux' }
  const call: ResponseComputerToolCall = {
    type: 'computer_call',
    id: 'cu_67cb',
    call_id: 'call_nEJ',
    action: { type: 'scroll', x: 512, y: 384, scroll_x: 0, scroll_y: 360, keys: null },
    pending_safety_checks: [{ id: 'cu_sc_67cb', code: 'malicious_instructions', message: 'Please acknowledge this warning.' }],
    status: 'completed',
  }
  const body: OpenaiBody = asPreview({ ...call, action: call.action!, actions: undefined })
  const { app, driver } = await build(t, { adapters: [openaiAdapter] })
  const query = `tool_version=${tool.type}&display_width_px=${tool.display_width}&display_height_px=${tool.display_height}&acknowledge_safety_checks=true`
  const { status, body: answer } = await post(app, `/computer/openai?${query}`, body)
  t.equal(status, 200)
  const item = toItem(answer as Answer & { call_id: string })
  t.equal(item.call_id, call.call_id)
  t.strictSame(item.acknowledged_safety_checks, call.pending_safety_checks)
  t.match(item.output.image_url, /^data:image\/png;base64,/)
  const next: ResponseInputItem[] = [toInput(answer as Answer & { call_id: string })]
  t.strictSame(next, [answer])
  t.strictSame(driver.calls.slice(0, 2), [{ call: 'moveMouse', x: 640, y: 400 }, { call: 'wheel', dx: 0, dy: 3 }], '360 px is 3 notches, at the point scaled to the screen')

  const batch: ResponseComputerToolCall = { ...call, action: undefined, actions: [{ type: 'wait' }, { type: 'keypress', keys: ['CTRL', 'L'] }], pending_safety_checks: [] }
  const second = await post(app, '/computer/openai?wait_seconds=0.01&screenshot=false', asBody(batch))
  t.equal(second.status, 200)
  t.strictSame(withoutCallId(second.body as Answer), { type: 'computer_call_output', call_id: 'call_nEJ', output: { type: 'computer_screenshot' } })
})
