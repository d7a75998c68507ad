import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { same, settle, type Task } from './task.ts'

const TEXT = 'Latin: Ærøskøbing façade naïve\nGreek: Καλημέρα κόσμε\nCyrillic: Съешь же ещё этих булок\nCJK: 你好世界 こんにちは 안녕하세요\n'

/** Write text in four scripts in the editor and save it through its Save As dialog. */
export const editorMultilingual: Task = {
  name: 'editor-multilingual',
  instruction: 'In the text editor, write the greeting text (Latin, Greek, Cyrillic, CJK) and save it as greetings.txt in the task folder',
  fast: true,
  setup: async (ctx) => ctx.launch('editor'),
  run: async (agent, ctx) => {
    await agent.clickOn({ window: /Mousepad$/, role: 'textbox', where: (node) => node.states?.includes('editable') === true })
    await agent.type(TEXT)
    await agent.key('ctrl', 's')
    await agent.clickOn({ window: /^Save As$/, role: 'textbox', name: 'Name:' })
    await agent.key('ctrl', 'a')
    await agent.type(`${ctx.dirInDesktop}/greetings.txt`)
    await agent.keyUntilGone(/^Save As$/, ['enter'])
  },
  check: async (ctx) => settle(() => readFileSync(join(ctx.dir, 'greetings.txt'), 'utf8'), (text) => same('greetings.txt', text, TEXT)),
}
