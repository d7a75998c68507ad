/**
 * OSWorld's guest protocol, the pure parts: what an /execute body becomes, the statements of
 * its code, shell words, paths into the home, the application a file opens in, the window a
 * name means, the harness's answer, the tree in OSWorld's XML and /terminal's text.
 */
import t from 'tap'
import { guestCommand, pythonCode, shlexSplit, statements } from '../src/osworld/command.ts'
import { homeRelative } from '../src/osworld/paths.ts'
import { openWith } from '../src/osworld/open-with.ts'
import { matchWindow } from '../src/osworld/window-match.ts'
import { executeAnswer, failedAnswer, runPythonAnswer } from '../src/osworld/execute-answer.ts'
import { byApplication, nodeXml, osworldTree, OSWORLD_NAMESPACES } from '../src/osworld/atspi-xml.ts'
import { terminalText } from '../src/osworld/terminal.ts'
import { AtspiState, stateWords } from '../src/accessibility/states.ts'
import type { RawNode, RawWindow } from '../src/accessibility/source.ts'
import { UnparseableModelOutput, DesktopUnavailable } from '../src/errors/errors.ts'

const PRELUDE = 'import pyautogui; import time; pyautogui.FAILSAFE = False; '

t.test('guestCommand: python -c code is read as pyautogui; anything else is for the shell', async (t) => {
  const cases: Array<[string, string | string[], boolean, unknown]> = [
    ["the harness's own form", ['python', '-c', `${PRELUDE}pyautogui.click(10, 20)`], false, { kind: 'pyautogui', code: 'pyautogui.click(10, 20)' }],
    ['python3 by path, several lines', ['/usr/bin/python3', '-c', `${PRELUDE}import pyautogui\npyautogui.write('a; b')\ntime.sleep(0.5)`], false,
      { kind: 'pyautogui', code: "pyautogui.write('a; b')\ntime.sleep(0.5)" }],
    ['a call over several lines', ['python', '-c', `${PRELUDE}pyautogui.hotkey(\n  'ctrl',\n  'c')`], false, { kind: 'pyautogui', code: "pyautogui.hotkey(   'ctrl',   'c')" }],
    ['the prelude alone does nothing', ['python', '-c', PRELUDE], false, { kind: 'pyautogui', code: '' }],
    ['one string, split as shlex does', `python3 -c "${PRELUDE}pyautogui.press('enter')"`, false, { kind: 'pyautogui', code: "pyautogui.press('enter')" }],
    ["DesktopEnv's platform question", ['python', '-c', `${PRELUDE}import platform; print(platform.system())`], false, { kind: 'platform' }],
    ['Python that is not the dialect', ['python', '-c', 'import os; os.remove("/tmp/x")'], false,
      { kind: 'shell', command: ['python', '-c', 'import os; os.remove("/tmp/x")'], shell: false }],
    ['a program', ['libreoffice', '--calc'], false, { kind: 'shell', command: ['libreoffice', '--calc'], shell: false }],
    ['a shell line', 'echo hi > ~/a.txt', true, { kind: 'shell', command: 'echo hi > ~/a.txt', shell: true }],
    ['python with other options', ['python', '-u', 'x.py'], false, { kind: 'shell', command: ['python', '-u', 'x.py'], shell: false }],
  ]
  for (const [name, command, shell, expected] of cases) t.same(guestCommand(command, shell), expected, name)
})

t.test('pythonCode: /run_python scripts', async (t) => {
  t.same(pythonCode("import pyautogui\npyautogui.typewrite('hi')\n"), { kind: 'pyautogui', code: "pyautogui.typewrite('hi')" })
  t.same(pythonCode('print(1)'), { kind: 'shell', command: ['python3', '-c', 'print(1)'], shell: false })
  t.same(pythonCode('DONE'), { kind: 'pyautogui', code: 'DONE' })
})

t.test('statements: split at ; and newlines outside strings, brackets and comments', async (t) => {
  const cases: Array<[string, string[]]> = [
    ['a(1); b(2)', ['a(1)', 'b(2)']],
    ["w('x;y')\n# c(3); d(4)\ne('#')", ["w('x;y')", "e('#')"]],
    ['f("""a\nb;""")', ['f("""a\nb;""")']],
    ["w('it\\'s;')", ["w('it\\'s;')"]],
    ['g(1,\n2)', ['g(1, 2)']],
    ['h(1) \\\n+ 2', ['h(1)  + 2']],
    ['\n\n ;; \n', []],
  ]
  for (const [source, expected] of cases) t.same(statements(source), expected, JSON.stringify(source))
})

t.test('shlexSplit: POSIX words as Python splits them', async (t) => {
  const cases: Array<[string, string[] | undefined]> = [
    ['a b  c', ['a', 'b', 'c']],
    [`python -c "print('x y')"`, ['python', '-c', "print('x y')"]],
    [String.raw`a\ b 'c d' "e \"f\" \g"`, ['a b', 'c d', String.raw`e "f" \g`]],
    ['x""y', ['xy']],
    ["'open", undefined],
    ['"open', undefined],
    ['', []],
  ]
  for (const [line, expected] of cases) t.same(shlexSplit(line), expected, line)
})

t.test('homeRelative: ~, $HOME and absolute paths under the home; others refused', async (t) => {
  const home = '/home/user'
  const cases: Array<[string, string]> = [
    ['~/Desktop/a.xlsx', 'Desktop/a.xlsx'],
    ['$HOME/b.txt', 'b.txt'],
    ['${HOME}/c', 'c'],
    ['/home/user/Documents/d.docx', 'Documents/d.docx'],
    ['/home/user/', ''],
    ['~', ''],
    ['/home/user/x/../y', 'y'],
    ['notes.txt', 'notes.txt'],
    ['~other/x', '~other/x'],
  ]
  for (const [path, expected] of cases) t.equal(homeRelative(path, home), expected, path)
  for (const path of ['/etc/passwd', '/home/user2/a', '/home/user/../root/x', '/home']) {
    t.throws(() => homeRelative(path, home), { code: 'ERR_PATH_FORBIDDEN', statusCode: 403, message: `'${path}' lies outside the desktop's home (/home/user): this server reads and writes files under it only; name it as ~/… or /home/user/…` }, path)
  }
})

t.test('openWith: the application for a file', async (t) => {
  const cases: Array<[string, boolean, string]> = [
    ['Desktop/a.XLSX', false, 'spreadsheet'], ['b.csv', false, 'spreadsheet'], ['c.docx', false, 'writer'], ['d.pdf', false, 'pdf'],
    ['e.html', false, 'browser'], ['f.txt', false, 'editor'], ['Makefile', false, 'editor'], ['Documents', true, 'files'],
  ]
  for (const [path, directory, app] of cases) t.equal(openWith(path, directory), app, path)
})

t.test('matchWindow: as wmctrl -a, -Fa, -xa', async (t) => {
  const windows = [
    { id: '0x1', title: 'notes.txt - Mousepad', class: 'Mousepad' },
    { id: '0x2', title: 'Terminal - user@host', class: 'Xfce4-terminal' },
    { id: '0x3', title: 'Mousepad', class: 'Mousepad' },
  ]
  const cases: Array<[string, { strict?: boolean, byClass?: boolean }, string | undefined]> = [
    ['mousepad', {}, '0x1'],
    ['Mousepad', { strict: true }, '0x3'],
    ['mousepad', { strict: true }, undefined],
    ['xfce4-terminal', { byClass: true }, '0x2'],
    ['terminal', { byClass: true }, '0x2'],
    ['firefox', {}, undefined],
  ]
  for (const [name, options, id] of cases) t.equal(matchWindow(windows, name, options)?.id, id, `${name} ${JSON.stringify(options)}`)
})

t.test("executeAnswer / failedAnswer / runPythonAnswer: the harness's words", async (t) => {
  t.same(executeAnswer(200, { calls: [], error: null }), { status: 'success', output: '', error: '', returncode: 0 })
  t.same(executeAnswer(400, { error: { statusCode: 400, code: 'ERR_POINT_OUT_OF_BOUNDS', error: 'Bad Request', message: 'x 5000 is outside' } }),
    { status: 'success', output: '', error: 'ERR_POINT_OUT_OF_BOUNDS: x 5000 is outside\n', returncode: 1 })
  t.throws(() => executeAnswer(503, { error: { statusCode: 503, code: 'ERR_DESKTOP_UNAVAILABLE', error: 'Service Unavailable', message: 'restarting' } }),
    { statusCode: 503, code: 'ERR_DESKTOP_UNAVAILABLE', message: 'restarting' })
  t.same(failedAnswer(new UnparseableModelOutput('cannot run line 1')), { status: 'success', output: '', error: 'ERR_UNPARSEABLE_OUTPUT: cannot run line 1\n', returncode: 1 })
  const down = new DesktopUnavailable('down')
  t.throws(() => failedAnswer(down), down)
  t.same(runPythonAnswer({ status: 'success', output: 'a', error: 'b', returncode: 1 }),
    { status: 'error', message: 'a\nb', need_more: false, output: 'a', error: 'b', return_code: 1 })
  t.same(runPythonAnswer({ status: 'success', output: '', error: '', returncode: 0 }),
    { status: 'success', message: '', need_more: false, output: '', error: '', return_code: 0 })
})

const node = (role: string, name: string, fields: Partial<RawNode> = {}): RawNode => ({
  ref: { bus: ':1.5', path: `/org/a11y/atspi/accessible/${role.replace(/ /g, '')}${name}` },
  role, name, description: '', states: [0, 0], interfaces: [], attributes: {}, extents: null, actions: [], text: null, value: null, labelledBy: null, children: [],
  ...fields,
})
const shown = stateWords(AtspiState.ENABLED, AtspiState.SENSITIVE, AtspiState.SHOWING, AtspiState.VISIBLE)

t.test("nodeXml: OSWorld's element for an accessible", async (t) => {
  const cases: Array<[string, RawNode, string]> = [
    ['a shown button, its states, attributes and place',
      node('push button', 'OK', { states: shown, attributes: { toolkit: 'gtk' }, extents: [10, 20, 80, 30], interfaces: ['Action', 'Component'] }),
      '<push-button name="OK" st:enabled="true" st:sensitive="true" st:showing="true" st:visible="true" attr:toolkit="gtk" cp:screencoord="(10, 20)" cp:size="(80, 30)"/>'],
    ['a hidden one has no place',
      node('label', 'x', { states: stateWords(AtspiState.ENABLED), extents: [1, 2, 3, 4] }),
      '<label name="x" st:enabled="true"/>'],
    ['text, escaped, placeholders dropped; a value; image and selection',
      node('text', 'a<b & "c"', { text: 'x < y\ufffc & z', value: { current: 3, min: 0, max: 10.5 }, interfaces: ['Image', 'Selection'], states: stateWords(17) }),
      '<text name="a&lt;b &amp; &quot;c&quot;" st:multi_line="true" image="true" selection="true" val:value="3.0" val:min="0.0" val:max="10.5">x &lt; y &amp; z</text>'],
    ['children nest; an empty role is unknown; odd attribute names made XML names',
      node('', '', { attributes: { 'xml-roles': 'main', '1st': 'y', 'a:b': 'z' }, children: [node('paragraph', 'p')] }),
      '<unknown name="" attr:xml-roles="main" attr:_1st="y" attr:a-b="z"><paragraph name="p"/></unknown>'],
    ['control characters XML cannot hold are dropped; newlines kept in text, escaped in attributes',
      node('terminal', 'a\nb\u0007', { text: 'line 1\nline 2\u0000' }),
      '<terminal name="a&#10;b">line 1\nline 2</terminal>'],
  ]
  for (const [name, raw, expected] of cases) t.equal(nodeXml(raw), expected, name)
})

t.test('osworldTree / byApplication: desktop-frame, one application per program, its namespaces', async (t) => {
  const frameA = node('frame', 'Calc', { ref: { bus: ':1.5', path: '/a' } })
  const frameB = node('frame', 'Term', { ref: { bus: ':1.9', path: '/b' } })
  const frameC = node('dialog', 'Save', { ref: { bus: ':1.5', path: '/c' } })
  const windows: RawWindow[] = [
    { ref: frameA.ref, role: 'frame', title: 'Calc', states: [0, 0], extents: null, app: { name: 'soffice', pid: 10 } },
    { ref: frameB.ref, role: 'frame', title: 'Term', states: [0, 0], extents: null, app: { name: 'xfce4-terminal', pid: 11 } },
    { ref: frameC.ref, role: 'dialog', title: 'Save', states: [0, 0], extents: null, app: { name: 'soffice', pid: 10 } },
  ]
  const ns = Object.entries(OSWORLD_NAMESPACES).map(([prefix, uri]) => ` xmlns:${prefix}="${uri}"`).join('')
  t.equal(osworldTree(byApplication(windows, [frameA, frameB, frameC])),
    `<desktop-frame${ns}><application name="soffice"><frame name="Calc"/><dialog name="Save"/></application>` +
    '<application name="xfce4-terminal"><frame name="Term"/></application></desktop-frame>')
  t.equal(osworldTree([]), `<desktop-frame${ns}></desktop-frame>`)
})

t.test('terminalText: the focused terminal of the active window', async (t) => {
  const focused = stateWords(AtspiState.FOCUSED)
  const term = (text: string, states = focused) => node('terminal', '', { text, states })
  const window = (root: RawNode, active: boolean): RawWindow =>
    ({ ref: root.ref, role: 'frame', title: '', states: active ? stateWords(AtspiState.ACTIVE) : [0, 0], extents: null, app: { name: 'xfce4-terminal', pid: 1 } })
  const active = node('frame', 'A', { ref: { bus: ':1', path: '/a' }, children: [node('filler', '', { children: [term('$ ls\nfile  \n\n')] })] })
  const inactive = node('frame', 'B', { ref: { bus: ':1', path: '/b' }, children: [term('other')] })
  t.equal(terminalText([window(active, true), window(inactive, false)], [active, inactive]), '$ ls\nfile')
  t.equal(terminalText([window(active, false), window(inactive, false)], [active, inactive]), null, 'no active window')
  const unfocused = node('frame', 'C', { ref: { bus: ':1', path: '/c' }, children: [term('x', [0, 0])] })
  t.equal(terminalText([window(unfocused, true)], [unfocused]), null, 'no focused terminal')
})
