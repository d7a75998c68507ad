/**
 * The clipboard on a real Xvfb, through xclip owners (drivers/x11/clipboard.ts): nobody
 * owning it reads as empty; text set with set_clipboard and pasted with ctrl+v into Chromium
 * (the oracle page), and with shift+insert from PRIMARY into xterm, arrives exactly (the
 * typing corpus: every script, emoji, combining marks, tabs, newlines); what an application
 * copies with ctrl+c is what get_clipboard returns; set_clipboard after set_clipboard while
 * other clients paste loses none of their pastes and leaves one owner; an owner that never
 * answers is a 504 that says so, not an empty clipboard; a PNG goes round
 * unchanged; both bounds hold; the owner ends with the desktop.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import sharp from 'sharp'
import t from 'tap'
import { XClipboard } from '../drivers/x11/clipboard.ts'
import { buildOnDisplay, startClient, startDesktop, until, waitForWindow } from './helpers/desktop.ts'
import { startOracle, type OracleEvent } from './helpers/oracle.ts'
import { descendants, running } from './helpers/process-table.ts'
import { difference, readCorpus } from './helpers/typing.ts'

const corpus = await readCorpus()
t.setTimeout(240_000)

const { display } = await startDesktop(t)
const clipboard = new XClipboard({ display: () => display, maxBytes: 1024 * 1024 })
t.teardown(() => clipboard.close())
const { app } = await buildOnDisplay(t, display, { clipboard })

async function act (body: Record<string, unknown>) {
  const response = await app.inject({ method: 'POST', url: '/computer', payload: body })
  return { status: response.statusCode, body: response.json() }
}
/** This process' clipboard owners (xclip -i, by their PIDs). */
const ownerPids = () => [...descendants(process.pid)].filter(([, command]) => command.includes('xclip -quiet')).map(([pid]) => pid)

async function ok (body: Record<string, unknown>) {
  const { status, body: answer } = await act(body)
  t.equal(status, 200, `${String(body.action)} answers 200${status === 200 ? '' : `: ${JSON.stringify(answer)}`}`)
  return answer
}

t.test('a clipboard nobody owns reads as empty, CLIPBOARD and PRIMARY', async (t) => {
  for (const selection of ['clipboard', 'primary']) {
    const answer = await ok({ action: 'get_clipboard', selection })
    t.same(answer.clipboard, { selection, kind: 'empty' })
    t.equal(answer.output, `the ${selection} selection is empty`)
  }
})

t.test('set_clipboard then get_clipboard gives back the corpus exactly, through X', async (t) => {
  const set = await ok({ action: 'set_clipboard', text: corpus })
  t.equal(set.output, `set the clipboard selection to ${[...corpus].length} characters of text`)
  t.notMatch(JSON.stringify(set), corpus.slice(0, 20), 'the answer does not repeat the content')
  const got = await ok({ action: 'get_clipboard' })
  t.ok(got.clipboard.text === corpus, `exact${got.clipboard.text === corpus ? '' : `: ${difference(corpus, got.clipboard.text)}`}`)
  // A second clipboard reader on the display (another X client) sees the same.
  const other = new XClipboard({ display: () => display, maxBytes: 1024 * 1024 })
  t.same(await other.read('clipboard'), { kind: 'text', text: corpus })
})

t.test('set_clipboard after set_clipboard while another client keeps pasting: each serves its own content, and one owner is left', async (t) => {
  // The other client pastes (TARGETS, then the text) without pause, as a clipboard manager or
  // an application would; some of its requests reach an owner that is being replaced. A
  // replaced owner ended before it answered would leave such a request, and set_clipboard's own
  // check that the new owner serves, waiting for an answer that never comes.
  const other = new XClipboard({ display: () => display, maxBytes: 1024 * 1024 })
  let pasting = true
  let pastes = 0
  const paster = (async () => { while (pasting) { await other.read('clipboard').catch(() => {}); pastes++ } })()
  const failures: string[] = []
  try {
    for (let i = 0; i < 100; i++) {
      const { status, body } = await act({ action: 'set_clipboard', text: `${i}: ${'Grüße '.repeat(200)}` })
      if (status !== 200) failures.push(`set ${i}: ${status} ${JSON.stringify(body)}`)
    }
  } finally {
    pasting = false
    await paster
  }
  t.strictSame(failures, [], `100 set_clipboard, every one 200 (the other client pasted ${pastes} times meanwhile)`)
  t.ok(pastes > 20, `the other client kept pasting throughout (${pastes} pastes)`)
  t.equal((await ok({ action: 'get_clipboard' })).clipboard.text, `99: ${'Grüße '.repeat(200)}`)
  t.ok(await until(() => ownerPids().length === 1, 5000), `one owner process left: ${JSON.stringify(ownerPids())}`)
})

t.test('a paste asked of an owner that set_clipboard then replaces still gets its answer, and the old owner leaves by itself', async (t) => {
  await ok({ action: 'set_clipboard', text: 'what the clipboard held when the paste asked' })
  const [old] = ownerPids()
  t.ok(old, 'the owner process')
  // The owner is held (as a busy machine would hold it) while a paste's request waits in its
  // queue; set_clipboard replaces it meanwhile.
  process.kill(old!, 'SIGSTOP')
  t.teardown(() => { if (running(old!)) process.kill(old!, 'SIGCONT') })
  const paste = startClient(t, display, 'xclip', ['-selection', 'clipboard', '-o', '-t', 'UTF8_STRING'])
  const pasted = new Promise<number | null>((resolve) => paste.child.once('exit', (code) => resolve(code)))
  await delay(1000)
  t.equal(paste.child.exitCode, null, 'the paste waits for the held owner')
  await ok({ action: 'set_clipboard', text: 'the new content' })
  process.kill(old!, 'SIGCONT')
  const code = await Promise.race([pasted, delay(5000, 'no answer in 5 s')])
  t.equal(code, 0, 'the paste was answered')
  t.equal(paste.output(), 'what the clipboard held when the paste asked', 'with what the clipboard held when it asked')
  t.ok(await until(() => !running(old!), 3000), 'the replaced owner left by itself')
  t.equal((await ok({ action: 'get_clipboard' })).clipboard.text, 'the new content')
})

t.test('an owner that never answers: get_clipboard says so with 504 after the wait, not that the clipboard is empty', async (t) => {
  await ok({ action: 'set_clipboard', text: 'held by a stopped owner' })
  const [owner] = ownerPids()
  t.ok(owner, 'the owner process')
  process.kill(owner!, 'SIGSTOP')
  t.teardown(() => { if (running(owner!)) process.kill(owner!, 'SIGCONT') })
  const asked = performance.now()
  const answer = await act({ action: 'get_clipboard' })
  const waited = performance.now() - asked
  t.strictSame(answer, {
    status: 504,
    body: {
      statusCode: 504,
      code: 'ERR_CLIPBOARD_TIMEOUT',
      error: 'Gateway Timeout',
      message: 'the application that owns the clipboard selection did not answer within 5 s (it may be hung or stopped), so its content could not be read; retry, or replace the content with set_clipboard',
    },
  })
  t.ok(waited >= 4900 && waited < 8000, `after the wait (${Math.round(waited)} ms)`)
  process.kill(owner!, 'SIGCONT')
  // The resumed owner answers the abandoned request to a window that is gone, which ends xclip: what it held is not asserted.
  await ok({ action: 'set_clipboard', text: 'after the stopped owner' })
  t.equal((await ok({ action: 'get_clipboard' })).clipboard.text, 'after the stopped owner', 'the clipboard works on')
})

t.test('pasted with ctrl+v into Chromium, the corpus arrives exactly; what Chromium copies with ctrl+c is what get_clipboard returns', async (t) => {
  const oracle = await startOracle(t, display)
  const inputs = (events: OracleEvent[]) => events.filter((e) => e.type === 'input')
  await ok({ action: 'click_mouse', button: 'left', coordinates: [300, 100] })
  for (let run = 1; run <= 3; run++) {
    // Each run pastes different text: a paste of what the last one left would prove nothing.
    const text = `${run}. ${corpus}`
    await ok({ action: 'set_clipboard', text })
    await ok({ action: 'press_key', keys: ['ctrl', 'a'] })
    oracle.clear()
    await ok({ action: 'press_key', keys: ['ctrl', 'v'] })
    const events = await oracle.until((e) => inputs(e).at(-1)?.value === text, 10_000)
    const value = String(inputs(events).at(-1)?.value ?? '')
    t.ok(value === text, `run ${run}: pasted exactly${value === text ? '' : `: ${difference(text, value)}`}`)
    t.equal(inputs(events).at(-1)?.inputType, 'insertFromPaste', 'as a paste, not typing')
  }

  // Chromium's own copy: replace the text by typing, select it all, ctrl+c.
  const typed = 'Copied in Chromium: Grüße, Ωμέγα, 漢字, 🎉\tend'
  await ok({ action: 'press_key', keys: ['ctrl', 'a'] })
  await ok({ action: 'type_text', text: typed })
  await oracle.until((e) => inputs(e).at(-1)?.value === typed, 10_000)
  await ok({ action: 'press_key', keys: ['ctrl', 'a'] })
  await ok({ action: 'press_key', keys: ['ctrl', 'c'] })
  let got: { kind: string, text?: string } = { kind: 'empty' }
  await until(async () => { got = (await ok({ action: 'get_clipboard' })).clipboard; return got.text === typed }, 5000)
  t.same(got, { selection: 'clipboard', kind: 'text', text: typed }, 'get_clipboard returns what Chromium copied')
  // Selecting made Chromium the owner of PRIMARY too.
  t.same((await ok({ action: 'get_clipboard', selection: 'primary' })).clipboard, { selection: 'primary', kind: 'text', text: typed })
})

t.test('PRIMARY set with set_clipboard and pasted into xterm with shift+insert arrives exactly', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cg-clipboard-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'pasted.txt')
  startClient(t, display, 'xterm', ['-u8', '-class', 'PasteTerm', '-geometry', '100x30+0+0', '-e', 'sh', '-c', `stty -ixon; cat > ${file}`])
  await waitForWindow(display, ['--class', 'PasteTerm'])
  await new Promise((resolve) => setTimeout(resolve, 500))
  // No window manager here (the oracle's went with it): the pointer gives xterm the focus.
  await ok({ action: 'click_mouse', button: 'left', coordinates: [200, 200] })
  // cat writes a line when it ends: the text ends with one, so the file shows it all.
  const text = `${corpus}\n`
  await ok({ action: 'set_clipboard', selection: 'primary', text })
  await ok({ action: 'press_key', keys: ['shift', 'insert'] })
  const content = async () => readFile(file, 'utf8').catch(() => '')
  await until(async () => (await content()) === text, 10_000)
  const value = await content()
  t.ok(value === text, `xterm received the corpus exactly${value === text ? '' : `: ${difference(text, value)}`}`)
})

t.test('a PNG goes round unchanged, and is what get_clipboard reads unless text is asked for', async (t) => {
  const png = await sharp({ create: { width: 7, height: 5, channels: 4, background: { r: 200, g: 30, b: 90, alpha: 1 } } }).png().toBuffer()
  const set = await ok({ action: 'set_clipboard', image: png.toString('base64') })
  t.equal(set.output, `set the clipboard selection to a PNG image of ${png.length} bytes`)
  const got = await ok({ action: 'get_clipboard' })
  t.same(got.clipboard, { selection: 'clipboard', kind: 'image', image: png.toString('base64') })
})

t.test('bad content and content over the bounds are refused; nothing is left set by a refusal', async (t) => {
  await ok({ action: 'set_clipboard', text: 'before' })
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['neither text nor image', { action: 'set_clipboard' }, 400, 'set_clipboard needs exactly one of text or image'],
    ['both', { action: 'set_clipboard', text: 'a', image: 'iVBORw0KGgo=' }, 400, 'set_clipboard needs exactly one of text or image'],
    ['not base64', { action: 'set_clipboard', image: 'not base64!' }, 400, 'image must be a PNG image in base64 (no data: prefix); it is not base64'],
    ['not a PNG', { action: 'set_clipboard', image: Buffer.from('GIF89a....').toString('base64') }, 400, 'image must be a PNG image in base64; these bytes are not a PNG (they lack its signature)'],
    ['a lone surrogate', { action: 'set_clipboard', text: 'a\ud800b' }, 400, ''],
    ['a bad selection', { action: 'get_clipboard', selection: 'secondary' }, 400, "selection must be 'clipboard' or 'primary'"],
  ]
  for (const [name, body, status, message] of cases) {
    const answer = await act(body)
    t.equal(answer.status, status, name)
    if (message) t.equal(answer.body.message, message, name)
  }
  t.equal((await ok({ action: 'get_clipboard' })).clipboard.text, 'before')

  // Reading is bounded too: a reader with a 1000-byte bound refuses 2000 bytes.
  await ok({ action: 'set_clipboard', text: 'x'.repeat(2000) })
  const small = new XClipboard({ display: () => display, maxBytes: 1000 })
  await t.rejects(small.read('clipboard'), { statusCode: 413, message: 'the clipboard selection holds more than 1000 bytes (--max-clipboard-bytes)' })
  await t.rejects(small.write('clipboard', { kind: 'text', text: 'y'.repeat(1001) }), { statusCode: 413, message: 'the clipboard content is 1001 bytes, over the limit of 1000 (--max-clipboard-bytes)' })
  t.equal((await ok({ action: 'get_clipboard' })).clipboard.text, 'x'.repeat(2000))
})

t.test('the selection owner ends with the desktop: after close, nobody owns the clipboard', async (t) => {
  const own = new XClipboard({ display: () => display, maxBytes: 1024 })
  await own.write('clipboard', { kind: 'text', text: 'held by an owner that is about to end' })
  const reader = new XClipboard({ display: () => display, maxBytes: 1024 })
  t.same(await reader.read('clipboard'), { kind: 'text', text: 'held by an owner that is about to end' })
  await own.close()
  t.same(await reader.read('clipboard'), { kind: 'empty' })
})
