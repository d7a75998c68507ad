/**
 * The pyautogui adapter on the replies in fixtures/pyautogui/translate.json (each names its
 * source): every reply through POST /computer/pyautogui/translate as a whole body, in each
 * coordinate convention; outcomes through POST /computer/pyautogui over the fake 1280x800
 * screen as whole bodies; and every refusal — hostile code above all — with its whole error body
 * on both routes, nothing run.
 */
import t from 'tap'
import { pyautoguiAdapter } from '../adapters/pyautogui/index.ts'
import { build, post } from './helpers/build.ts'
import { badRequest, caseByName, refusedOnBothRoutes, sameAsText, leftClickAt, executedOnFake, pressed } from './helpers/adapter-cases.ts'

const reply = caseByName<{ payload: string }>('pyautogui')

const call = (name: string, args: Record<string, unknown>, text: string, line: number, first: number, count: number) => ({ name, args, text, line, first, count })
const click = (x: number, y: number, extra: Record<string, unknown> = {}) => ({ action: 'click_mouse', button: 'left', coordinates: [x, y], ...extra })
const key = (name: string) => ({ action: 'press_key', keys: [name] })
const typed = (text: string) => ({ action: 'type_text', text })

interface Case {
  id: string
  query?: string
  version: string
  display: [number, number]
  actions: unknown[]
  calls: unknown[]
  terminate?: { status: string, answer: string | null }
  wait?: boolean
}

const CASES: Case[] = [
  {
    id: 'cua-click',
    query: '?display_width_px=1920&display_height_px=1080',
    version: 'absolute',
    display: [1920, 1080],
    actions: [click(1443, 343)],
    calls: [call('pyautogui.click', { x: 1443, y: 343 }, 'pyautogui.click(x=1443, y=343)', 1, 0, 1)],
  },
  { id: 'osworld-wait', version: 'absolute', display: [1280, 800], actions: [], calls: [call('WAIT', {}, 'WAIT', 1, 0, 0)], wait: true },
  { id: 'osworld-fail', version: 'absolute', display: [1280, 800], actions: [], calls: [call('FAIL', {}, 'FAIL', 1, 0, 0)], terminate: { status: 'failure', answer: null } },
  { id: 'osworld-done', version: 'absolute', display: [1280, 800], actions: [], calls: [call('DONE', {}, 'DONE', 1, 0, 0)], terminate: { status: 'success', answer: null } },
  {
    // 1280x800 after smart_resize (factor 28) is 1288x812: the space the model's pixels are in.
    id: 'opencua-click',
    query: '?coordinates=smart-resize',
    version: 'smart-resize',
    display: [1288, 812],
    actions: [click(644, 406)],
    calls: [call('pyautogui.click', { x: 644, y: 406 }, 'pyautogui.click(x=644, y=406)', 1, 0, 1)],
  },
  {
    id: 'opencua-terminate',
    version: 'absolute',
    display: [1280, 800],
    actions: [],
    calls: [call('computer.terminate', { status: 'success', answer: 'The file is saved as report.txt' }, "computer.terminate(status='success', answer='The file is saved as report.txt')", 1, 0, 0)],
    terminate: { status: 'success', answer: 'The file is saved as report.txt' },
  },
  { id: 'opencua-wait', version: 'absolute', display: [1280, 800], actions: [], calls: [call('computer.wait', {}, 'computer.wait()', 1, 0, 0)], wait: true },
  {
    id: 'issue-calls',
    version: 'absolute',
    display: [1280, 800],
    actions: [
      click(100, 200, { num_clicks: 2 }),
      { action: 'click_mouse', button: 'right', coordinates: [300, 400] },
      { action: 'move_mouse', coordinates: [10, 20] },
      // dragTo drags from wherever the pointer is.
      { action: 'click_mouse', button: 'left', click_type: 'down' },
      { action: 'move_mouse', coordinates: [50, 60] },
      { action: 'click_mouse', button: 'left', click_type: 'up' },
      // scroll(-3) is three notches down; hscroll(2) two right.
      { action: 'scroll', delta_y: 3 },
      { action: 'scroll', coordinates: [640, 400], delta_x: 2 },
      typed('it\'s "done"'),
      typed('two\nlines'),
      key('enter'),
      // press(['down', 'down'], presses=2): the list, twice.
      key('down'), key('down'), key('down'), key('down'),
      { action: 'press_key', keys: ['ctrl', 's'] },
      { action: 'press_key', keys: ['ctrl', 'shift', 't'] },
      { action: 'press_key', keys: ['shift'], press_type: 'down' },
      { action: 'press_key', keys: ['shift'], press_type: 'up' },
      { action: 'click_mouse', button: 'right', coordinates: [640, 400], num_clicks: 3 },
      { action: 'wait', duration: 0.5 },
    ],
    calls: [
      call('pyautogui.doubleClick', { x: 100, y: 200 }, 'pyautogui.doubleClick(x=100, y=200)', 2, 0, 1),
      call('pyautogui.rightClick', { x: 300, y: 400 }, 'pyautogui.rightClick(300, 400)', 3, 1, 1),
      call('pyautogui.moveTo', { x: 10, y: 20 }, 'pyautogui.moveTo(x=10, y=20)', 4, 2, 1),
      call('pyautogui.dragTo', { x: 50, y: 60, duration: 0.5 }, 'pyautogui.dragTo(x=50, y=60, duration=0.5)', 5, 3, 3),
      call('pyautogui.scroll', { clicks: -3 }, 'pyautogui.scroll(-3)', 6, 6, 1),
      call('pyautogui.hscroll', { clicks: 2, x: 640, y: 400 }, 'pyautogui.hscroll(2, x=640, y=400)', 7, 7, 1),
      call('pyautogui.write', { message: 'it\'s "done"' }, 'pyautogui.write(message=\'it\\\'s "done"\')', 8, 8, 1),
      call('pyautogui.typewrite', { message: 'two\nlines', interval: 0.05 }, "pyautogui.typewrite('''two\nlines''', interval=0.05)", 9, 9, 1),
      call('pyautogui.press', { keys: 'enter' }, "pyautogui.press('enter')", 11, 10, 1),
      call('pyautogui.press', { keys: ['down', 'down'], presses: 2 }, "pyautogui.press(['down', 'down'], presses=2)", 12, 11, 4),
      call('pyautogui.hotkey', { keys: ['ctrl', 's'] }, "pyautogui.hotkey('ctrl', 's')", 13, 15, 1),
      call('pyautogui.hotkey', { keys: ['ctrl', 'shift', 't'] }, "pyautogui.hotkey(['ctrl', 'shift', 't'])", 14, 16, 1),
      call('pyautogui.keyDown', { key: 'shift' }, "pyautogui.keyDown('shift')", 15, 17, 1),
      call('pyautogui.keyUp', { key: 'shift' }, "pyautogui.keyUp('shift')", 15, 18, 1),
      call('pyautogui.click', { x: 640, y: 400, clicks: 3, button: 'right' }, "pyautogui.click(640, 400, clicks=3, button='right')", 16, 19, 1),
      call('time.sleep', { secs: 0.5 }, 'time.sleep(0.5)', 17, 20, 1),
    ],
  },
  {
    // round(0.5 × 1280) = 640, round(0.25 × 800) = 200: pixels of the display.
    id: 'relative-click',
    query: '?coordinates=relative',
    version: 'relative',
    display: [1280, 800],
    actions: [click(640, 200)],
    calls: [call('pyautogui.click', { x: 0.5, y: 0.25 }, 'pyautogui.click(x=0.5, y=0.25)', 1, 0, 1)],
  },
]

t.test('translate: recorded and documented replies become unified actions', async (t) => {
  const { app, driver } = await build(t, { adapters: [pyautoguiAdapter] })
  for (const c of CASES) {
    const { payload: text, source } = reply(c.id)
    const { status, body } = await post(app, `/computer/pyautogui/translate${c.query ?? ''}`, { response: text })
    t.equal(status, 200, c.id)
    t.strictSame(body, {
      adapter: 'pyautogui',
      version: c.version,
      actions: c.actions,
      screenshot: true,
      display_width_px: c.display[0],
      display_height_px: c.display[1],
      meta: { calls: c.calls, terminate: c.terminate ?? null, wait: c.wait ?? false },
    }, `${c.id} (${source})`)
    await sameAsText(t, app, `/computer/pyautogui/translate${c.query ?? ''}`, text, c.actions, c.id)
  }
  t.strictSame(driver.calls, [], 'translating runs nothing')
})

t.test('execute: an OpenCUA click in the smart-resized space lands on the screen pixel, answered in full', async (t) => {
  const { calls, body } = await executedOnFake(t, pyautoguiAdapter, '/computer/pyautogui?coordinates=smart-resize', { response: reply('opencua-click').payload })
  // (644, 406) of the 1288x812 image: floor(644.5 × 1280/1288) = 640, floor(406.5 × 800/812) = 400.
  t.strictSame(calls, [...leftClickAt(640, 400), { call: 'screenshot' }])
  t.strictSame(body, {
    calls: [{ name: 'pyautogui.click', args: { x: 644, y: 406 }, text: 'pyautogui.click(x=644, y=406)', line: 1, actions: [click(644, 406)], status: 'done' }],
    terminate: null,
    wait: false,
    cursor: [644, 406],
    screenshot: { width: 1280, height: 800 },
    error: null,
  })
})

t.test('execute: terminate runs nothing, is reported with its answer, and the screen is still sent', async (t) => {
  const { calls, body } = await executedOnFake(t, pyautoguiAdapter, '/computer/pyautogui', { response: 'pyautogui.press("enter")\n' + reply('opencua-terminate').payload.split('```code\n')[1]!.replace('\n```', '') })
  t.strictSame(calls, [...pressed('enter'), { call: 'screenshot' }])
  t.strictSame(body, {
    calls: [
      { name: 'pyautogui.press', args: { keys: 'enter' }, text: 'pyautogui.press("enter")', line: 1, actions: [key('enter')], status: 'done' },
      { name: 'computer.terminate', args: { status: 'success', answer: 'The file is saved as report.txt' }, text: "computer.terminate(status='success', answer='The file is saved as report.txt')", line: 2, actions: [], status: 'reported' },
    ],
    terminate: { status: 'success', answer: 'The file is saved as report.txt' },
    wait: false,
    cursor: [0, 0],
    screenshot: { width: 1280, height: 800 },
    error: null,
  })
})

t.test('execute: a point off the display refuses the whole block before anything runs', async (t) => {
  const { app, driver } = await build(t, { adapters: [pyautoguiAdapter] })
  const { status, body } = await post(app, '/computer/pyautogui', { response: 'pyautogui.click(10, 20)\npyautogui.click(1280, 20)' })
  const error = badRequest('ERR_POINT_OUT_OF_BOUNDS', 'actions[1]: coordinates (1280, 20) is outside the 1280x800 screen: x must be 0..1279 and y 0..799')
  t.equal(status, 400)
  t.strictSame(body, {
    calls: [
      { name: 'pyautogui.click', args: { x: 10, y: 20 }, text: 'pyautogui.click(10, 20)', line: 1, actions: [click(10, 20)], status: 'not_run' },
      { name: 'pyautogui.click', args: { x: 1280, y: 20 }, text: 'pyautogui.click(1280, 20)', line: 2, actions: [click(1280, 20)], status: 'not_run' },
    ],
    terminate: null,
    wait: false,
    cursor: null,
    screenshot: null,
    error: { ...error, failed_index: 1 },
  })
  t.strictSame(driver.calls, [])
})

t.test('refusals: anything but literal-argument calls is a 400 quoting its line, and nothing runs', async (t) => {
  const refused = (line: number, text: string, why: string) =>
    badRequest('ERR_UNPARSEABLE_OUTPUT', `cannot run line ${line} of the pyautogui code, ${JSON.stringify(text)}: ${why}`)
  const NOT_LITERAL = 'arguments may only be numbers, strings, True, False, None, or lists of them'
  const DEEP = 'pyautogui.hotkey(' + '['.repeat(5000) + ']'.repeat(5000) + ')'
  const payload = (code: string) => ({ response: '```python\n' + code + '\n```' })
  await refusedOnBothRoutes(t, pyautoguiAdapter, [
    { name: "OSWorld's empty template", payload: { response: reply('osworld-template').payload }, body: badRequest('ERR_UNPARSEABLE_OUTPUT', 'the pyautogui code has no call, only comments') },
    { name: 'an empty reply', payload: { response: '   ' }, body: badRequest('ERR_UNPARSEABLE_OUTPUT', "the pyautogui code is empty: send the model's reply with its ```python block, or the code itself") },
    { name: 'an import', payload: payload('import os\nos.system("id")'), body: refused(1, 'import os', 'not a call: only calls with literal arguments (and bare names like DONE) are read, no other Python') },
    { name: '__import__ in a call', payload: payload("pyautogui.click(10, 20)\n__import__('os').system('id')"), body: refused(2, "__import__('os').system('id')", "unexpected '.' after the call; one call per statement") },
    { name: 'a call as an argument', payload: payload("pyautogui.write(open('/etc/passwd').read())"), body: refused(1, "pyautogui.write(open('/etc/passwd').read())", `open is not a literal; ${NOT_LITERAL}`) },
    { name: 'a name as an argument', payload: payload('pyautogui.click(x=os.environ, y=1)'), body: refused(1, 'pyautogui.click(x=os.environ, y=1)', `os.environ is not a literal; ${NOT_LITERAL}`) },
    { name: 'an assignment', payload: payload('x = 100\npyautogui.click(x, 200)'), body: refused(1, 'x = 100', 'not a call: only calls with literal arguments (and bare names like DONE) are read, no other Python') },
    { name: 'an f-string', payload: payload("pyautogui.write(f'{__import__(\"os\").getcwd()}')"), body: refused(1, "pyautogui.write(f'{__import__(\"os\").getcwd()}')", 'f-prefixed strings are not literals this reader takes') },
    { name: 'arithmetic', payload: payload('pyautogui.click(100 + 20, 200)'), body: refused(1, 'pyautogui.click(100 + 20, 200)', "expected ',' or ')'") },
    { name: 'a loop', payload: payload("for i in range(3):\n    pyautogui.press('tab')"), body: refused(1, 'for i in range(3):', 'not a call: only calls with literal arguments (and bare names like DONE) are read, no other Python') },
    { name: 'an unbalanced quote', payload: payload("pyautogui.write('it's here')"), body: refused(1, "pyautogui.write('it's here')", "the string opened with ' is not closed") },
    { name: 'an unclosed string', payload: payload("pyautogui.write('hello)"), body: refused(1, "pyautogui.write('hello)", 'the string opened with \' is not closed') },
    { name: 'an unclosed call', payload: payload("pyautogui.click(10, 20"), body: refused(1, 'pyautogui.click(10, 20', "missing ')'") },
    { name: 'deep nesting', payload: payload(DEEP), body: badRequest('ERR_UNPARSEABLE_OUTPUT', `cannot run line 1 of the pyautogui code, ${JSON.stringify(DEEP.slice(0, 200) + '…')}: values nest deeper than 8 levels`) },
    { name: 'an unknown pyautogui function', payload: payload("pyautogui.screenshot('/tmp/x.png')"), body: refused(1, "pyautogui.screenshot('/tmp/x.png')", 'pyautogui.screenshot is not a call this adapter runs (known: pyautogui.click, pyautogui.leftClick, pyautogui.doubleClick, pyautogui.tripleClick, pyautogui.rightClick, pyautogui.middleClick, pyautogui.moveTo, pyautogui.dragTo, pyautogui.mouseDown, pyautogui.mouseUp, pyautogui.scroll, pyautogui.vscroll, pyautogui.hscroll, pyautogui.write, pyautogui.typewrite, pyautogui.press, pyautogui.hotkey, pyautogui.keyDown, pyautogui.keyUp, computer.triple_click, computer.wait, computer.terminate, time.sleep, pyperclip.copy, pyperclip.paste, WAIT, DONE, FAIL)') },
    { name: 'an unknown parameter', payload: payload('pyautogui.click(x=1, y=2, where=3)'), body: refused(1, 'pyautogui.click(x=1, y=2, where=3)', "pyautogui.click has no parameter 'where' (it takes x, y, clicks, interval, button, duration, tween, logScreenshot, _pause)") },
    { name: 'x without y', payload: payload('pyautogui.moveTo(x=5)'), body: refused(1, 'pyautogui.moveTo(x=5)', 'give both x and y, or neither (the pointer stays where it is)') },
    { name: 'a string coordinate', payload: payload("pyautogui.click(x='5', y=6)"), body: refused(1, "pyautogui.click(x='5', y=6)", 'x must be a number, not "5"') },
    { name: 'a bad button', payload: payload("pyautogui.click(1, 2, button='side')"), body: refused(1, "pyautogui.click(1, 2, button='side')", "button must be 'left', 'right' or 'middle', not \"side\"") },
    { name: 'a fractional scroll', payload: payload('pyautogui.scroll(2.5)'), body: refused(1, 'pyautogui.scroll(2.5)', 'clicks must be a whole number of wheel notches, not 2.5') },
    { name: 'terminate without a status', payload: payload("computer.terminate(answer='x')"), body: refused(1, "computer.terminate(answer='x')", "status must be 'success' or 'failure', not null") },
    { name: 'DONE with arguments', payload: payload('DONE(1)'), body: refused(1, 'DONE(1)', 'DONE takes no arguments') },
    { name: 'an uncalled function', payload: payload('pyautogui.click'), body: refused(1, 'pyautogui.click', 'pyautogui.click is a function; call it, e.g. pyautogui.click()') },
    { name: 'relative past the edge', url: '?coordinates=relative', payload: payload('pyautogui.click(x=1.2, y=0.5)'), body: refused(1, 'pyautogui.click(x=1.2, y=0.5)', 'x=1.2 is outside 0–1: with coordinates=relative, x and y are fractions of the display') },
    { name: 'an unknown key', payload: payload("pyautogui.press('nokey')"), body: badRequest('ERR_UNKNOWN_KEY', "unknown key 'nokey' (closest known names: oskey, home, keya)") },
  ])
})

t.test('GET /adapters lists pyautogui with its three conventions', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'GET', url: '/adapters' })
  const listed = response.json().adapters.find((a: { name: string }) => a.name === 'pyautogui')
  t.ok(listed, 'listed')
  t.strictSame(listed.versions.map((v: { name: string }) => v.name), ['absolute', 'smart-resize', 'relative'])
})

t.test('huge code is read, then refused by the batch limit before anything runs', async (t) => {
  const { app, driver } = await build(t, { adapters: [pyautoguiAdapter] })
  const code = Array.from({ length: 5000 }, () => "pyautogui.press('a')").join('\n')
  const limit = badRequest('ERR_INVALID_ACTION', 'a batch may have at most 100 actions (--max-batch)')
  const translated = await post(app, '/computer/pyautogui/translate', { response: code })
  t.equal(translated.status, 400)
  t.strictSame(translated.body, limit)
  const executed = await post(app, '/computer/pyautogui', { response: code })
  t.equal(executed.status, 400)
  t.strictSame(executed.body.error, limit)
  t.equal(executed.body.calls.length, 5000)
  t.ok(executed.body.calls.every((c: { status: string }) => c.status === 'not_run'), 'every call not run')
  const long = await post(app, '/computer/pyautogui/translate', { response: `pyautogui.write('${'x'.repeat(200_000)}')` })
  t.equal(long.status, 400)
  t.strictSame(long.body, badRequest('ERR_INVALID_ACTION', 'text may be at most 100000 characters (--max-text)'))
  t.strictSame(driver.calls, [])
})

t.test("literals: Python's string forms, continuations and separators are read as Python reads them", async (t) => {
  const { app } = await build(t, { adapters: [pyautoguiAdapter] })
  const code = [
    "pyautogui.write('caf\\u00e9 \\x41\\tend')  # escapes",
    'pyautogui.write(r"C:\\new\\table")',
    "pyautogui.write('one ' \"two \" '''three''')",
    'pyautogui.write("""a',
    'b""")',
    "pyautogui.click(x=10, \\",
    '  y=20, logScreenshot=None, _pause=True); pyautogui.moveTo(1e2, 2.5e1)',
  ].join('\n')
  const { status, body } = await post(app, '/computer/pyautogui/translate', { response: code })
  t.equal(status, 200)
  t.strictSame(body.actions, [
    typed('café A\tend'),
    typed('C:\\new\\table'),
    typed('one two three'),
    typed('a\nb'),
    click(10, 20),
    { action: 'move_mouse', coordinates: [100, 25] },
  ], 'as read')
  t.strictSame(body.meta.calls.map((c: { line: number }) => c.line), [1, 2, 3, 4, 6, 7])
  const named = await post(app, '/computer/pyautogui/translate', { response: "pyautogui.write('\\N{BULLET}')" })
  t.equal(named.status, 400)
  t.strictSame(named.body, badRequest('ERR_UNPARSEABLE_OUTPUT', `cannot run line 1 of the pyautogui code, "pyautogui.write('\\\\N{BULLET}')": \\N{…} escapes are not supported; write the character itself`))
})
