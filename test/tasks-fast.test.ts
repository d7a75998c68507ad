/**
 * The task suite's fast subset (npm run tasks runs all of it): agents finish real tasks on the
 * full desktop — a terminal opened from the panel, the editor's Save As dialog with text in four
 * scripts, a rename in the file manager — each through Claude's computer tool, OpenAI's
 * computer_call and pyautogui code, at screenshot sizes other than the screen's, judged by what
 * the applications wrote. One gateway, spawned as a real process with --desktop full.
 */
import t from 'tap'
import { requireProgram } from './helpers/processes.ts'
import { startFullServer } from './helpers/full-desktop.ts'
import { DIALECTS } from '../tasks/agent/dialects.ts'
import { TASKS } from '../tasks/index.ts'
import { runTask, table, type Outcome } from '../tasks/suite.ts'

for (const program of ['xfce4-session', 'xfce4-terminal', 'mousepad', 'thunar']) requireProgram(program, 'the full desktop (npm run setup)')

// Three dialects of three tasks, after the session's start: more than tap's default two minutes.
t.setTimeout(300_000)

t.test('agents finish the fast tasks through three dialects', async (t) => {
  const server = await startFullServer(t, ['--launch-timeout', '40'], { SCREEN: '1280x800x24' })
  const outcomes: Outcome[] = []
  const fast = TASKS.filter((task) => task.fast)
  t.ok(fast.length >= 3, `${fast.length} fast tasks`)
  for (const dialect of DIALECTS) {
    for (const task of fast) {
      const outcome = await runTask(server, dialect, task)
      outcomes.push(outcome)
      t.equal(outcome.reason, undefined, `${task.name} via ${dialect.name} (${outcome.seconds.toFixed(1)} s, ${outcome.steps} steps)`)
    }
  }
  t.comment(table(outcomes, DIALECTS))
})
