/**
 * type_text is exact for any text on any layout in a plain X client, where nothing can be
 * pasted: the corpus of e2e-typing-chromium typed 5 times out of 5 into xterm running
 * `cat > file`, on the us layout, after `setxkbmap de` and after `setxkbmap gr` (Greek).
 * xterm does not answer the window manager's ping: the typer's timed pauses alone keep it exact.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startClient, until, waitForWindow } from './helpers/desktop.ts'
import { difference, LAYOUTS, readCorpus, RUNS, typingDesktop } from './helpers/typing.ts'

const corpus = await readCorpus()
// Fifteen corpus runs: longer than the default file timeout on a loaded machine.
t.setTimeout(300_000)
let desktop: Awaited<ReturnType<typeof typingDesktop>>
t.before(async () => { desktop = await typingDesktop(t, t) })

t.test('xterm (cat > file) receives the corpus exactly, 5 of 5, on us, de and gr', { timeout: 240_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cg-typing-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'typed.txt')
  startClient(t, desktop.display, 'xterm', ['-u8', '-class', 'TypingTerm', '-geometry', '100x30+0+0', '-e', 'sh', '-c', `stty -ixon; cat > ${file}`])
  await waitForWindow(desktop.display, ['--class', 'TypingTerm'])
  await new Promise((resolve) => setTimeout(resolve, 500))
  // The window manager focuses a new window; click into it to be sure.
  await desktop.act({ action: 'click_mouse', button: 'left', coordinates: [200, 200] })
  let expected = ''
  for (const layout of LAYOUTS) {
    await desktop.setLayout(layout)
    for (let i = 1; i <= RUNS; i++) {
      // cat writes a line when it ends: end every run with one, so the file shows it all.
      expected += corpus + '\n'
      await desktop.act({ action: 'type_text', text: corpus + '\n' })
      const content = async () => readFile(file, 'utf8').catch(() => '')
      await until(async () => (await content()) === expected, 10_000)
      const value = await content()
      t.ok(value === expected, `${layout} run ${i} exact${value === expected ? '' : `: ${difference(expected, value)}`}`)
    }
  }
  await desktop.setLayout('us')
})
