import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { same, settle, type Task } from './task.ts'

/** Create a folder with a non-Latin name in the file manager. */
export const filesNewFolder: Task = {
  name: 'files-new-folder',
  instruction: 'In the file manager, create a folder named "Архив 2026" in the task folder',
  fast: false,
  setup: async (ctx) => ctx.launch('files', ctx.dir.slice(ctx.home.length + 1)),
  run: async (agent) => {
    await agent.clickOn({ window: /Thunar$/, role: 'menu', name: 'File' })
    await agent.clickOn({ window: /Thunar$/, role: 'menuitem', name: /^Create Folder/ })
    await agent.clickOn({ window: /New Folder$/, role: 'textbox' })
    await agent.key('ctrl', 'a')
    await agent.type('Архив 2026')
    await agent.key('enter')
  },
  check: async (ctx) => settle(() => readdirSync(ctx.dir).map((name) => [name, statSync(join(ctx.dir, name)).isDirectory()]),
    (entries) => same('the task folder', entries, [['Архив 2026', true]])),
}
