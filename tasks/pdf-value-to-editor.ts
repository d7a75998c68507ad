import { randomInt } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { textPdf } from './pdf.ts'
import { saveFromEditor } from './steps.ts'
import { fileHolds, type Task } from './task.ts'

/** Find the order number on a PDF invoice (read off the screen: the viewer's tree has no page text) and save it from the editor. */
export const pdfValueToEditor: Task = {
  name: 'pdf-value-to-editor',
  instruction: 'Open invoice.pdf in the task folder, find its order number, and save just that number as order.txt in the task folder with the text editor',
  fast: false,
  setup: async (ctx) => {
    // A fresh number every run: nothing but reading the page can know it.
    const order = `${randomInt(10000, 99999)}-${randomInt(100, 999)}`
    writeFileSync(join(ctx.dir, 'invoice.pdf'), textPdf(['Invoice INV-2026-0117', 'Customer: Harbour Supplies', `Order number: ${order}`, 'Total due: 1,284.50 EUR']))
    await ctx.launch('pdf', `${ctx.dir.slice(ctx.home.length + 1)}/invoice.pdf`)
    return order
  },
  run: async (agent, ctx) => {
    // OCR may split a number with a space ('49508-81 7'): read the digits, then drop the spaces.
    const { match } = await agent.findOnScreen(/Order number:?\s*(\d[\d ]{4,6}-[\d ]{3,5}\d?)/)
    const order = match[1]!.replace(/\s/g, '')
    await agent.clickOn({ window: /^$/, role: 'button', name: 'Mousepad' })
    await saveFromEditor(agent, order, `${ctx.dirInDesktop}/order.txt`)
  },
  check: async (ctx, order: string) => fileHolds(ctx, 'order.txt', order, (text) => text.trim()),
}
