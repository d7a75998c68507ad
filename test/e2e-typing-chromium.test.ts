/**
 * type_text is exact for any text on any layout, in a browser: a corpus of every printable
 * ASCII character, accented Latin in both cases, Greek, Cyrillic, CJK, emoji beyond the BMP
 * (skin tones, flags, ZWJ families), combining marks, Hebrew and Arabic, newlines and tabs —
 * typed through the server 5 times out of 5 into a Chromium textarea, on the us layout, after
 * `setxkbmap de` and after `setxkbmap gr` (Greek). e2e-typing-xterm does the same in xterm.
 */
import t from 'tap'
import { startOracle, type OracleEvent } from './helpers/oracle.ts'
import { difference, LAYOUTS, readCorpus, RUNS, typingDesktop } from './helpers/typing.ts'

const corpus = await readCorpus()
// Fifteen corpus runs: longer than the default file timeout on a loaded machine.
t.setTimeout(300_000)
let desktop: Awaited<ReturnType<typeof typingDesktop>>
let oracle: Awaited<ReturnType<typeof startOracle>>
t.before(async () => {
  desktop = await typingDesktop(t, t)
  oracle = await startOracle(t, desktop.display)
})

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
  await desktop.act({ action: 'click_mouse', button: 'left', coordinates: [300, 100] })
  for (const layout of LAYOUTS) {
    await desktop.setLayout(layout)
    for (let i = 1; i <= RUNS; i++) {
      oracle.clear()
      expected += corpus
      const started = performance.now()
      await desktop.act({ action: 'type_text', text: corpus })
      const ms = Math.round(performance.now() - started)
      const events = await oracle.until((e) => inputs(e).at(-1)?.value === expected, 15_000)
      const value = String(inputs(events).at(-1)?.value ?? '')
      t.ok(value === expected, `${layout} run ${i} exact (${[...corpus].length} characters in ${ms} ms)${value === expected ? '' : `: ${difference(expected, value)}`}`)
    }
  }
  await desktop.setLayout('us')
})

