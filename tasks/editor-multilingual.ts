import { saveFromEditor } from './steps.ts'
import { fileHolds, type Task } from './task.ts'

const TEXT = 'Latin: Ærøskøbing façade naïve\nGreek: Καλημέρα κόσμε\nCyrillic: Съешь же ещё этих булок\nCJK: 你好世界 こんにちは 안녕하세요\n'

/** Write text in four scripts in the editor and save it through its Save As dialog. */
export const editorMultilingual: Task = {
  name: 'editor-multilingual',
  instruction: 'In the text editor, write the greeting text (Latin, Greek, Cyrillic, CJK) and save it as greetings.txt in the task folder',
  fast: true,
  setup: async (ctx) => ctx.launch('editor'),
  run: async (agent, ctx) => saveFromEditor(agent, TEXT, `${ctx.dirInDesktop}/greetings.txt`),
  check: async (ctx) => fileHolds(ctx, 'greetings.txt', TEXT),
}
