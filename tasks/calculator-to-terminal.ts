import { runInPanelTerminal } from './steps.ts'
import { fileHolds, type Task } from './task.ts'

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
    await runInPanelTerminal(agent, `echo ${result} > ${ctx.dirInDesktop}/result.txt`)
  },
  check: async (ctx) => fileHolds(ctx, 'result.txt', `${1234 * 56}\n`),
}
