/**
 * npm run tasks: every task through every dialect on a gateway with the full desktop, spawned
 * as a real process; prints N/N per dialect and the time of each task, and exits non-zero when
 * any failed. `npm run tasks -- NAME…` runs only the tasks (and dialects) named.
 */
import { startFullServer } from '../test/helpers/full-desktop.ts'
import { requireProgram } from '../test/helpers/processes.ts'
import { DIALECTS } from './agent/dialects.ts'
import { TASKS } from './index.ts'
import { runTask, table, type Outcome } from './suite.ts'

for (const program of ['xfce4-session', 'firefox-esr', 'xfce4-terminal', 'mousepad', 'thunar', 'atril', 'galculator']) requireProgram(program, 'the full desktop (npm run setup)')
requireProgram('tesseract', 'the agent reads the screen with it (npm run setup)')

const args = process.argv.slice(2)
const dialects = DIALECTS.filter((dialect) => !args.some((arg) => DIALECTS.some((d) => d.name === arg)) || args.includes(dialect.name))
const wanted = args.filter((arg) => !DIALECTS.some((dialect) => dialect.name === arg))
const tasks = wanted.length === 0 ? TASKS : TASKS.filter((task) => wanted.includes(task.name))
if (tasks.length === 0) {
  console.error(`no task named ${wanted.join(', ')}; the tasks: ${TASKS.map((task) => task.name).join(', ')}`)
  process.exit(2)
}

const teardowns: Array<() => unknown> = []
const outcomes: Outcome[] = []
try {
  const server = await startFullServer({ teardown: (fn) => { teardowns.push(fn) } }, ['--launch-timeout', '40'], { SCREEN: '1280x800x24' })
  for (const dialect of dialects) {
    for (const task of tasks) {
      const outcome = await runTask(server, dialect, task)
      outcomes.push(outcome)
      console.log(`${outcome.passed ? 'pass' : 'FAIL'} ${task.name} via ${dialect.name} in ${outcome.seconds.toFixed(1)} s, ${outcome.steps} steps${outcome.reason ? `: ${outcome.reason}` : ''}`)
    }
  }
} finally {
  for (const fn of teardowns.reverse()) await fn()
}
console.log(`\n${table(outcomes, dialects)}`)
process.exitCode = outcomes.every((outcome) => outcome.passed) ? 0 : 1
