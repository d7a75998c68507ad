import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent } from './agent/agent.ts'
import { same, settle, type Task } from './task.ts'

/** Work out a product on the calculator's buttons, read its display, and record the result from a terminal. */
export const calculatorToTerminal: Task = {
  name: 'calculator-to-terminal',
  instruction: 'Multiply 1234 by 56 on the calculator, then write the result into result.txt in the task folder from a terminal',
  fast: false,
  setup: async (ctx) => ctx.launch('calculator'),
  run: async (agent, ctx) => {
    for (const button of ['AC', '1', '2', '3', '4', '*', '5', '6', '=']) await agent.clickOn({ window: /^galculator$/, role: 'button', name: button })
    const display = await agent.find({ window: /^galculator$/, role: 'textbox', where: (node) => /^\d+$/.test(node.value?.trim() ?? '') && node.value?.trim() !== '56' })
    const result = display.value!.trim()
    await agent.clickOn({ window: /^$/, role: 'button', name: 'Xfce Terminal' })
    const shell = await agent.find({ window: /^Terminal/, role: 'textbox', name: 'Terminal', where: (node) => node.states?.includes('focused') === true })
    await agent.click(Agent.centre(shell))
    await agent.type(`echo ${result} > ${ctx.dirInDesktop}/result.txt`)
    await agent.key('enter')
  },
  check: async (ctx) => settle(() => readFileSync(join(ctx.dir, 'result.txt'), 'utf8'), (text) => same('result.txt', text, `${1234 * 56}\n`)),
}
