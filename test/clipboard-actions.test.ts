/**
 * The clipboard actions above the desktop (the fake clipboard; the X one is proven in
 * e2e-clipboard): off unless the server has a clipboard, with a refusal saying how to turn it
 * on; MCP lists get_clipboard and set_clipboard only when on; they run in batches and as MCP
 * tools, and their outputs give sizes, never the content.
 */
import t from 'tap'
import { FakeClipboard } from '../drivers/fake/fake-clipboard.ts'
import { build, post } from './helpers/build.ts'

t.test('off unless the server has a clipboard: refused with how to turn it on, and not listed over MCP', async (t) => {
  const { app } = await build(t)
  for (const action of ['get_clipboard', 'set_clipboard']) {
    const { status, body } = await post(app, '/computer', { action, ...(action === 'set_clipboard' && { text: 'x' }) })
    t.same({ status, body }, {
      status: 400,
      body: { statusCode: 400, code: 'ERR_UNSUPPORTED_ACTION', error: 'Bad Request', message: `${action} is off on this server: start it with --clipboard (env CLIPBOARD=1)` },
    }, action)
  }
  const names = (await app.mcpTools.list()).map((tool) => tool.name)
  t.notOk(names.includes('get_clipboard') || names.includes('set_clipboard'), 'MCP does not list them')
  t.ok(names.includes('type_text'))
})

t.test('on: a batch sets and reads; MCP lists and calls them; outputs say sizes, not content', async (t) => {
  const { app, logs } = await build(t, { clipboard: new FakeClipboard() })
  const secret = 'pässwörd 🎉 line\nnext'
  const batch = await post(app, '/computer/batch', { actions: [
    { action: 'set_clipboard', text: secret },
    { action: 'get_clipboard' },
    { action: 'get_clipboard', selection: 'primary' },
  ] })
  t.equal(batch.status, 200)
  t.same(batch.body.results.map((result: { output: string, clipboard?: unknown }) => [result.output, result.clipboard]), [
    [`set the clipboard selection to ${[...secret].length} characters of text`, undefined],
    [`the clipboard selection holds ${[...secret].length} characters of text`, { selection: 'clipboard', kind: 'text', text: secret }],
    ['the primary selection is empty', { selection: 'primary', kind: 'empty' }],
  ])
  t.notOk(JSON.stringify(logs).includes('pässwörd'), 'the content is never logged')

  const names = (await app.mcpTools.list()).map((tool) => tool.name)
  t.ok(names.includes('get_clipboard') && names.includes('set_clipboard'), 'MCP lists them')
  const set = await app.mcpTools.call('set_clipboard', { text: 'from MCP' })
  t.notOk(set.isError)
  const got = await app.mcpTools.call('get_clipboard', {})
  t.same(got.structuredContent?.clipboard, { selection: 'clipboard', kind: 'text', text: 'from MCP' })
  t.equal(got.content[0]?.type === 'text' && got.content[0].text, 'the clipboard selection holds 8 characters of text; cursor at (0, 0)\nfrom MCP')
})

t.test('pyautogui code types through the clipboard as UI-TARS does: pyperclip.copy, ctrl+v; pyperclip.paste() answers what it holds', async (t) => {
  const clipboard = new FakeClipboard()
  const { app, driver } = await build(t, { clipboard })
  const code = "pyperclip.copy('Grüße, 世界')\npyautogui.hotkey('ctrl', 'v')\npyperclip.paste()"
  const { status, body } = await post(app, '/computer/pyautogui?screenshot=false', { response: code })
  t.equal(status, 200, JSON.stringify(body))
  t.strictSame(body.calls.map((call: Record<string, unknown>) => [call.name, call.actions, call.status, call.returned]), [
    ['pyperclip.copy', [{ action: 'set_clipboard', text: 'Grüße, 世界' }], 'done', undefined],
    ['pyautogui.hotkey', [{ action: 'press_key', keys: ['ctrl', 'v'] }], 'done', undefined],
    ['pyperclip.paste', [{ action: 'get_clipboard', type: 'text' }], 'done', 'Grüße, 世界'],
  ])
  t.strictSame(driver.calls.filter((call) => call.call === 'keyDown' || call.call === 'keyUp').map((call) => call.call), ['keyDown', 'keyDown', 'keyUp', 'keyUp'], 'ctrl+v was pressed and released')

  const off = await build(t, {})
  const refused = await post(off.app, '/computer/pyautogui?screenshot=false', { response: "pyperclip.copy('x')" })
  t.equal(refused.status, 400)
  t.match(refused.body.error, { code: 'ERR_UNSUPPORTED_ACTION', message: 'set_clipboard is off on this server: start it with --clipboard (env CLIPBOARD=1)' })
  const bad = await post(off.app, '/computer/pyautogui?screenshot=false', { response: 'pyperclip.copy(3)' })
  t.equal(bad.status, 400)
  t.match(bad.body, { message: /pyperclip\.copy needs text, the string to put on the clipboard/ })
})
