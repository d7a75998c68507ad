import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { same, settle, type Task } from './task.ts'

const BEFORE = 'item,amount\napples,12\npears,30\n'
const AFTER = 'item,amount\napples,12\npears,30\nplums,18\ntotal,60\n'

/**
 * Add a row and a total formula to a CSV file in the spreadsheet and save it, still as CSV —
 * the import dialog, the cells, and the keep-the-format question on save, as in OSWorld's Calc tasks.
 */
export const spreadsheetCsv: Task = {
  name: 'spreadsheet-csv',
  instruction: 'In the spreadsheet, add a row "plums, 18" and below it a row "total" with a formula summing the amounts to amounts.csv in the task folder, and save it as CSV',
  fast: false,
  setup: async (ctx) => {
    writeFileSync(join(ctx.dir, 'amounts.csv'), BEFORE)
    await ctx.launch('spreadsheet', `${ctx.dir.slice(ctx.home.length + 1)}/amounts.csv`)
  },
  run: async (agent) => {
    await agent.waitWindow(/^Text Import/, 60_000)
    await agent.keyUntilGone(/^Text Import/, ['enter'])
    const sheet = /amounts\.csv - LibreOffice Calc/
    // An agent clicks the cell it sees and looks at the sheet after each entry, as a model sees
    // a screenshot: Calc finishes an entry in its own time, and a key that arrives meanwhile (an
    // arrow, a Tab) may be applied after keys that came later (xdotool's keys too).
    const cell = (name: string, value?: string) => ({ window: sheet, role: 'cell', name, ...(value !== undefined && { where: (node: { value?: string }) => node.value === value }) })
    await agent.clickOn(cell('A4'), 60_000)
    await agent.type('plums\t18\n')
    await agent.find(cell('B4', '18'))
    await agent.clickOn(cell('A5'))
    await agent.type('total\t=SUM(B2:B4)\n')
    await agent.find(cell('B5', '60'))
    await agent.key('ctrl', 's')
    await agent.clickOn({ window: /^Question$/, role: 'button', name: 'Use Text CSV Format' })
  },
  check: async (ctx) => settle(() => readFileSync(join(ctx.dir, 'amounts.csv'), 'utf8'), (text) => same('amounts.csv', text, AFTER), 15_000),
}
