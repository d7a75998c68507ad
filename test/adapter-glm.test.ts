/**
 * The glm adapter on the replies in fixtures/glm/translate.json (each names its source): every
 * reply through POST /computer/glm/translate as a whole body (points stay on the 0–999 grid);
 * outcomes through POST /computer/glm over the fake 1280x800 screen as whole bodies, with the
 * memory and element_info handed back; and every refusal with its whole error body on both
 * routes, nothing run.
 */
import t from 'tap'
import { glmAdapter } from '../adapters/glm/index.ts'
import { build, post } from './helpers/build.ts'
import { badRequest, caseByName, refusedOnBothRoutes, sameAsText, leftClickAt, executedOnFake } from './helpers/adapter-cases.ts'

const reply = caseByName<{ payload: string }>('glm')

interface Case {
  id: string
  reasoning?: string
  thought: string
  name: string
  args: Record<string, unknown>
  text: string
  actions: unknown[]
  memory?: string
  finished?: 'DONE' | 'FAIL'
}

const CASES: Case[] = [
  {
    id: 'issue-box',
    thought: 'The dialog asks to confirm saving; the OK button is at the bottom right.',
    name: 'left_click',
    args: { start_box: '[586, 446]', element_info: 'OK button' },
    text: "left_click(start_box='[586, 446]', element_info='OK button')",
    actions: [{ action: 'click_mouse', button: 'left', coordinates: [586, 446] }],
    memory: '[{"file": "report.txt"}]',
  },
  {
    id: 'think-right-click',
    reasoning: 'The file icon has a context menu with Rename.',
    thought: 'I will open the context menu of the file.',
    name: 'right_click',
    args: { start_box: '[120,340]', element_info: 'report.txt icon' },
    text: "right_click(start_box='[120,340]', element_info='report.txt icon')",
    actions: [{ action: 'click_mouse', button: 'right', coordinates: [120, 340] }],
  },
  { id: 'middle-click', thought: 'Open the link in a new tab.', name: 'middle_click', args: { start_box: '[500,500]', element_info: 'Docs link' }, text: "middle_click(start_box='[500,500]', element_info='Docs link')", actions: [{ action: 'click_mouse', button: 'middle', coordinates: [500, 500] }] },
  { id: 'hover', thought: 'Show the tooltip.', name: 'hover', args: { start_box: '[250,100]', element_info: 'Help icon' }, text: "hover(start_box='[250,100]', element_info='Help icon')", actions: [{ action: 'move_mouse', coordinates: [250, 100] }] },
  { id: 'double-click', thought: 'Open the folder.', name: 'left_double_click', args: { start_box: '[80,200]', element_info: 'Documents folder' }, text: "left_double_click(start_box='[80,200]', element_info='Documents folder')", actions: [{ action: 'click_mouse', button: 'left', coordinates: [80, 200], num_clicks: 2 }] },
  { id: 'drag', thought: 'Move the file into the folder.', name: 'left_drag', args: { start_box: '[100,100]', end_box: '[400,300]', element_info: 'report.txt' }, text: "left_drag(start_box='[100,100]', end_box='[400,300]', element_info='report.txt')", actions: [{ action: 'drag_mouse', path: [[100, 100], [400, 300]] }] },
  { id: 'key', thought: 'Copy the selection.', name: 'key', args: { keys: 'ctrl+c' }, text: "key(keys='ctrl+c')", actions: [{ action: 'press_key', keys: ['ctrl', 'c'] }] },
  { id: 'type', thought: 'Type the file name.', name: 'type', args: { content: 'report.txt' }, text: "type(content='report.txt')", actions: [{ action: 'type_text', text: 'report.txt' }] },
  { id: 'scroll', thought: 'Scroll down to see more results.', name: 'scroll', args: { start_box: '[500,600]', direction: 'down', step: 5, element_info: 'results list' }, text: "scroll(start_box='[500,600]', direction='down', step=5, element_info='results list')", actions: [{ action: 'scroll', coordinates: [500, 600], delta_y: 5 }] },
  { id: 'scroll-default-step', thought: 'Back to the top.', name: 'scroll', args: { start_box: '[500,600]', direction: 'up' }, text: "scroll(start_box='[500,600]', direction='up')", actions: [{ action: 'scroll', coordinates: [500, 600], delta_y: -5 }] },
  { id: 'wait', thought: 'The page is still loading.', name: 'WAIT', args: {}, text: 'WAIT()', actions: [{ action: 'wait', duration: 5 }] },
  { id: 'done', thought: 'The file is saved; the task is complete.', name: 'DONE', args: {}, text: 'DONE()', actions: [], finished: 'DONE' },
  { id: 'fail', thought: 'There is no printer configured, so this cannot be done.', name: 'FAIL', args: {}, text: 'FAIL()', actions: [], finished: 'FAIL' },
  { id: 'no-box', thought: 'Click the search field.', name: 'left_click', args: { start_box: '[100,200]', element_info: 'Search field' }, text: "left_click(start_box='[100,200]', element_info='Search field')", actions: [{ action: 'click_mouse', button: 'left', coordinates: [100, 200] }] },
]

const elementInfo = (args: Record<string, unknown>) => typeof args.element_info === 'string' ? args.element_info : null

t.test('translate: GLM-V PC replies become unified actions on the 0–999 grid', async (t) => {
  const { app, driver } = await build(t, { adapters: [glmAdapter] })
  for (const c of CASES) {
    const { payload: text, source } = reply(c.id)
    const { status, body } = await post(app, '/computer/glm/translate', { response: text })
    t.equal(status, 200, c.id)
    t.strictSame(body, {
      adapter: 'glm',
      version: 'pc',
      actions: c.actions,
      screenshot: true,
      display_width_px: 1000,
      display_height_px: 1000,
      meta: {
        reasoning: c.reasoning ?? null,
        thought: c.thought,
        memory: c.memory ?? '[]',
        call: { name: c.name, args: c.args, text: c.text },
        element_info: elementInfo(c.args),
        finished: c.finished ?? null,
      },
    }, `${c.id} (${source})`)
    await sameAsText(t, app, '/computer/glm/translate', text, c.actions, c.id)
  }
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

t.test('translate: how the reference parser finds the action', async (t) => {
  const { app } = await build(t, { adapters: [glmAdapter] })
  const actionOf = async (text: string) => {
    const { status, body } = await post(app, '/computer/glm/translate', { response: text })
    return { status, call: body.meta?.call?.text, thought: body.meta?.thought, memory: body.meta?.memory }
  }
  t.strictSame(await actionOf("<think>t</think>I will click.\nleft_click(start_box='[500,300]', element_info='OK') That should work (hopefully).\nMemory:\n[]"),
    { status: 200, call: "left_click(start_box='[500,300]', element_info='OK')", thought: 'I will click.', memory: '[]' }, 'trailing prose is not part of the call')
  t.strictSame(await actionOf("type(content='hello') Now let's wait and see.\nMemory:\n[]"),
    { status: 200, call: "type(content='hello')", thought: null, memory: '[]' }, "a lower-case 'wait' in prose is not the action")
  t.strictSame(await actionOf("<|begin_of_box|>type(content='later run left_click(start_box=(1,2)) manually')<|end_of_box|>\nMemory:\n[]"),
    { status: 200, call: "type(content='later run left_click(start_box=(1,2)) manually')", thought: null, memory: '[]' }, 'a call inside a string is text')
  t.strictSame(await actionOf('finish <|begin_of_box|>done()<|end_of_box|>\nMemory:\n[]'),
    { status: 200, call: 'done()', thought: 'finish', memory: '[]' }, 'terminals in any case')
  t.strictSame(await actionOf('Nothing to do yet, WAIT\nMemory:\n[]'),
    { status: 200, call: 'WAIT()', thought: 'Nothing to do yet,', memory: '[]' }, 'a bare WAIT')
  t.strictSame(await actionOf("<|begin_of_box|>key(keys='ctrl+tab+tab')<|end_of_box|>"),
    { status: 200, call: "key(keys='ctrl+tab+tab')", thought: null, memory: null }, 'no Memory: is null')
  t.strictSame(await actionOf("Type it.\n<|begin_of_box|>type(content='it's here, isn't it?')<|end_of_box|>\nMemory:\n[]"),
    { status: 200, call: "type(content='it's here, isn't it?')", thought: 'Type it.', memory: '[]' }, 'an apostrophe in the text does not end it')
  const apostrophes = await post(app, '/computer/glm/translate', { response: "left_click(start_box='[1,2]', element_info='Mike's file') then more prose's\nMemory:\n[]" })
  t.strictSame(apostrophes.body.meta.element_info, "Mike's file", 'nor in element_info, with prose after the call')
  const { body } = await post(app, '/computer/glm/translate', { response: "key(keys='down+down')" })
  t.strictSame(body.actions, [{ action: 'press_key', keys: ['down'] }, { action: 'press_key', keys: ['down'] }], 'a repeated last key repeats the combo')
  const held = await post(app, '/computer/glm/translate', { response: "left_click(start_box='[500,500]', hold_keys='ctrl', element_info='row')" })
  t.strictSame(held.body.actions, [{ action: 'click_mouse', button: 'left', coordinates: [500, 500], hold_keys: ['ctrl'] }], 'hold_keys is held through the click')
})

t.test('execute: the issue example clicks the grid point on the screen and hands back memory and element_info', async (t) => {
  const { calls, body } = await executedOnFake(t, glmAdapter, '/computer/glm', { response: reply('issue-box').payload })
  // (586, 446) on the 0–999 grid of a 1280x800 screen: floor(586.5 × 1.28) = 750, floor(446.5 × 0.8) = 357.
  t.strictSame(calls, [...leftClickAt(750, 357), { call: 'screenshot' }])
  t.strictSame(body, {
    reasoning: null,
    thought: 'The dialog asks to confirm saving; the OK button is at the bottom right.',
    call: { name: 'left_click', args: { start_box: '[586, 446]', element_info: 'OK button' }, text: "left_click(start_box='[586, 446]', element_info='OK button')" },
    element_info: 'OK button',
    memory: '[{"file": "report.txt"}]',
    actions: [{ action: 'click_mouse', button: 'left', coordinates: [586, 446] }],
    status: 'done',
    finished: null,
    cursor: [586, 446],
    screenshot: { width: 1280, height: 800 },
    error: null,
  })
})

t.test('execute: DONE() runs nothing and is reported', async (t) => {
  const { calls, body } = await executedOnFake(t, glmAdapter, '/computer/glm', { response: reply('done').payload })
  t.strictSame(calls, [])
  t.strictSame(body, {
    reasoning: null,
    thought: 'The file is saved; the task is complete.',
    call: { name: 'DONE', args: {}, text: 'DONE()' },
    element_info: null,
    memory: '[]',
    actions: [],
    status: 'reported',
    finished: 'DONE',
    cursor: null,
    screenshot: null,
    error: null,
  })
})

t.test('refusals: a reply without a readable action is a 400 quoting it, and nothing runs', async (t) => {
  const unparseable = (message: string) => badRequest('ERR_UNPARSEABLE_OUTPUT', message)
  const cannotRun = (call: string, why: string) => unparseable(`cannot run the GLM action ${JSON.stringify(call)}: ${why}`)
  await refusedOnBothRoutes(t, glmAdapter, [
    { name: 'an empty reply', payload: { response: ' ' }, body: unparseable('the GLM reply is empty') },
    { name: 'no action', payload: { response: 'just thinking out loud\nMemory:\n[]' }, body: unparseable('cannot find the GLM action (a call like left_click(start_box=\'[x,y]\') or DONE()): no action in "just thinking out loud"') },
    {
      name: 'a box without an action, whatever the text before it says',
      payload: { response: "Earlier I did left_click(start_box='[1,2]', element_info='old'). <|begin_of_box|>no action here<|end_of_box|>\nMemory:\n[]" },
      body: unparseable('cannot find the GLM action (a call like left_click(start_box=\'[x,y]\') or DONE()): the box holds no action: "no action here"'),
    },
    { name: 'positional arguments', payload: { response: "left_click('[1,2]')" }, body: cannotRun("left_click('[1,2]')", 'write the arguments by name, like left_click(start_box=…, element_info=…, hold_keys=…)') },
    { name: 'an unknown argument', payload: { response: "key(key='enter')" }, body: cannotRun("key(key='enter')", "key has no argument 'key' (it takes keys)") },
    { name: 'a click without a point', payload: { response: "left_click(element_info='no box')" }, body: cannotRun("left_click(element_info='no box')", "needs start_box, like start_box='[500,500]'") },
    { name: 'a point that is not two numbers', payload: { response: "left_click(start_box='[1,2,3]')" }, body: cannotRun("left_click(start_box='[1,2,3]')", 'start_box="[1,2,3]" has 3 numbers; a point has 2, [x,y]') },
    { name: 'a point with words', payload: { response: "left_click(start_box='[x,y]')" }, body: cannotRun("left_click(start_box='[x,y]')", 'start_box="[x,y]" is not \'[x,y]\' with two numbers on the 0–999 grid') },
    { name: 'a bad direction', payload: { response: "scroll(start_box='[1,2]', direction='sideways')" }, body: cannotRun("scroll(start_box='[1,2]', direction='sideways')", 'direction must be \'up\' or \'down\', not "sideways"') },
    { name: 'a bad step', payload: { response: "scroll(start_box='[1,2]', direction='up', step=0)" }, body: cannotRun("scroll(start_box='[1,2]', direction='up', step=0)", 'step must be a whole number of wheel notches, not 0') },
    { name: 'an unclosed call', payload: { response: "go <|begin_of_box|>scroll(start_box='[500,500]', direction='down'\nMemory:\n[]" }, body: cannotRun("scroll(start_box='[500,500]', direction='down'", "missing ')'") },
    { name: 'code in an argument', payload: { response: "type(content=__import__('os').popen('id').read())" }, body: cannotRun("type(content=__import__('os').popen('id').read())", '__import__ is not a literal; arguments may only be numbers, strings, True, False, None, or lists of them') },
  ])
})

t.test('a point past the grid: a plain 400 from translate, the native answer with its error from execute', async (t) => {
  const { app, driver } = await build(t, { adapters: [glmAdapter] })
  const error = badRequest('ERR_POINT_OUT_OF_BOUNDS', "coordinates (1000, 5) is outside GLM-V's 0–999 grid (thousandths of the screenshot): x must be 0..999 and y 0..999")
  const translated = await post(app, '/computer/glm/translate', { response: "left_click(start_box='[1000,5]')" })
  t.equal(translated.status, 400)
  t.strictSame(translated.body, error)
  const executed = await post(app, '/computer/glm', { response: "left_click(start_box='[1000,5]')" })
  t.equal(executed.status, 400)
  t.strictSame(executed.body, {
    reasoning: null,
    thought: null,
    call: { name: 'left_click', args: { start_box: '[1000,5]' }, text: "left_click(start_box='[1000,5]')" },
    element_info: null,
    memory: null,
    actions: [{ action: 'click_mouse', button: 'left', coordinates: [1000, 5] }],
    status: 'not_run',
    finished: null,
    cursor: null,
    screenshot: null,
    error,
  })
  t.strictSame(driver.calls, [])
})

t.test('GET /adapters lists glm with its one version and its grid', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'GET', url: '/adapters' })
  const listed = response.json().adapters.find((a: { name: string }) => a.name === 'glm')
  t.ok(listed, 'listed')
  t.strictSame(listed.versions.map((v: { name: string }) => v.name), ['pc'])
  t.equal(listed.coordinates, "GLM-V's 0–999 grid (thousandths of the screenshot), whatever the display size")
})
