import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { settle, type Task } from './task.ts'

/** Rename a file in the file manager (its list view, then F2 and the rename dialog). */
export const filesRename: Task = {
  name: 'files-rename',
  instruction: 'In the file manager, rename report-draft.txt in the task folder to final-report.txt',
  fast: true,
  setup: async (ctx) => {
    writeFileSync(join(ctx.dir, 'report-draft.txt'), 'quarterly figures\n')
    writeFileSync(join(ctx.dir, 'notes.txt'), 'keep me\n')
    await ctx.launch('files', ctx.dir.slice(ctx.home.length + 1))
  },
  run: async (agent) => {
    // The list view names every file in the tree; the icon view draws them only.
    await agent.key('ctrl', '2')
    // A list cell's text is its name, or its value where the tree reads cells as text.
    await agent.clickOn({ window: /Thunar$/, role: 'cell', where: (node) => node.name === 'report-draft.txt' || node.value === 'report-draft.txt' })
    await agent.key('f2')
    await agent.clickOn({ window: /^Rename/, role: 'textbox' })
    await agent.key('ctrl', 'a')
    await agent.type('final-report.txt')
    await agent.key('enter')
  },
  check: async (ctx) => settle(() => ({
    renamed: existsSync(join(ctx.dir, 'final-report.txt')) ? readFileSync(join(ctx.dir, 'final-report.txt'), 'utf8') : null,
    old: existsSync(join(ctx.dir, 'report-draft.txt')),
    other: readFileSync(join(ctx.dir, 'notes.txt'), 'utf8'),
  }), (state) => state.renamed === 'quarterly figures\n' && !state.old && state.other === 'keep me\n' ? undefined : `folder after renaming: ${JSON.stringify(state)}`),
}
