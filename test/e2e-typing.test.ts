/**
 * type_text is exact for any text on any layout: a corpus of every printable ASCII character,
 * accented Latin in both cases, Greek, Cyrillic, CJK, emoji beyond the BMP (skin tones, flags,
 * ZWJ families), combining marks, Hebrew and Arabic, newlines and tabs — typed through the
 * server 5 times out of 5 into xterm (cat > file, where nothing can be pasted) and into a
 * Chromium textarea, on the us layout, after `setxkbmap de` and after `setxkbmap gr` (Greek).
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { buildOnDisplay, startClient, startDesktop, until, waitForWindow } from './helpers/desktop.ts'
import { startOracle, type OracleEvent } from './helpers/oracle.ts'

const run = promisify(execFile)
const RUNS = 5
const LAYOUTS = ['us', 'de', 'gr']

let app: Awaited<ReturnType<typeof buildOnDisplay>>['app']
let oracle: Awaited<ReturnType<typeof startOracle>>
let display: string
let corpus: string
t.before(async () => {
  corpus = await readFile(new URL('./fixtures/typing/corpus.txt', import.meta.url), 'utf8')
  const xvfb = await startDesktop(t)
  display = xvfb.display
  app = (await buildOnDisplay(t, display)).app
  oracle = await startOracle(t, display)
})

const setLayout = (layout: string) => run('setxkbmap', [layout], { env: { ...process.env, DISPLAY: display } })

async function act (body: unknown) {
  const response = await app.inject({ method: 'POST', url: '/computer', payload: body as object })
  t.equal(response.statusCode, 200, JSON.stringify(body).slice(0, 80))
}

/** Where two strings first differ, for a failure message a person can read. */
function difference (expected: string, actual: string): string {
  const [a, b] = [[...expected], [...actual]]
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return `from code point ${i}: expected ${JSON.stringify(a.slice(i, i + 12).join(''))}, got ${JSON.stringify(b.slice(i, i + 12).join(''))}`
}

t.test('the corpus is what the issue asks for', async (t) => {
  const chars = [...corpus]
  t.ok(chars.length >= 300, `${chars.length} code points`)
  for (const [what, pattern] of Object.entries({
    'shifted ASCII punctuation': /[~!@#$%^&*()_+{}|:"<>?]/,
    'upper-case accented Latin': /[ÀÉÑÜŸ]/,
    Greek: /\p{Script=Greek}/u,
    Cyrillic: /\p{Script=Cyrillic}/u,
    CJK: /\p{Script=Han}/u,
    'emoji beyond the BMP': /[\u{1F600}-\u{1FAFF}]/u,
    'combining marks': /\p{M}/u,
    Hebrew: /\p{Script=Hebrew}/u,
    Arabic: /\p{Script=Arabic}/u,
    newline: /\n/,
    tab: /\t/,
  })) t.match(corpus, pattern, what)
})

t.test('Chromium receives the corpus exactly, 5 of 5, on us, de and gr', { timeout: 300_000 }, async (t) => {
  // Chromium answers the window manager's ping, so the typer knows when it has read the keys
  // pressed under one binding of the spare keycodes before it rebinds them (focus-ping.ts).
  const inputs = (events: OracleEvent[]) => events.filter((e) => e.type === 'input')
  let expected = ''
  await act({ action: 'click_mouse', button: 'left', coordinates: [300, 100] })
  for (const layout of LAYOUTS) {
    await setLayout(layout)
    for (let i = 1; i <= RUNS; i++) {
      oracle.clear()
      expected += corpus
      const started = performance.now()
      await act({ action: 'type_text', text: corpus })
      const ms = Math.round(performance.now() - started)
      const events = await oracle.until((e) => inputs(e).at(-1)?.value === expected, 15_000)
      const value = String(inputs(events).at(-1)?.value ?? '')
      t.ok(value === expected, `${layout} run ${i} exact (${[...corpus].length} characters in ${ms} ms)${value === expected ? '' : `: ${difference(expected, value)}`}`)
    }
  }
  await setLayout('us')
})

t.test('xterm (cat > file) receives the corpus exactly, 5 of 5, on us, de and gr', { timeout: 240_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cg-typing-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'typed.txt')
  startClient(t, display, 'xterm', ['-u8', '-class', 'TypingTerm', '-geometry', '100x30+0+0', '-e', 'sh', '-c', `stty -ixon; cat > ${file}`])
  await waitForWindow(display, ['--class', 'TypingTerm'])
  await new Promise((resolve) => setTimeout(resolve, 500))
  // The window manager focuses a new window; click into it to be sure.
  await act({ action: 'click_mouse', button: 'left', coordinates: [200, 200] })
  let expected = ''
  for (const layout of LAYOUTS) {
    await setLayout(layout)
    for (let i = 1; i <= RUNS; i++) {
      // cat writes a line when it ends: end every run with one, so the file shows it all.
      expected += corpus + '\n'
      await act({ action: 'type_text', text: corpus + '\n' })
      const content = async () => readFile(file, 'utf8').catch(() => '')
      await until(async () => (await content()) === expected, 10_000)
      const value = await content()
      t.ok(value === expected, `${layout} run ${i} exact${value === expected ? '' : `: ${difference(expected, value)}`}`)
    }
  }
  await setLayout('us')
})
