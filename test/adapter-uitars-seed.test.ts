/**
 * UI-TARS-2 / Doubao-Seed's <seed:tool_call> XML through the uitars adapter, on the inputs of
 * ByteDance's own XML parser tests (fixtures/uitars/seed-xml.json names each case): every reply
 * through POST /computer/uitars/translate as a whole body, compared with what ByteDance's
 * XMLFormatParser reads from it (its case (19): scroll up at (500,500), type 'hello' with the
 * point (200,126), wait), one through the execute route over the fake 1280x800 screen, and every
 * refusal with its whole error body on both routes.
 */
import t from 'tap'
import { uitarsAdapter } from '../adapters/uitars/index.ts'
import { build, post } from './helpers/build.ts'
import { adapterCases, badRequest, refusedOnBothRoutes, leftClickAt, executedOnFake } from './helpers/adapter-cases.ts'

const replies = adapterCases<{ payload: string }>('uitars', 'seed-xml.json')
const reply = (id: string) => replies.find((r) => r.name === id)?.payload ?? t.fail(`no reply ${id}`) as never

const THINK_10 = '需要模拟向上滚动的动作，使用scroll工具，direction设为up，point可以随便选一个页面内的坐标，比如<point>500 500</point>。这样就能完成向上滚动的操作了。'
const click = (x: number, y: number) => ({ action: 'click_mouse', button: 'left', coordinates: [x, y] })
const call = (name: string, args: Record<string, string>, text: string, first: number, count: number) => ({ name, args, text, first, count })
const SCROLL_FN = '<function=scroll>\n<parameter=direction>up</parameter>\n<parameter=point><point>500 500</point></parameter>\n</function>'

const CASES: Array<{ id: string, thought: string | null, actions: unknown[], calls: unknown[] }> = [
  {
    id: 'seed-click',
    thought: "To find shrimp and crab recipes, I'll first open the web browser to search for relevant recipes. The browser icon is typically located in the taskbar or applications menu. I'll click on the browser icon to launch it and then proceed to search for shrimp and crab recipes.",
    actions: [click(17, 58)],
    calls: [call('click', { start_box: '<point>17 58</point>' }, '<function=click>\n<parameter=point><point>17 58</point></parameter>\n</function>', 0, 1)],
  },
  {
    id: 'seed-type',
    thought: 'The search bar is now active, so I\'ll type "shrimp and crab recipes" into it to find relevant recipes. This query should return a variety of results, including websites like Allrecipes, Food Network, and Epicurious, which are known for reliable recipes.',
    actions: [{ action: 'type_text', text: 'shrimp and crab recipes' }],
    calls: [call('type', { content: 'shrimp and crab recipes' }, '<function=type>\n<parameter=content>shrimp and crab recipes</parameter>\n</function>', 0, 1)],
  },
  {
    id: 'seed-left-double',
    thought: '用户想要用GUI Action查一下天气，我来想一想该做哪些步骤，首先要打开浏览器，然后在搜索框中输入“天气”，最后查看搜索结果，就能完成任务啦。没错就这么办，第一步我要先打开浏览器，得从桌面上找找，在这呢~找到了浏览器图标，我现在就双击打开它吧！',
    actions: [{ ...click(18, 58), num_clicks: 2 }],
    calls: [call('left_double', { start_box: '<point>18 58</point>' }, '<function=left_double>\n<parameter=point><point>18 58</point></parameter>\n</function>', 0, 1)],
  },
  {
    id: 'seed-wait',
    thought: '用户想要输出一个wait gui action，不要带任何参数。',
    actions: [{ action: 'wait', duration: 5 }],
    calls: [call('wait', {}, '<function=wait>\n</function>', 0, 1)],
  },
  {
    id: 'seed-scroll',
    thought: THINK_10,
    actions: [{ action: 'scroll', coordinates: [500, 500], delta_y: -5 }],
    calls: [call('scroll', { direction: 'up', start_box: '<point>500 500</point>' }, SCROLL_FN, 0, 1)],
  },
  {
    id: 'seed-name-attributes',
    thought: THINK_10,
    actions: [{ action: 'scroll', coordinates: [500, 500], delta_y: -5 }],
    calls: [call('scroll', { direction: 'up', start_box: '500 500' }, "<function name='scroll'>\n<parameter name='direction'>up</parameter>\n<parameter name='point'>500 500</parameter>\n</function>", 0, 1)],
  },
  {
    // ByteDance's case (19): scroll {direction: up, point (500,500)}, type {content: hello, point (200,126)}, wait {}.
    id: 'seed-three-functions',
    thought: THINK_10,
    actions: [{ action: 'scroll', coordinates: [500, 500], delta_y: -5 }, click(200, 126), { action: 'type_text', text: 'hello' }, { action: 'wait', duration: 5 }],
    calls: [
      call('scroll', { direction: 'up', start_box: '<point>500 500</point>' }, SCROLL_FN, 0, 1),
      call('type', { content: 'hello', start_box: '<point>200 126</point>' }, '<function=type>\n<parameter=content>hello</parameter>\n<parameter=point><point>200 126</point></parameter>\n</function>', 1, 2),
      call('wait', {}, '<function=wait>\n</function>', 3, 1),
    ],
  },
  {
    id: 'seed-issue-example',
    thought: null,
    actions: [click(17, 58)],
    calls: [call('click', { start_box: '<point>17 58</point>' }, '<function=click>\n<parameter=point><point>17 58</point></parameter>\n</function>', 0, 1)],
  },
]

t.test('translate: Seed XML replies become the calls ByteDance reads, points on the 0–1000 scale', async (t) => {
  const { app, driver } = await build(t, { adapters: [uitarsAdapter] })
  for (const c of CASES) {
    const text = reply(c.id)
    for (const payload of [{ response: text }]) {
      const { status, body } = await post(app, '/computer/uitars/translate', payload)
      t.equal(status, 200, c.id)
      t.strictSame(body, {
        adapter: 'uitars',
        version: 'relative',
        actions: c.actions,
        screenshot: true,
        display_width_px: 1000,
        display_height_px: 1000,
        meta: { thought: c.thought, reflection: null, action_summary: null, calls: c.calls, finished: null, call_user: null },
      }, `${c.id} (${replies.find((r) => r.name === c.id)!.source})`)
    }
    const raw = await app.inject({ method: 'POST', url: '/computer/uitars/translate', payload: text, headers: { 'content-type': 'text/plain; charset=utf-8' } })
    t.equal(raw.statusCode, 200, `${c.id} as text/plain`)
    t.strictSame(raw.json().actions, c.actions, `${c.id} as text/plain`)
  }
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

t.test('execute: a Seed click runs at the scaled pixel and is answered in full', async (t) => {
  const { calls, body } = await executedOnFake(t, uitarsAdapter, '/computer/uitars', { response: reply('seed-click') })
  // (17, 58) on the 0–1000 scale of a 1280x800 screen: floor(17.5 × 1.28) = 22, floor(58.5 × 0.8) = 46.
  t.strictSame(calls, [...leftClickAt(22, 46), { call: 'screenshot' }])
  t.strictSame(body, {
    thought: CASES[0]!.thought,
    reflection: null,
    action_summary: null,
    calls: [{ name: 'click', args: { start_box: '<point>17 58</point>' }, text: '<function=click>\n<parameter=point><point>17 58</point></parameter>\n</function>', actions: [click(17, 58)], status: 'done' }],
    finished: null,
    call_user: null,
    human: null,
    cursor: [17, 58],
    screenshot: { width: 1280, height: 800 },
    error: null,
  })
})

t.test('refusals: malformed Seed XML is a 400 quoting the part that failed, and nothing runs', async (t) => {
  const unparseable = (message: string) => badRequest('ERR_UNPARSEABLE_OUTPUT', message)
  await refusedOnBothRoutes(t, uitarsAdapter, [
    { name: "ByteDance's case (9): a tool call without a function", payload: { response: reply('seed-empty') }, body: unparseable('cannot parse the Seed tool call: the <seed:tool_call> holds no <function=…>') },
    {
      name: 'an unclosed tool call',
      payload: { response: '<seed:tool_call>\n<function=click>\n<parameter=point><point>17 58</point></parameter>\n</function>' },
      body: unparseable('cannot parse the Seed tool call: <seed:tool_call> is not closed: "<seed:tool_call>\\n<function=click>\\n<parameter=point><point>17 58</point></parameter>\\n</function>"'),
    },
    {
      name: 'an unclosed function',
      payload: { response: '<seed:tool_call>\n<function=click>\n<parameter=point><point>17 58</point></parameter>\n</seed:tool_call>' },
      body: unparseable('cannot parse the Seed tool call: expected <function=name>…</function>, not "<function=click>\\n<parameter=point><point>17 58</point></parameter>"'),
    },
    {
      name: 'text inside a function that is not a parameter',
      payload: { response: "<seed:tool_call>\n<function=click>\n__import__('os').system('id')\n</function>\n</seed:tool_call>" },
      body: unparseable('cannot parse the Seed tool call "<function=click>\\n__import__(\'os\').system(\'id\')\\n</function>": expected <parameter=name>…</parameter>, not "__import__(\'os\').system(\'id\')"'),
    },
    {
      name: 'text after the tool call',
      payload: { response: '<seed:tool_call>\n<function=wait>\n</function>\n</seed:tool_call>\nand then rm -rf /' },
      body: unparseable('cannot parse the Seed tool call: unexpected text after </seed:tool_call>: "and then rm -rf /"'),
    },
    {
      name: 'a parameter given twice',
      payload: { response: '<seed:tool_call>\n<function=click>\n<parameter=point><point>1 2</point></parameter>\n<parameter=point><point>3 4</point></parameter>\n</function>\n</seed:tool_call>' },
      body: unparseable('cannot parse the Seed tool call "<function=click>\\n<parameter=point><point>1 2</point></parameter>\\n<parameter=point><point>3 4</point></parameter>\\n</function>": point is given twice'),
    },
    {
      name: 'an unknown function',
      payload: { response: '<seed:tool_call>\n<function=open_computer>\n</function>\n</seed:tool_call>' },
      body: unparseable(`cannot parse the UI-TARS action "<function=open_computer>\\n</function>": unknown action 'open_computer' (known: click, left_single, left_double, right_single, hover, drag, select, scroll, type, hotkey, press, keydown, release, keyup, long_press, wait, finished, call_user, press_home, press_back, open_app)`),
    },
    {
      name: 'a point that is not a point',
      payload: { response: '<seed:tool_call>\n<function=click>\n<parameter=point><point>x y</point></parameter>\n</function>\n</seed:tool_call>' },
      body: unparseable('cannot parse the UI-TARS action "<function=click>\\n<parameter=point><point>x y</point></parameter>\\n</function>": start_box="<point>x y</point>" is not a list of numbers; expected (x,y), <point>x y</point> or a box [x1,y1,x2,y2]'),
    },
  ])
})
