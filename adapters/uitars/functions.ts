/**
 * The calls UI-TARS writes and the arguments each takes: the computer action spaces of
 * bytedance/UI-TARS (`README_v1.md`, `codes/ui_tars/prompt.py`) and UI-TARS-desktop, plus the
 * names ByteDance's own executors accept for them (`left_single`, `select`, `keydown`/`keyup`
 * in `action_parser.py`'s pyautogui code; `hover` in UI-TARS-desktop's NutJSOperator) and the
 * mobile-only calls, which are refused by name rather than as unknown.
 */
import { UnparseableModelOutput } from '../../src/errors/errors.ts'
import type { ParsedCall } from './calls.ts'
import { quote } from './quote.ts'

export const FUNCTIONS = {
  click: ['start_box'],
  left_single: ['start_box'],
  left_double: ['start_box'],
  right_single: ['start_box'],
  hover: ['start_box'],
  drag: ['start_box', 'end_box'],
  select: ['start_box', 'end_box'],
  scroll: ['start_box', 'end_box', 'direction'],
  // `text` and a point appear in UI-TARS-desktop's action-parser tests: type into that field.
  type: ['content', 'text', 'start_box'],
  hotkey: ['key', 'hotkey'],
  press: ['key', 'press'],
  keydown: ['key', 'press'],
  release: ['key', 'press'],
  keyup: ['key', 'press'],
  long_press: ['start_box', 'time'],
  wait: [],
  finished: ['content'],
  call_user: ['content'],
  press_home: [],
  press_back: [],
  open_app: ['app_name'],
} as const satisfies Record<string, readonly string[]>

export type FunctionName = keyof typeof FUNCTIONS

/** A call whose name is known and whose arguments are among its own, point aliases folded. */
export interface KnownCall {
  name: FunctionName
  args: Partial<Record<string, string>>
  text: string
}

// The Doubao prompts write point=/start_point=/end_point= where UI-TARS writes start_box=/end_box=.
const ALIASES: Record<string, string> = { point: 'start_box', start_point: 'start_box', end_point: 'end_box' }

export function knownCall (call: ParsedCall): KnownCall {
  if (!Object.hasOwn(FUNCTIONS, call.name)) {
    throw new UnparseableModelOutput(
      `cannot parse the UI-TARS action ${quote(call.text)}: unknown action '${call.name}' (known: ${Object.keys(FUNCTIONS).join(', ')})`)
  }
  const name = call.name as FunctionName
  const allowed: readonly string[] = FUNCTIONS[name]
  const args: Record<string, string> = {}
  const writtenAs: Record<string, string> = {}
  for (const [written, value] of Object.entries(call.args)) {
    const key = ALIASES[written] ?? written
    if (!allowed.includes(key)) {
      const list = allowed.length ? `it takes ${allowed.join(', ')}` : 'it takes no arguments'
      throw new UnparseableModelOutput(`cannot parse the UI-TARS action ${quote(call.text)}: ${name} has no argument '${written}' (${list})`)
    }
    if (key in args) {
      throw new UnparseableModelOutput(`cannot parse the UI-TARS action ${quote(call.text)}: ${writtenAs[key]} and ${written} are the same argument; give one`)
    }
    args[key] = value
    writtenAs[key] = written
  }
  return { name, args, text: call.text }
}
