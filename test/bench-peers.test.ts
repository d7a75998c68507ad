/**
 * What the peers bench (bench/peers/) sends its peers, without the peers: the code OSWorld's
 * guest would run is valid Python that carries the typed text unchanged, and cua's /cmd
 * answers are read as its server writes them, a failed handler's 200 being a failure. The
 * bench itself (it installs from PyPI) runs in `npm run bench`, not here.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { cuaResult, pyautoguiCode } from '../bench/peers/peer-drivers.ts'
import { MIXED_TEXT } from '../bench/peers/peers.ts'

const run = promisify(execFile)

/** Python's own reading of CODE: the call's name and its arguments, as JSON. */
async function pythonCall (code: string): Promise<unknown> {
  const reader = [
    'import ast, json, sys',
    'tree = ast.parse(sys.argv[1])',
    'call = tree.body[-1].value',
    'print(json.dumps([ast.unparse(call.func), [ast.literal_eval(a) for a in call.args], {k.arg: ast.literal_eval(k.value) for k in call.keywords}]))',
  ].join('\n')
  const { stdout } = await run('python3', ['-c', reader, code])
  return JSON.parse(stdout)
}

t.test('the pyautogui code per action is Python that says what the bench meant', async (t) => {
  const cases: Array<[string, string, unknown]> = [
    ['click', pyautoguiCode.click(210, 330), ['pyautogui.click', [210, 330], {}]],
    ['type the mixed text', pyautoguiCode.type(MIXED_TEXT), ['pyautogui.typewrite', [MIXED_TEXT], {}]],
    ['type quotes and backslashes', pyautoguiCode.type('it\'s "a" \\ b'), ['pyautogui.typewrite', ['it\'s "a" \\ b'], {}]],
    ['key combo', pyautoguiCode.keyCombo(['ctrl', 'a']), ['pyautogui.hotkey', ['ctrl', 'a'], {}]],
    ['scroll down', pyautoguiCode.scroll(400, 500, 3), ['pyautogui.scroll', [-3], { x: 400, y: 500 }]],
  ]
  for (const [name, code, expected] of cases) t.strictSame(await pythonCall(code), expected, name)
  t.equal([...MIXED_TEXT].length, 40, 'the mixed text is 40 characters')
})

t.test("cua's /cmd answers", async (t) => {
  t.strictSame(cuaResult('screenshot', 200, 'data: {"success": true, "image_data": "iVBOR"}\n\n'), { success: true, image_data: 'iVBOR' })
  const failures: Array<[string, number, string, string]> = [
    ['a handler that failed', 200, 'data: {"success": false, "error": "no display"}\n\n', 'cua left_click: 200 no display'],
    ['a refused request', 401, '{"detail":"Container name required"}', 'cua left_click: 401 {"detail":"Container name required"}'],
    ['an unknown command', 400, '{"detail":"Unknown command: left_click"}', 'cua left_click: 400 {"detail":"Unknown command: left_click"}'],
  ]
  for (const [name, status, body, message] of failures) t.throws(() => cuaResult('left_click', status, body), { message }, name)
})
