import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent } from './agent/agent.ts'
import { same, settle, type Task } from './task.ts'

/** Open a terminal from the panel's launcher and run a command that writes a file. */
export const terminalFromPanel: Task = {
  name: 'terminal-from-panel',
  instruction: 'Open a terminal from the panel and write the sum of 17 and 25 into answer.txt in the task folder',
  fast: true,
  setup: async () => undefined,
  run: async (agent, ctx) => {
    await agent.clickOn({ window: /^$/, role: 'button', name: 'Xfce Terminal' })
    const shell = await agent.find({ window: /^Terminal/, role: 'textbox', name: 'Terminal', where: (node) => node.states?.includes('focused') === true })
    await agent.click(Agent.centre(shell))
    await agent.type(`echo "sum=$((17+25))" > ${ctx.dirInDesktop}/answer.txt`)
    await agent.key('enter')
  },
  check: async (ctx) => settle(() => readFileSync(join(ctx.dir, 'answer.txt'), 'utf8'), (text) => same('answer.txt', text, 'sum=42\n')),
}
