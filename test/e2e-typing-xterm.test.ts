/**
 * type_text is exact for any text on any layout in a plain X client, where nothing can be
 * pasted: the corpus of e2e-typing-chromium typed 5 times out of 5 into xterm running
 * `cat > file`, on the us layout, after `setxkbmap de` and after `setxkbmap gr` (Greek).
 * xterm does not answer the window manager's ping: before it rebinds the spare keycodes, the
 * typer waits until xterm has redrawn a synthetic Expose sent behind the keys
 * (drivers/x11/focus-expose.ts), also when xterm is held up far longer than the typer's timed
 * pause (stopped for 600 ms);
 * and 30 rounds in a row of mixed text with more characters off the keymap than there are spare
 * keycodes (two bindings a round, one call after another), each exact.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startClient, until, waitForWindow } from './helpers/desktop.ts'
import { difference, LAYOUTS, readCorpus, RUNS, typingDesktop } from './helpers/typing.ts'

const corpus = await readCorpus()
// Fifteen corpus runs and 30 rounds: longer than the default file timeout on a loaded machine.
t.setTimeout(420_000)
let desktop: Awaited<ReturnType<typeof typingDesktop>>
t.before(async () => { desktop = await typingDesktop(t, t) })

/** xterm running `cat > file`, focused; `content` reads the file (what xterm sent on, line by line). */
async function catTerminal (t: Test) {
  const dir = await mkdtemp(join(tmpdir(), 'cg-typing-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'typed.txt')
  const { child } = startClient(t, desktop.display, 'xterm', ['-u8', '-class', 'TypingTerm', '-geometry', '100x30+0+0', '-e', 'sh', '-c', `stty -ixon; cat > ${file}`])
  await waitForWindow(desktop.display, ['--class', 'TypingTerm'])
  await new Promise((resolve) => setTimeout(resolve, 500))
  // The window manager focuses a new window; click into it to be sure.
  await desktop.act({ action: 'click_mouse', button: 'left', coordinates: [200, 200] })
  return { pid: child.pid!, content: async () => readFile(file, 'utf8').catch(() => '') }
}

t.test('xterm (cat > file) receives the corpus exactly, 5 of 5, on us, de and gr', { timeout: 240_000 }, async (t) => {
  const { content } = await catTerminal(t)
  // What the file held before a run: each run is judged on its own, so one garbled run is one failure.
  let before = ''
  for (const layout of LAYOUTS) {
    await desktop.setLayout(layout)
    for (let i = 1; i <= RUNS; i++) {
      // cat writes a line when it ends: end every run with one, so the file shows it all.
      const expected = before + corpus + '\n'
      await desktop.act({ action: 'type_text', text: corpus + '\n' })
      await until(async () => (await content()) === expected, 10_000)
      const value = await content()
      t.ok(value === expected, `${layout} run ${i} exact${value === expected ? '' : `: ${difference(corpus + '\n', value.slice(before.length))}`}`)
      before = value
    }
  }
  await desktop.setLayout('us')
})

t.test('xterm stopped while the keys of one binding are typed reads them all before the next binding', async (t) => {
  const { pid, content } = await catTerminal(t)
  // 40 CJK characters: more than the spare keycodes, so two bindings.
  const text = Array.from({ length: 40 }, (_, i) => String.fromCodePoint(0x4e00 + 7 * i)).join('') + '\n'
  t.equal(new Set(text).size, 41, 'forty distinct characters off the keymap, and the newline')
  let stopped = true
  t.teardown(() => { if (stopped) process.kill(pid, 'SIGCONT') })
  // Stopped, xterm reads nothing: a rebind after the timed pause (~270 ms here) would come
  // before it reads the first binding's keys. It goes on 600 ms later, while type_text waits.
  process.kill(pid, 'SIGSTOP')
  const resume = setTimeout(() => { process.kill(pid, 'SIGCONT'); stopped = false }, 600)
  t.teardown(() => clearTimeout(resume))
  await desktop.act({ action: 'type_text', text })
  await until(async () => (await content()) === text, 10_000)
  const value = await content()
  t.ok(value === text, `exact${value === text ? '' : `: ${difference(text, value)}`}`)
})

/** Characters on no key of the us layout: Cyrillic, Greek, CJK, kana, Hangul, symbols. */
const OFF_KEYMAP = [...'жщшыюяёэфцчйкгдлпбвнмсртухзъьАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩ中文字符测试日本語ひらがなカタカナ한국어αβγδεζηθλμνξπρστφχψω€£¥©®™✓✗→←↑↓']

/** Round `i`: 60 characters off the keymap (about 50 distinct: more than the spare keycodes), ASCII among them. */
function mixedRound (i: number): string {
  let text = ''
  for (let j = 0; j < 60; j++) text += OFF_KEYMAP[(i * 31 + j * 17) % OFF_KEYMAP.length] + (j % 7 === 0 ? ' a' : '')
  return text + '\n'
}

t.test('30 rounds of mixed text, two bindings each, one call after another: every round exact', { timeout: 180_000 }, async (t) => {
  const { content } = await catTerminal(t)
  t.ok(new Set(mixedRound(0)).size > 40, 'a round has more distinct characters than the spare keycodes')
  let before = ''
  const wrong: string[] = []
  for (let i = 0; i < 30; i++) {
    const text = mixedRound(i)
    const expected = before + text
    await desktop.act({ action: 'type_text', text })
    await until(async () => (await content()) === expected, 10_000)
    const value = await content()
    if (value !== expected) wrong.push(`round ${i + 1}: ${difference(text, value.slice(before.length))}`)
    // A wrong round is judged alone: the next starts from what the file holds.
    before = value
  }
  t.same(wrong, [], 'no round lost or garbled a character')
})
