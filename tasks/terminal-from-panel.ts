import { runInPanelTerminal } from './steps.ts'
import { fileHolds, type Task } from './task.ts'

/** Open a terminal from the panel's launcher and run a command that writes a file. */
export const terminalFromPanel: Task = {
  name: 'terminal-from-panel',
  instruction: 'Open a terminal from the panel and write the sum of 17 and 25 into answer.txt in the task folder',
  fast: true,
  setup: async () => undefined,
  run: async (agent, ctx) => {
    await runInPanelTerminal(agent, `echo "sum=$((17+25))" > ${ctx.dirInDesktop}/answer.txt`)
  },
  check: async (ctx) => fileHolds(ctx, 'answer.txt', 'sum=42\n'),
}
