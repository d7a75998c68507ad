import { browserForm } from './browser-form.ts'
import { browserNavigate } from './browser-navigate.ts'
import { calculatorToTerminal } from './calculator-to-terminal.ts'
import { editorMultilingual } from './editor-multilingual.ts'
import { filesNewFolder } from './files-new-folder.ts'
import { filesRename } from './files-rename.ts'
import { pdfValueToEditor } from './pdf-value-to-editor.ts'
import { spreadsheetCsv } from './spreadsheet-csv.ts'
import type { Task } from './task.ts'
import { terminalFromPanel } from './terminal-from-panel.ts'

export const TASKS: readonly Task[] = [
  terminalFromPanel, editorMultilingual, browserForm, filesRename,
  browserNavigate, filesNewFolder, calculatorToTerminal, pdfValueToEditor, spreadsheetCsv,
]
