/**
 * The uitars adapter on the corpus in fixtures/uitars/translate.json (recorded UI-TARS and
 * Doubao replies, the official parsers' own test inputs, and — marked there — the prompts'
 * documented call formats): each reply through POST /computer/uitars/translate as a whole
 * body, outcomes through POST /computer/uitars over the fake 1280x800 screen as whole bodies,
 * and every refusal with its whole error body.
 */
import t from 'tap'
import { until } from './helpers/desktop.ts'
import { adapterCases, leftClickAt } from './helpers/adapter-cases.ts'
import { uitarsAdapter } from '../adapters/uitars/index.ts'
import { build, post } from './helpers/build.ts'
import { errorBody } from './helpers/error-body.ts'

const replies = adapterCases<{ payload: string }>('uitars')
const corpus = new Map(replies.map((r) => [r.name, r.payload]))
const reply = (id: string) => {
  const text = corpus.get(id)
  if (text === undefined) throw new Error(`no reply ${id} in the corpus`)
  return text
}
/** The text between two markers of a reply, for long thoughts quoted from it. */
const between = (text: string, start: string, end: string) => text.slice(text.indexOf(start) + start.length, text.indexOf(end)).trim()

type App = Awaited<ReturnType<typeof build>>['app']
async function say (app: App, url: string, text: string) {
  const response = await app.inject({ method: 'POST', url, payload: text, headers: { 'content-type': 'text/plain; charset=utf-8' } })
  return { status: response.statusCode, body: response.json() }
}

function pngSize (base64: string) {
  const png = Buffer.from(base64, 'base64')
  if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return null
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

const call = (name: string, args: Record<string, string>, text: string, first: number, count: number) => ({ name, args, text, first, count })
const click = (x: number, y: number) => ({ action: 'click_mouse', button: 'left', coordinates: [x, y] })
const typeText = (text: string) => ({ action: 'type_text', text })
const enter = { action: 'press_key', keys: ['enter'] }

interface TranslateCase {
  id: string
  text?: string
  query?: string
  version?: 'relative' | 'absolute'
  space?: [number, number]
  actions: unknown[]
  thought?: string | null
  reflection?: string
  action_summary?: string
  calls: ReturnType<typeof call>[]
  finished?: string
  call_user?: string
}

const CASES: TranslateCase[] = [
  {
    id: 'thought-click',
    actions: [click(100, 200)],
    thought: 'I need to click this button',
    calls: [call('click', { start_box: '(100,200)' }, "click(start_box='(100,200)')", 0, 1)],
  },
  {
    id: 'reflection-summary-type-at',
    actions: [click(300, 400), typeText('Hello')],
    reflection: 'This is a reflection',
    action_summary: 'This is a summary',
    calls: [call('type', { text: 'Hello', start_box: '(300,400)' }, "type(text='Hello', start_box='(300,400)')", 0, 2)],
  },
  {
    id: 'two-actions',
    actions: [click(100, 200), click(300, 400), typeText('Hello')],
    thought: 'Perform multiple actions',
    calls: [
      call('click', { start_box: '(100,200)' }, "click(start_box='(100,200)')", 0, 1),
      call('type', { text: 'Hello', start_box: '(300,400)' }, "type(text='Hello', start_box='(300,400)')", 1, 2),
    ],
  },
  {
    id: 'bbox-m8',
    actions: [click(637, 964)],
    thought: between(reply('bbox-m8'), 'Thought: ', '\nAction:'),
    calls: [call('click', { start_box: '<bbox>637 964 637 964</bbox>' }, "click(start_box='<bbox>637 964 637 964</bbox>')", 0, 1)],
  },
  {
    id: 'square-box-m8',
    actions: [click(637, 964)],
    thought: between(reply('square-box-m8'), 'Thought: ', '\nAction:'),
    calls: [call('click', { start_box: '[637,964,637,964]' }, "click(start_box='[637,964,637,964]')", 0, 1)],
  },
  {
    id: 'square-point',
    actions: [click(130, 226)],
    thought: 'I need to click on this element',
    calls: [call('click', { start_box: '[130,226]' }, "click(start_box='[130,226]')", 0, 1)],
  },
  {
    id: 'drag-square-points',
    actions: [{ action: 'drag_mouse', path: [[130, 226], [200, 226]] }],
    thought: 'I need to click on this element',
    calls: [call('drag', { start_box: '[130,226]', end_box: '[200,226]' }, "drag(start_box='[130,226]', end_box='[200,226]')", 0, 1)],
  },
  {
    id: 'box-four',
    // The box's centre, as UI-TARS-desktop's DefaultActionParser test reads it: (638, 349).
    actions: [click(638, 349)],
    thought: 'I need to click on this element',
    calls: [call('click', { start_box: '[348, 333, 928, 365]' }, "click(start_box='[348, 333, 928, 365]')", 0, 1)],
  },
  {
    id: 'box-four-browser',
    // Centre (300, 117.5): the half rounds up.
    actions: [click(300, 118)],
    thought: 'I need to click on this element in the browser',
    calls: [call('click', { start_box: '[287, 111, 313, 124]' }, "click(start_box='[287, 111, 313, 124]')", 0, 1)],
  },
  {
    id: 'no-action-label-double-quotes',
    actions: [click(100, 200)],
    thought: null,
    calls: [call('click', { start_box: '(100,200)' }, 'click(start_box="(100,200)")', 0, 1)],
  },
  {
    id: 'o1-format',
    actions: [click(100, 200)],
    thought: 'I need to perform this action',
    action_summary: 'Click and type text',
    calls: [call('click', { start_box: '(100,200)' }, "click(start_box='(100,200)')", 0, 1)],
  },
  {
    id: 'doubao-six-actions',
    actions: [click(403, 81), typeText('baidu.com'), enter, click(403, 431), typeText('北京天气'), enter],
    thought: between(reply('doubao-six-actions'), 'Thought: ', '\nAction:'),
    calls: [
      call('click', { start_box: '<point>403 81</point>' }, "click(point='<point>403 81</point>')", 0, 1),
      call('type', { content: 'baidu.com' }, "type(content='baidu.com')", 1, 1),
      call('hotkey', { key: 'enter' }, "hotkey(key='enter')", 2, 1),
      call('click', { start_box: '<point>403 431</point>' }, "click(point='<point>403 431</point>')", 3, 1),
      call('type', { content: '北京天气' }, "type(content='北京天气')", 4, 1),
      call('hotkey', { key: 'enter' }, "hotkey(key='enter')", 5, 1),
    ],
  },
  {
    id: 'bbox-two-numbers',
    actions: [click(100, 200), click(300, 400), typeText('Hello')],
    thought: 'Perform multiple actions',
    calls: [
      call('click', { start_box: '<bbox>100 200</bbox>' }, "click(start_box='<bbox>100 200</bbox>')", 0, 1),
      call('type', { text: 'Hello', start_box: '<bbox>300 400</bbox>' }, "type(text='Hello', start_box='<bbox>300 400</bbox>')", 1, 2),
    ],
  },
  {
    id: 'think-then-thought',
    actions: [click(510, 150)],
    thought: between(reply('think-then-thought'), 'Thought: ', '\nAction:'),
    calls: [call('click', { start_box: '<point>510 150</point>' }, "click(point='<point>510 150</point>')", 0, 1)],
  },
  {
    id: 'box-at-zero',
    actions: [click(5, 974)],
    thought: 'I need to click on the start button',
    calls: [call('click', { start_box: '[0, 964, 10, 984]' }, "click(start_box='[0, 964, 10, 984]')", 0, 1)],
  },
  {
    id: 'seed-think-computer-env',
    actions: [click(400, 435)],
    thought: between(reply('seed-think-computer-env'), '91973934>', '</think_never_used'),
    calls: [call('click', { start_box: '<point>400 435</point>' }, "click(point='<point>400 435</point>')", 0, 1)],
  },
  {
    id: 'full-width-colon',
    actions: [click(100, 200)],
    thought: 'I need to click this button',
    calls: [call('click', { start_box: '(100,200)' }, "click(start_box='(100,200)')", 0, 1)],
  },
  {
    id: 'full-width-colon-bbox',
    actions: [click(191, 21)],
    thought: null,
    calls: [call('click', { start_box: '<bbox>191 21 191 21</bbox>' }, "click(start_box='<bbox>191 21 191 21</bbox>')", 0, 1)],
  },
  {
    id: 'gui-agent-click',
    actions: [click(72, 646)],
    thought: 'Click on the search bar at the top of the screen',
    calls: [call('click', { start_box: '(72,646)' }, "click(start_box='(72,646)')", 0, 1)],
  },
  {
    id: 'gui-agent-finished',
    actions: [],
    thought: 'finished.',
    calls: [call('finished', {}, 'finished()', 0, 0)],
    finished: '',
  },
  {
    id: 'type-enter',
    actions: [typeText('doubao.com'), enter],
    thought: between(reply('type-enter'), 'Thought: ', '\nAction:'),
    calls: [call('type', { content: 'doubao.com\n' }, "type(content='doubao.com\\n')", 0, 2)],
  },
  {
    id: 'type-newlines',
    // Only the trailing newline is Enter; the inner one is typed (UI-TARS-desktop's NutJSOperator
    // types the two characters \ and n there, the Python executor a newline: we follow Python).
    actions: [typeText('Hello World\nUI-TARS'), enter],
    thought: between(reply('type-newlines'), 'Thought: ', '\nAction:'),
    calls: [call('type', { content: 'Hello World\nUI-TARS\n' }, "type(content='Hello World\\nUI-TARS\\n')", 0, 2)],
  },
  {
    id: 'drag-slider',
    actions: [{ action: 'drag_mouse', path: [[72, 74], [175, 74]] }],
    thought: between(reply('drag-slider'), 'Thought: ', '\nAction:'),
    calls: [call('drag', { start_box: '(72,74)', end_box: '(175,74)' }, "drag(start_box='(72,74)', end_box='(175,74)')", 0, 1)],
  },
  {
    id: 'python-point',
    actions: [click(200, 300)],
    thought: 'test',
    calls: [call('click', { start_box: '<point>200 300</point>' }, "click(point='<point>200 300</point>')", 0, 1)],
  },
  {
    id: 'python-box-tokens',
    actions: [click(112, 224)],
    thought: 'test',
    calls: [call('click', { start_box: '<|box_start|>(112,224)<|box_end|>' }, "click(start_box='<|box_start|>(112,224)<|box_end|>')", 0, 1)],
  },
  {
    id: 'doubao-unlabelled-click',
    // Centre of <bbox>100 235 910 282</bbox>: (505, 258.5).
    actions: [click(505, 259)],
    thought: reply('doubao-unlabelled-click').slice(0, reply('doubao-unlabelled-click').indexOf('\n\nAction:')).trim(),
    calls: [call('click', { start_box: '<bbox>100 235 910 282</bbox>' }, "click(start_box='<bbox>100 235 910 282</bbox>')", 0, 1)],
  },
  {
    id: 'doubao-unlabelled-type',
    actions: [typeText('Liam Zhang')],
    thought: '1. 任务分析：当前需填写求职申请表，已激活“Applicant Name”输入框，应输入对应姓名“Liam Zhang”。  \n2. 逻辑推导：输入框已激活，直接键入内容即可，无需额外操作。  \n3. 目标：在“Applicant Name”字段填入“Liam Zhang”。',
    calls: [call('type', { content: 'Liam Zhang' }, "type(content='Liam Zhang')", 0, 1)],
  },
  {
    id: 'doubao-bare-type-letter',
    actions: [typeText("Dear [Recipient Name],\n\nI am writing to express my interest in the Graphic Designer position in the Design department at [Company's Name], as advertised. My name is Liam Zhang, and I am passionate about creative design. I am eager to bring my skills to your Design department to help build visually compelling solutions.\n\nThroughout my career, my focus has been on creating dynamic and engaging graphics that capture the essence of the brand and resonate with the target audience. I am enthusiastic about the opportunity to contribute to your team and produce designs that reflect the innovative spirit of [Company's Name].\n\nThank you for considering my application. I look forward to the possibility of discussing how I can contribute to your team and assist in achieving your company’s design goals.\n\nSincerely,\n\nLiam Zhang")],
    thought: null,
    calls: [call('type', {
      content: "Dear [Recipient Name],\n\nI am writing to express my interest in the Graphic Designer position in the Design department at [Company's Name], as advertised. My name is Liam Zhang, and I am passionate about creative design. I am eager to bring my skills to your Design department to help build visually compelling solutions.\n\nThroughout my career, my focus has been on creating dynamic and engaging graphics that capture the essence of the brand and resonate with the target audience. I am enthusiastic about the opportunity to contribute to your team and produce designs that reflect the innovative spirit of [Company's Name].\n\nThank you for considering my application. I look forward to the possibility of discussing how I can contribute to your team and assist in achieving your company’s design goals.\n\nSincerely,\n\nLiam Zhang",
    }, reply('doubao-bare-type-letter'), 0, 1)],
  },
  {
    id: 'doubao-bare-finished',
    actions: [],
    thought: null,
    calls: [call('finished', { content: '表单已成功填写并提交，提交信息包括：姓名 Liam Zhang，申请职位 Graphic Designer，首选部门 Design，以及完整的求职信内容。系统返回提示“Application Submitted Successfully!”，表明提交成功。' }, reply('doubao-bare-finished'), 0, 0)],
    finished: '表单已成功填写并提交，提交信息包括：姓名 Liam Zhang，申请职位 Graphic Designer，首选部门 Design，以及完整的求职信内容。系统返回提示“Application Submitted Successfully!”，表明提交成功。',
  },
  {
    id: 'readme-v1-left-double',
    actions: [{ action: 'click_mouse', button: 'left', coordinates: [235, 512], num_clicks: 2 }],
    thought: 'Open the file.',
    calls: [call('left_double', { start_box: '<|box_start|>(235,512)<|box_end|>' }, "left_double(start_box='<|box_start|>(235,512)<|box_end|>')", 0, 1)],
  },
  {
    id: 'right-single',
    actions: [{ action: 'click_mouse', button: 'right', coordinates: [235, 512] }],
    thought: 'Open the context menu of the file.',
    calls: [call('right_single', { start_box: '<|box_start|>(235,512)<|box_end|>' }, "right_single(start_box='<|box_start|>(235,512)<|box_end|>')", 0, 1)],
  },
  {
    id: 'scroll-down',
    actions: [{ action: 'scroll', coordinates: [500, 600], delta_y: 5 }],
    thought: 'The list continues below.',
    calls: [call('scroll', { start_box: '<|box_start|>(500,600)<|box_end|>', direction: 'down' }, "scroll(start_box='<|box_start|>(500,600)<|box_end|>', direction='down')", 0, 1)],
  },
  {
    id: 'scroll-point-up',
    actions: [{ action: 'scroll', coordinates: [500, 300], delta_y: -5 }],
    thought: '回到顶部。',
    calls: [call('scroll', { start_box: '<point>500 300</point>', direction: 'up' }, "scroll(point='<point>500 300</point>', direction='up')", 0, 1)],
  },
  {
    id: 'scroll-no-point-left',
    actions: [{ action: 'scroll', delta_x: -5 }],
    thought: null,
    action_summary: 'Scroll the table left.',
    calls: [call('scroll', { direction: 'left' }, "scroll(direction='left')", 0, 1)],
  },
  {
    id: 'hotkey-ctrl-c',
    actions: [{ action: 'press_key', keys: ['ctrl', 'c'] }],
    thought: 'Copy the selection.',
    calls: [call('hotkey', { key: 'ctrl c' }, "hotkey(key='ctrl c')", 0, 1)],
  },
  {
    id: 'drag-points',
    actions: [{ action: 'drag_mouse', path: [[200, 20], [600, 20]] }],
    thought: 'Move the window.',
    calls: [call('drag', { start_box: '<point>200 20</point>', end_box: '<point>600 20</point>' }, "drag(start_point='<point>200 20</point>', end_point='<point>600 20</point>')", 0, 1)],
  },
  {
    id: 'wait',
    actions: [{ action: 'wait', duration: 5 }],
    thought: 'The page is still loading.',
    calls: [call('wait', {}, 'wait()', 0, 1)],
  },
  {
    id: 'call-user',
    actions: [{ action: 'request_human', message: 'the UI-TARS agent asks for a person (call_user)' }],
    thought: "I need the user's password to continue.",
    calls: [call('call_user', {}, 'call_user()', 0, 1)],
    call_user: '',
  },
  {
    id: 'finished-content',
    actions: [],
    thought: '任务已完成。',
    calls: [call('finished', { content: 'The weather in Beijing tomorrow is sunny.' }, "finished(content='The weather in Beijing tomorrow is sunny.')", 0, 0)],
    finished: 'The weather in Beijing tomorrow is sunny.',
  },
  {
    id: 'long-press',
    actions: [
      { action: 'click_mouse', button: 'left', click_type: 'down', coordinates: [500, 500] },
      { action: 'wait', duration: 2 },
      { action: 'click_mouse', button: 'left', click_type: 'up', coordinates: [500, 500] },
    ],
    thought: 'Hold the button.',
    calls: [call('long_press', { start_box: '<|box_start|>(500,500)<|box_end|>', time: '2' }, "long_press(start_box='<|box_start|>(500,500)<|box_end|>', time='2')", 0, 3)],
  },
  {
    id: 'paren-box-four',
    actions: [click(200, 300)],
    thought: 'Click the search field.',
    calls: [call('click', { start_box: '(100,200,300,400)' }, "click(start_box='(100,200,300,400)')", 0, 1)],
  },
  {
    id: 'hover',
    actions: [{ action: 'move_mouse', coordinates: [500, 500] }],
    thought: 'Show the tooltip.',
    calls: [call('hover', { start_box: '(500,500)' }, "hover(start_box='(500,500)')", 0, 1)],
  },
  {
    id: 'press-release',
    actions: [
      { action: 'press_key', keys: ['shift'], press_type: 'down' },
      click(300, 300),
      { action: 'press_key', keys: ['shift'], press_type: 'up' },
    ],
    thought: 'Hold shift while clicking.',
    calls: [
      call('press', { key: 'shift' }, "press(key='shift')", 0, 1),
      call('click', { start_box: '(300,300)' }, "click(start_box='(300,300)')", 1, 1),
      call('release', { key: 'shift' }, "release(key='shift')", 2, 1),
    ],
  },
  {
    id: 'select-left-single',
    actions: [click(100, 100), { action: 'drag_mouse', path: [[100, 100], [900, 140]] }],
    thought: 'Select the paragraph.',
    calls: [
      call('left_single', { start_box: '(100,100)' }, "left_single(start_box='(100,100)')", 0, 1),
      call('select', { start_box: '(100,100)', end_box: '(900,140)' }, "select(start_box='(100,100)', end_box='(900,140)')", 1, 1),
    ],
  },
  {
    id: 'multiple-action-lines',
    actions: [click(500, 60), typeText('UI-TARS'), enter],
    thought: 'Search.',
    calls: [
      call('click', { start_box: '(500,60)' }, "click(start_box='(500,60)')", 0, 1),
      call('type', { content: 'UI-TARS\n' }, "type(content='UI-TARS\\n')", 1, 2),
    ],
  },
  // The same reply read as UI-TARS-1.5 pixels: only the declared space changes.
  {
    id: 'box-four',
    query: '?coordinates=absolute',
    version: 'absolute',
    space: [1288, 812],
    actions: [click(638, 349)],
    thought: 'I need to click on this element',
    calls: [call('click', { start_box: '[348, 333, 928, 365]' }, "click(start_box='[348, 333, 928, 365]')", 0, 1)],
  },
  {
    id: 'gui-agent-click',
    query: '?coordinates=absolute&display_width_px=1920&display_height_px=1080',
    version: 'absolute',
    space: [1932, 1092],
    actions: [click(72, 646)],
    thought: 'Click on the search bar at the top of the screen',
    calls: [call('click', { start_box: '(72,646)' }, "click(start_box='(72,646)')", 0, 1)],
  },
  // Written for this test: the far edge of each space is its last pixel.
  {
    id: 'edge-relative',
    text: "Action: click(start_box='(1000,1000)')\n\nclick(start_box='[990,990,1000,1000]')",
    actions: [click(999, 999), click(995, 995)],
    thought: null,
    calls: [
      call('click', { start_box: '(1000,1000)' }, "click(start_box='(1000,1000)')", 0, 1),
      call('click', { start_box: '[990,990,1000,1000]' }, "click(start_box='[990,990,1000,1000]')", 1, 1),
    ],
  },
  // Written for this test: Python's escapes in content, a quote the model left unescaped,
  // and labels with the full-width colon.
  {
    id: 'escapes',
    text: "Reflection：The field is focused.\nAction_Summary：Type the quote and submit.\nAction：type(content='She said \\\"hi\\\", it\\'s 5\\\\6\\n')\n\ntype(content='It's here')",
    actions: [typeText('She said "hi", it\'s 5\\6'), enter, typeText("It's here")],
    thought: null,
    reflection: 'The field is focused.',
    action_summary: 'Type the quote and submit.',
    calls: [
      call('type', { content: 'She said "hi", it\'s 5\\6\n' }, "type(content='She said \\\"hi\\\", it\\'s 5\\\\6\\n')", 0, 2),
      call('type', { content: "It's here" }, "type(content='It's here')", 2, 1),
    ],
  },
  {
    id: 'edge-absolute',
    text: "Action: click(start_box='(1288,812)')",
    query: '?coordinates=absolute',
    version: 'absolute',
    space: [1288, 812],
    actions: [click(1287, 811)],
    thought: null,
    calls: [call('click', { start_box: '(1288,812)' }, "click(start_box='(1288,812)')", 0, 1)],
  },
]

t.test('every reply of the corpus has a translation case', async (t) => {
  const covered = new Set(CASES.map((c) => c.id))
  t.strictSame(replies.filter((r) => !covered.has(r.name)).map((r) => r.name), [])
})

t.test('translate: each reply as a whole body', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  for (const c of CASES) {
    const [width, height] = c.space ?? [1000, 1000]
    const { status, body } = await say(app, `/computer/uitars/translate${c.query ?? ''}`, c.text ?? reply(c.id))
    t.equal(status, 200, `${c.id}${c.query ?? ''}: 200`)
    t.strictSame(body, {
      adapter: 'uitars',
      version: c.version ?? 'relative',
      actions: c.actions,
      screenshot: true,
      display_width_px: width,
      display_height_px: height,
      meta: {
        thought: c.thought === undefined ? null : c.thought,
        reflection: c.reflection ?? null,
        action_summary: c.action_summary ?? null,
        calls: c.calls,
        finished: c.finished ?? null,
        call_user: c.call_user ?? null,
      },
    }, `${c.id}${c.query ?? ''}`)
  }
  t.strictSame(driver.calls, [], 'nothing ran')
})

t.test('the reply may come as JSON {"response": …}, and screenshot=false is kept', async (t) => {
  const { app } = await build(t, { adapters: [uitarsAdapter] })
  const { status, body } = await post(app, '/computer/uitars/translate?screenshot=false', { response: reply('hotkey-ctrl-c') })
  t.equal(status, 200)
  t.strictSame(body, {
    adapter: 'uitars',
    version: 'relative',
    actions: [{ action: 'press_key', keys: ['ctrl', 'c'] }],
    screenshot: false,
    display_width_px: 1000,
    display_height_px: 1000,
    meta: {
      thought: 'Copy the selection.',
      reflection: null,
      action_summary: null,
      calls: [call('hotkey', { key: 'ctrl c' }, "hotkey(key='ctrl c')", 0, 1)],
      finished: null,
      call_user: null,
    },
  })
})

t.test('execute: a click on the 0–1000 scale, answered with the reply, the cursor and the screen', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  const { status, body } = await say(app, '/computer/uitars', reply('thought-click'))
  t.equal(status, 200)
  t.strictSame(pngSize(body.screenshot), { width: 1280, height: 800 }, 'a PNG at the display size')
  t.strictSame({ ...body, screenshot: 'PNG' }, {
    thought: 'I need to click this button',
    reflection: null,
    action_summary: null,
    calls: [{
      name: 'click',
      args: { start_box: '(100,200)' },
      text: "click(start_box='(100,200)')",
      actions: [{ action: 'click_mouse', button: 'left', coordinates: [100, 200] }],
      status: 'done',
    }],
    finished: null,
    call_user: null,
    human: null,
    cursor: [100, 200],
    screenshot: 'PNG',
    error: null,
  })
  // (100.5 · 1280/1000, 200.5 · 800/1000), floored: the centre of the pixels (100, 200) covers.
  t.strictSame(driver.calls, [
    ...leftClickAt(128, 160),
    { call: 'screenshot' },
  ])
})

t.test('execute: UI-TARS-1.5 pixels of the smart-resized display', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  // The client shows the model a 1920x1080 screenshot; the model sees it at 1932x1092.
  const { status, body } = await say(app, '/computer/uitars?coordinates=absolute&display_width_px=1920&display_height_px=1080',
    "Thought: Click the centre.\nAction: click(start_box='(966,546)')")
  t.equal(status, 200)
  t.strictSame(pngSize(body.screenshot), { width: 1920, height: 1080 }, 'the screenshot is at the display size, not the model\'s')
  t.strictSame({ ...body, screenshot: 'PNG' }, {
    thought: 'Click the centre.',
    reflection: null,
    action_summary: null,
    calls: [{
      name: 'click',
      args: { start_box: '(966,546)' },
      text: "click(start_box='(966,546)')",
      actions: [{ action: 'click_mouse', button: 'left', coordinates: [966, 546] }],
      status: 'done',
    }],
    finished: null,
    call_user: null,
    human: null,
    cursor: [966, 546],
    screenshot: 'PNG',
    error: null,
  })
  t.strictSame(driver.calls[0], { call: 'moveMouse', x: 640, y: 400 }, 'the middle of the real 1280x800 screen')
})

t.test('execute: several calls in order, each with its actions', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  const { status, body } = await say(app, '/computer/uitars?screenshot=false', reply('doubao-six-actions'))
  t.equal(status, 200)
  const done = (name: string, args: Record<string, string>, text: string, actions: unknown[]) => ({ name, args, text, actions, status: 'done' })
  const clicked = (x: number, y: number) => ({ action: 'click_mouse', button: 'left', coordinates: [x, y] })
  t.strictSame(body, {
    thought: between(reply('doubao-six-actions'), 'Thought: ', '\nAction:'),
    reflection: null,
    action_summary: null,
    calls: [
      done('click', { start_box: '<point>403 81</point>' }, "click(point='<point>403 81</point>')", [clicked(403, 81)]),
      done('type', { content: 'baidu.com' }, "type(content='baidu.com')", [{ action: 'type_text', text: 'baidu.com' }]),
      done('hotkey', { key: 'enter' }, "hotkey(key='enter')", [{ action: 'press_key', keys: ['enter'] }]),
      done('click', { start_box: '<point>403 431</point>' }, "click(point='<point>403 431</point>')", [clicked(403, 431)]),
      done('type', { content: '北京天气' }, "type(content='北京天气')", [{ action: 'type_text', text: '北京天气' }]),
      done('hotkey', { key: 'enter' }, "hotkey(key='enter')", [{ action: 'press_key', keys: ['enter'] }]),
    ],
    finished: null,
    call_user: null,
    human: null,
    cursor: [403, 431],
    screenshot: null,
    error: null,
  })
  t.strictSame(driver.calls.filter((c) => c.call !== 'buttonDown' && c.call !== 'buttonUp'), [
    { call: 'moveMouse', x: 516, y: 65 },
    { call: 'typeText', text: 'baidu.com' },
    { call: 'keyDown', key: 'enter' },
    { call: 'keyUp', key: 'enter' },
    { call: 'moveMouse', x: 516, y: 345 },
    { call: 'typeText', text: '北京天气' },
    { call: 'keyDown', key: 'enter' },
    { call: 'keyUp', key: 'enter' },
  ])
})

t.test('execute: finished runs nothing and is reported; call_user waits for a person and carries their answer', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  const finished = await say(app, '/computer/uitars', reply('finished-content'))
  t.equal(finished.status, 200)
  t.strictSame(finished.body, {
    thought: '任务已完成。',
    reflection: null,
    action_summary: null,
    calls: [{
      name: 'finished',
      args: { content: 'The weather in Beijing tomorrow is sunny.' },
      text: "finished(content='The weather in Beijing tomorrow is sunny.')",
      actions: [],
      status: 'reported',
    }],
    finished: 'The weather in Beijing tomorrow is sunny.',
    call_user: null,
    human: null,
    cursor: null,
    screenshot: null,
    error: null,
  })
  t.strictSame(driver.calls, [])
  const asking = say(app, '/computer/uitars', reply('call-user'))
  t.ok(await until(() => app.control.requests.length === 1, 5000), 'it waits for a person')
  app.control.takeover({ holder: 'alice' })
  await app.control.release({ message: 'typed the password' })
  const callUser = await asking
  t.equal(callUser.status, 200)
  const human = callUser.body.human
  t.strictSame(callUser.body, {
    thought: "I need the user's password to continue.",
    reflection: null,
    action_summary: null,
    calls: [{ name: 'call_user', args: {}, text: 'call_user()', actions: [{ action: 'request_human', message: 'the UI-TARS agent asks for a person (call_user)' }], status: 'done' }],
    finished: null,
    call_user: '',
    human: { outcome: 'released', message: 'typed the password', holder: 'alice', held_ms: human.held_ms, waited_ms: human.waited_ms },
    cursor: callUser.body.cursor,
    screenshot: callUser.body.screenshot,
    error: null,
  })
  t.ok(Number.isInteger(human.held_ms) && Number.isInteger(human.waited_ms))
})

t.test('execute: a driver failure answers natively with its status; later calls did not run', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  driver.setBeforeCall((c) => { if (c.call === 'typeText') throw new Error('keyboard unplugged') })
  const { status, body } = await say(app, '/computer/uitars', reply('doubao-six-actions'))
  t.equal(status, 500)
  t.strictSame(body.calls.map((c: { name: string, status: string }) => [c.name, c.status]), [
    ['click', 'done'], ['type', 'failed'], ['hotkey', 'not_run'], ['click', 'not_run'], ['type', 'not_run'], ['hotkey', 'not_run'],
  ])
  t.strictSame({ ...body, calls: body.calls.length, screenshot: pngSize(body.screenshot) }, {
    thought: between(reply('doubao-six-actions'), 'Thought: ', '\nAction:'),
    reflection: null,
    action_summary: null,
    calls: 6,
    finished: null,
    call_user: null,
    human: null,
    cursor: [403, 81],
    screenshot: { width: 1280, height: 800 }, // the screen after the failure
    error: { statusCode: 500, code: 'ERR_DRIVER_FAILURE', error: 'Internal Server Error', message: 'the driver failed: keyboard unplugged' },
  })
})

t.test('execute: a point outside the space is refused before anything runs, natively', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  const absolute = await say(app, '/computer/uitars?coordinates=absolute', "Thought: Too far right.\nAction: click(start_box='(1500,300)')")
  t.equal(absolute.status, 400)
  t.strictSame(absolute.body, {
    thought: 'Too far right.',
    reflection: null,
    action_summary: null,
    calls: [{
      name: 'click',
      args: { start_box: '(1500,300)' },
      text: "click(start_box='(1500,300)')",
      actions: [{ action: 'click_mouse', button: 'left', coordinates: [1500, 300] }],
      status: 'not_run',
    }],
    finished: null,
    call_user: null,
    human: null,
    cursor: null,
    screenshot: null,
    error: errorBody(400, 'ERR_POINT_OUT_OF_BOUNDS', 'coordinates (1500, 300) is outside the 1288x812 image UI-TARS 1.5 sees (the 1280x800 display after smart_resize): x must be 0..1287 and y 0..811'),
  })
  const relative = await say(app, '/computer/uitars', "Action: click(start_box='(1200,5)')")
  t.equal(relative.status, 400)
  t.strictSame(relative.body.error, errorBody(400, 'ERR_POINT_OUT_OF_BOUNDS', "coordinates (1200, 5) is outside UI-TARS' relative 0–1000 scale: x must be 0..999 and y 0..999"))
  t.strictSame(relative.body.calls[0].status, 'not_run')
  t.strictSame(driver.calls, [])
})

const unparseable = (message: string) => ({ statusCode: 400, code: 'ERR_UNPARSEABLE_OUTPUT', error: 'Bad Request', message })
const KNOWN = 'click, left_single, left_double, right_single, hover, drag, select, scroll, type, hotkey, press, keydown, release, keyup, long_press, wait, finished, call_user, press_home, press_back, open_app'

const REFUSALS: Array<{ why: string, text: string, query?: string, body: Record<string, unknown> }> = [
  { why: 'an empty reply', text: '', body: unparseable('the UI-TARS reply is empty') },
  { why: 'only blanks', text: '   \n', body: unparseable('the UI-TARS reply is empty') },
  { why: 'a thought and no action', text: 'Thought: I need more context before any action', body: unparseable("the UI-TARS reply has no 'Action:' line: \"Thought: I need more context before any action\"") },
  // hallucinationCases.test.ts: 'should NOT handle empty action input'.
  { why: 'nothing after Action:', text: 'Thought: Empty action\nAction:', body: unparseable("the UI-TARS reply has no call after 'Action:': nothing follows it") },
  // hallucinationCases.test.ts: 'should NOT handle input without coordinates'.
  { why: 'an empty point', text: "Thought: I need to click on this element\nAction: click(start_box='')", body: unparseable('cannot parse the UI-TARS action "click(start_box=\'\')": start_box="" is empty; expected a point like (x,y)') },
  // GUIAgent.test.ts: a custom action space's call, which UI-TARS does not have.
  { why: 'an unknown action', text: "Thought: Click on the search bar at the top of the screen\nAction: CLICK(start_box='(72,646)')", body: unparseable(`cannot parse the UI-TARS action "CLICK(start_box='(72,646)')": unknown action 'CLICK' (known: ${KNOWN})`) },
  { why: 'a call cut short', text: "Action: click(start_box='(100,200)'", body: unparseable('cannot parse the UI-TARS action "click(start_box=\'(100,200)\'": missing \')\'') },
  { why: 'an unclosed string', text: "Action: type(content='abc)", body: unparseable('cannot parse the UI-TARS action "type(content=\'abc)": the value of content is not closed') },
  { why: 'one number', text: "Action: click(start_box='(100)')", body: unparseable('cannot parse the UI-TARS action "click(start_box=\'(100)\')": start_box="(100)" has 1 numbers; a point has 2 (x,y) and a box 4 (x1,y1,x2,y2)') },
  { why: 'words for a point', text: "Action: click(start_box='search button')", body: unparseable('cannot parse the UI-TARS action "click(start_box=\'search button\')": start_box="search button" is not a list of numbers; expected (x,y), <point>x y</point> or a box [x1,y1,x2,y2]') },
  { why: 'no point', text: 'Action: click()', body: unparseable('cannot parse the UI-TARS action "click()": click needs start_box') },
  { why: 'a drag without its end', text: "Action: drag(start_box='(1,2)')", body: unparseable('cannot parse the UI-TARS action "drag(start_box=\'(1,2)\')": drag needs end_box') },
  { why: 'an argument the action does not take', text: "Action: click(start_box='(1,2)', button='left')", body: unparseable('cannot parse the UI-TARS action "click(start_box=\'(1,2)\', button=\'left\')": click has no argument \'button\' (it takes start_box)') },
  { why: 'an argument twice', text: "Action: click(start_box='(1,2)', start_box='(3,4)')", body: unparseable('cannot parse the UI-TARS action "click(start_box=\'(1,2)\', start_box=\'(3,4)\')": start_box is given twice') },
  { why: 'a point under two names', text: "Action: click(point='<point>1 2</point>', start_box='(3,4)')", body: unparseable('cannot parse the UI-TARS action "click(point=\'<point>1 2</point>\', start_box=\'(3,4)\')": point and start_box are the same argument; give one') },
  { why: 'a scroll without direction', text: "Action: scroll(start_box='(1,2)')", body: unparseable('cannot parse the UI-TARS action "scroll(start_box=\'(1,2)\')": scroll needs direction=\'up\', \'down\', \'left\' or \'right\'') },
  { why: 'an unknown direction', text: "Action: scroll(direction='sideways')", body: unparseable('cannot parse the UI-TARS action "scroll(direction=\'sideways\')": direction must be \'up\', \'down\', \'left\' or \'right\', not "sideways"') },
  { why: 'a wheel scroll and a swipe at once', text: "Action: scroll(start_box='(1,2)', end_box='(3,4)', direction='down')", body: unparseable('cannot parse the UI-TARS action "scroll(start_box=\'(1,2)\', end_box=\'(3,4)\', direction=\'down\')": scroll takes direction (a wheel scroll) or end_box (a swipe), not both') },
  { why: 'a hotkey without keys', text: "Action: hotkey(key='')", body: unparseable('cannot parse the UI-TARS action "hotkey(key=\'\')": hotkey needs key, like key=\'ctrl c\'') },
  { why: 'type without content', text: 'Action: type()', body: unparseable('cannot parse the UI-TARS action "type()": type needs content, like content=\'hello\'') },
  { why: 'a long press time that is not seconds', text: "Action: long_press(start_box='(1,2)', time='soon')", body: unparseable('cannot parse the UI-TARS action "long_press(start_box=\'(1,2)\', time=\'soon\')": time must be a number of seconds, not "soon"') },
  { why: 'words after a call', text: "Action: type(content='hi') and click", body: unparseable('cannot parse the UI-TARS action "and click": expected \'(\' after and') },
  { why: 'a key the table does not know', text: "Action: hotkey(key='ctrl hyper')", body: { statusCode: 400, code: 'ERR_UNKNOWN_KEY', error: 'Bad Request', message: "unknown key 'hyper' in 'ctrl hyper' (closest known names: super, enter, home)" } },
  { why: 'a phone button', text: 'Action: press_home()', body: { statusCode: 400, code: 'ERR_UNSUPPORTED_ACTION', error: 'Bad Request', message: '"press_home()" is a UI-TARS phone action; a desktop has no home button' } },
  { why: 'an app launch without a name', text: "Action: open_app(app_name=' ')", body: unparseable('cannot parse the UI-TARS action "open_app(app_name=\' \')": open_app needs app_name') },
  { why: 'an unknown convention', text: 'Action: wait()', query: '?coordinates=pixels', body: { statusCode: 400, code: 'ERR_INVALID_QUERY', error: 'Bad Request', message: 'coordinates must be one of "relative", "absolute", not "pixels"' } },
  { why: 'a display smart_resize cannot take', text: 'Action: wait()', query: '?coordinates=absolute&display_width_px=4096&display_height_px=1', body: { statusCode: 400, code: 'ERR_INVALID_QUERY', error: 'Bad Request', message: 'coordinates=absolute: a 4096x1 screen is too far from square for smart_resize (aspect ratio above 200)' } },
]

t.test('every refusal, on both routes, with its whole error body and nothing run', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  for (const refusal of REFUSALS) {
    for (const route of ['/computer/uitars', '/computer/uitars/translate']) {
      const { status, body } = await say(app, `${route}${refusal.query ?? ''}`, refusal.text)
      t.equal(status, 400, `${refusal.why} (${route}): 400`)
      t.strictSame(body, refusal.body, `${refusal.why} (${route})`)
    }
  }
  t.strictSame(driver.calls, [])
})

t.test('a JSON body that is not {"response": "…"} is a 400 naming both accepted forms', async (t) => {
  const { app } = await build(t, { adapters: [uitarsAdapter] })
  const message = (version: string) => `uitars ${version}: payload must be the model's text (Content-Type: text/plain) or a JSON object {"response": "<the model's text>"}`
  const cases = [
    { url: '/computer/uitars', payload: { response: 'Action: wait()', extra: 1 }, version: 'relative' },
    { url: '/computer/uitars/translate', payload: { text: 'Action: wait()' }, version: 'relative' },
    { url: '/computer/uitars/translate?coordinates=absolute', payload: { response: 5 }, version: 'absolute' },
    { url: '/computer/uitars', payload: [1, 2], version: 'relative' },
  ]
  for (const { url, payload, version } of cases) {
    const { status, body } = await post(app, url, payload)
    t.equal(status, 400)
    t.strictSame(body, { statusCode: 400, code: 'ERR_INVALID_PAYLOAD', error: 'Bad Request', message: message(version) }, JSON.stringify(payload))
  }
})

t.test('GET /adapters describes both conventions', async (t) => {
  const { app } = await build(t, { adapters: [uitarsAdapter] })
  const response = await app.inject({ method: 'GET', url: '/adapters' })
  const [info] = response.json().adapters
  t.equal(info.name, 'uitars')
  t.equal(info.default_version, 'relative')
  t.strictSame(info.versions.map((v: { name: string }) => v.name), ['relative', 'absolute'])
  t.equal(info.coordinates, uitarsAdapter.coordinates)
})

t.test('open_app launches an application by name: launch_app, with the server\'s allow-list (the full desktop\'s names)', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter], apps: { browser: ['firefox-esr', '--new-window'] }, fake: { onLaunch: () => ({ window: { title: 'Mozilla Firefox' } }) } })
  const translated = await say(app, '/computer/uitars/translate', "Action: open_app(app_name='browser')")
  t.equal(translated.status, 200)
  t.match(translated.body, { actions: [{ action: 'launch_app', app: 'browser' }] })
  const ran = await say(app, '/computer/uitars', "Action: open_app(app_name='browser')")
  t.equal(ran.status, 200, JSON.stringify(ran.body))
  t.match(driver.calls, [{ call: 'launch', argv: ['firefox-esr', '--new-window'] }, { call: 'activateWindow' }])
  const refused = await say(app, '/computer/uitars', "Action: open_app(app_name='Settings')")
  t.match(refused, { status: 403, body: { calls: [{ name: 'open_app', actions: [{ action: 'launch_app', app: 'Settings' }], status: 'not_run' }], error: { statusCode: 403, code: 'ERR_APP_NOT_ALLOWED', error: 'Forbidden', message: "app 'Settings' is not in the allow-list; allowed: browser" } } })
})
