/**
 * The calls the pyautogui action space uses and the parameters each takes, in pyautogui's own
 * positional order, so `click(100, 200)` binds as `click(x=100, y=200)`;
 * plus OpenCUA's `computer.*` functions, the bare `WAIT`/`DONE`/`FAIL` of the OSWorld
 * baselines, `time.sleep`, which their code puts between actions, and `pyperclip.copy`/`paste`,
 * with which agents type text through the clipboard (UI-TARS's `input_swap`: copy, then ctrl+v). Parameters that only
 * pace a real pyautogui (interval, duration, tween, logScreenshot, _pause) are accepted and
 * have no effect: the gateway paces input itself.
 */
import type { PyCall, PyValue } from '../shared/python-calls.ts'

interface Spec {
  params: readonly string[]
  /** hotkey(*keys): every positional argument is a key. */
  varargs?: boolean
  bare?: boolean
}

const PACING = ['interval', 'duration', 'tween', 'logScreenshot', '_pause'] as const
const CLICK = ['x', 'y', 'interval', 'button', 'duration', 'tween', 'logScreenshot', '_pause']
const SIDE_CLICK = ['x', 'y', 'interval', 'duration', 'tween', 'logScreenshot', '_pause']
const SCROLL = ['clicks', 'x', 'y', 'logScreenshot', '_pause']

export const FUNCTIONS = {
  'pyautogui.click': { params: ['x', 'y', 'clicks', 'interval', 'button', 'duration', 'tween', 'logScreenshot', '_pause'] },
  'pyautogui.leftClick': { params: SIDE_CLICK },
  'pyautogui.doubleClick': { params: CLICK },
  'pyautogui.tripleClick': { params: CLICK },
  'pyautogui.rightClick': { params: SIDE_CLICK },
  'pyautogui.middleClick': { params: SIDE_CLICK },
  'pyautogui.moveTo': { params: ['x', 'y', 'duration', 'tween', 'logScreenshot', '_pause'] },
  'pyautogui.dragTo': { params: ['x', 'y', 'duration', 'tween', 'button', 'logScreenshot', '_pause', 'mouseDownUp'] },
  'pyautogui.mouseDown': { params: ['x', 'y', 'button', 'duration', 'tween', 'logScreenshot', '_pause'] },
  'pyautogui.mouseUp': { params: ['x', 'y', 'button', 'duration', 'tween', 'logScreenshot', '_pause'] },
  'pyautogui.scroll': { params: SCROLL },
  'pyautogui.vscroll': { params: SCROLL },
  'pyautogui.hscroll': { params: SCROLL },
  'pyautogui.write': { params: ['message', 'interval', 'logScreenshot', '_pause'] },
  'pyautogui.typewrite': { params: ['message', 'interval', 'logScreenshot', '_pause'] },
  'pyautogui.press': { params: ['keys', 'presses', 'interval', 'logScreenshot', '_pause'] },
  'pyautogui.hotkey': { params: ['interval', 'logScreenshot', '_pause'], varargs: true },
  'pyautogui.keyDown': { params: ['key', 'logScreenshot', '_pause'] },
  'pyautogui.keyUp': { params: ['key', 'logScreenshot', '_pause'] },
  'computer.triple_click': { params: ['x', 'y'] },
  'computer.wait': { params: ['seconds'] },
  'computer.terminate': { params: ['status', 'answer'] },
  'time.sleep': { params: ['secs'] },
  'pyperclip.copy': { params: ['text'] },
  'pyperclip.paste': { params: [] },
  WAIT: { params: [], bare: true },
  DONE: { params: [], bare: true },
  FAIL: { params: [], bare: true },
} as const satisfies Record<string, Spec>

export type FunctionName = keyof typeof FUNCTIONS

export const isPacing = (name: string): boolean => (PACING as readonly string[]).includes(name)

/** A known call with its arguments bound to parameter names; hotkey's keys under `keys`. */
export interface BoundCall {
  name: FunctionName
  args: Record<string, PyValue>
  text: string
  line: number
}

/** Why a call cannot be bound, or its binding. */
export function bind (call: PyCall): BoundCall | string {
  if (!Object.hasOwn(FUNCTIONS, call.name)) {
    return `${call.name} is not a call this adapter runs (known: ${Object.keys(FUNCTIONS).join(', ')})`
  }
  const name = call.name as FunctionName
  const spec: Spec = FUNCTIONS[name]
  if (spec.bare === true && call.called && (call.args.length > 0 || Object.keys(call.kwargs).length > 0)) return `${name} takes no arguments`
  if (spec.bare !== true && !call.called) return `${name} is a function; call it, e.g. ${name}()`
  const args: Record<string, PyValue> = {}
  if (spec.varargs === true) {
    // hotkey('ctrl', 'c') and hotkey(['ctrl', 'c']) both name the keys.
    args.keys = call.args.length === 1 && Array.isArray(call.args[0]) ? call.args[0] : call.args
  } else {
    if (call.args.length > spec.params.length) return `${name} takes at most ${spec.params.length} arguments (${spec.params.join(', ')}), not ${call.args.length}`
    call.args.forEach((value, i) => { args[spec.params[i]!] = value })
  }
  for (const [key, value] of Object.entries(call.kwargs)) {
    if (!spec.params.includes(key)) {
      return `${name} has no parameter '${key}' (${spec.params.length ? `it takes ${spec.params.join(', ')}` : 'it takes none'})`
    }
    if (Object.hasOwn(args, key)) return `${key} is given twice`
    args[key] = value
  }
  return { name, args, text: call.text, line: call.line }
}
