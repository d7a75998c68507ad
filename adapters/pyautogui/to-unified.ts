/**
 * pyautogui code → unified actions, one call at a time, with points in the convention's space
 * (the adapter declares it, the executor scales). What each call does is what pyautogui does
 * on X11: `scroll(n)` turns the wheel n notches up for positive n, `hscroll(n)` right;
 * `write` types its text (a newline is Enter); `press(keys, presses=n)` presses each key n
 * times; `dragTo` drags from where the pointer is. `computer.terminate`, `DONE`, `FAIL`,
 * `WAIT` and `computer.wait()` run nothing: they are the model telling its loop to stop or to
 * wait, and are reported. `pyperclip.copy(text)` sets the clipboard and `pyperclip.paste()`
 * reads it (the server's --clipboard; refused without it).
 */
import type { ActionOf, UnifiedAction } from '../../src/actions/index.ts'
import type { AdapterContext, CallSpan, Translation } from '../../src/pipeline/adapter.ts'
import { UnparseableModelOutput } from '../../src/errors/errors.ts'
import type { Size } from '../../src/screen/geometry.ts'
import { normalizeKey } from '../../src/keys/index.ts'
import { parsePythonCalls, PythonSyntaxError, type PyValue } from '../shared/python-calls.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import { codeOf } from './code.ts'
import { bind, type BoundCall } from './functions.ts'
import { replyText, type PyautoguiInput } from './model-output.ts'
import { spaceSize, type Convention, type PyautoguiQuery } from './space.ts'

export interface PyautoguiCallMeta extends CallSpan {
  name: string
  /** Its arguments by parameter name (hotkey's keys under `keys`). */
  args: Record<string, PyValue>
  text: string
  line: number
}

export interface PyautoguiMeta {
  calls: PyautoguiCallMeta[]
  /** computer.terminate / DONE / FAIL: the model ends the task; null when it did not. */
  terminate: { status: string, answer: string | null } | null
  /** WAIT / computer.wait(): the model asks its loop to wait and look again. */
  wait: boolean
}

type XY = [number, number]
type Button = ActionOf<'click_mouse'>['button']
const BUTTONS: Record<string, Button> = { left: 'left', right: 'right', middle: 'middle', primary: 'left', secondary: 'right' }

export function toUnified (input: PyautoguiInput, context: AdapterContext<PyautoguiQuery>): Translation<PyautoguiMeta> {
  const code = codeOf(replyText(input))
  if (code.trim() === '') throw new UnparseableModelOutput('the pyautogui code is empty: send the model\'s reply with its ```python block, or the code itself')
  let parsed
  try {
    parsed = parsePythonCalls(code)
  } catch (error) {
    if (!(error instanceof PythonSyntaxError)) throw error
    throw refuse(error.line, error.lineText, error.message)
  }
  if (parsed.length === 0) throw new UnparseableModelOutput('the pyautogui code has no call, only comments')
  const convention = context.version as Convention
  const space = spaceSize(context)
  const meta: PyautoguiMeta = { calls: [], terminate: null, wait: false }
  const actions: UnifiedAction[] = []
  for (const call of parsed) {
    const bound = bind(call)
    if (typeof bound === 'string') throw refuse(call.line, call.text, bound)
    const own = translateCall(bound, convention, space, meta)
    meta.calls.push({ name: bound.name, args: bound.args, text: bound.text, line: bound.line, first: actions.length, count: own.length })
    actions.push(...own)
  }
  return { actions, screenshot: context.query.screenshot !== false, meta }
}

function refuse (line: number, text: string, why: string) {
  return new UnparseableModelOutput(`cannot run line ${line} of the pyautogui code, ${quote(text)}: ${why}`)
}

const LIMIT = 200
const quote = (text: string) => {
  const trimmed = text.trim()
  return JSON.stringify(trimmed.length > LIMIT ? `${trimmed.slice(0, LIMIT)}…` : trimmed)
}

function translateCall (call: BoundCall, convention: Convention, space: Size, meta: PyautoguiMeta): UnifiedAction[] {
  const { args } = call
  const fail = (why: string): never => { throw refuse(call.line, call.text, why) }
  const number = (key: string): number | undefined => {
    const value = args[key]
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'number') return fail(`${key} must be a number, not ${JSON.stringify(value)}`)
    return value
  }
  const point = (): XY | undefined => {
    const x = number('x')
    const y = number('y')
    if (x === undefined && y === undefined) return undefined
    if (x === undefined || y === undefined) return fail('give both x and y, or neither (the pointer stays where it is)')
    return [toPixel('x', x, space.width, convention, fail), toPixel('y', y, space.height, convention, fail)]
  }
  const needPoint = (): XY => point() ?? fail(`${call.name} needs x and y`)
  const button = (fallback: Button = 'left'): Button => {
    const written = args.button
    if (written === undefined || written === null) return fallback
    if (typeof written !== 'string' || !Object.hasOwn(BUTTONS, written.toLowerCase())) return fail(`button must be 'left', 'right' or 'middle', not ${JSON.stringify(written)}`)
    return BUTTONS[written.toLowerCase()]!
  }
  const click = (which: Button, clicks = 1): UnifiedAction[] => {
    const at = point()
    return [{ action: 'click_mouse', button: which, ...(at && { coordinates: at }), ...(clicks > 1 && { num_clicks: clicks }) }]
  }
  const count = (key: string, fallback: number): number => {
    const value = number(key) ?? fallback
    if (!Number.isInteger(value) || value < 0) fail(`${key} must be a whole number, not ${value}`)
    return value
  }
  const key = (written: PyValue): string => {
    if (typeof written !== 'string' || written === '') return fail(`a key must be a key name like 'enter', not ${JSON.stringify(written)}`)
    return normalizeKey(written).name
  }
  const keyList = (written: PyValue | undefined): string[] => {
    const list = Array.isArray(written) ? written : written === undefined ? [] : [written]
    if (list.length === 0) fail(`${call.name} needs a key, like ${call.name}('enter')`)
    return list.map(key)
  }
  const scroll = (axis: 'delta_x' | 'delta_y', sign: 1 | -1): UnifiedAction[] => {
    const clicks = number('clicks')
    if (clicks === undefined) return fail(`${call.name} needs clicks, the number of wheel notches`)
    if (!Number.isInteger(clicks)) fail(`clicks must be a whole number of wheel notches, not ${clicks}`)
    if (clicks === 0) return []
    const at = point()
    return [{ action: 'scroll', ...(at && { coordinates: at }), [axis]: sign * clicks }]
  }
  const name = call.name
  switch (name) {
    case 'pyautogui.click': {
      const clicks = count('clicks', 1)
      return clicks === 0 ? [] : click(button(), clicks)
    }
    case 'pyautogui.leftClick': return click('left')
    case 'pyautogui.doubleClick': return click(button(), 2)
    case 'pyautogui.tripleClick':
    case 'computer.triple_click': return click(button(), 3)
    case 'pyautogui.rightClick': return click('right')
    case 'pyautogui.middleClick': return click('middle')
    case 'pyautogui.moveTo': return [{ action: 'move_mouse', coordinates: needPoint() }]
    case 'pyautogui.dragTo': {
      if (button() !== 'left') fail('only left-button drags are supported; press another button with mouseDown/mouseUp')
      const to = needPoint()
      return [
        { action: 'click_mouse', button: 'left', click_type: 'down' },
        { action: 'move_mouse', coordinates: to },
        { action: 'click_mouse', button: 'left', click_type: 'up' },
      ]
    }
    case 'pyautogui.mouseDown':
    case 'pyautogui.mouseUp': {
      const at = point()
      return [{ action: 'click_mouse', button: button(), click_type: name === 'pyautogui.mouseDown' ? 'down' : 'up', ...(at && { coordinates: at }) }]
    }
    case 'pyautogui.scroll':
    case 'pyautogui.vscroll': return scroll('delta_y', -1)
    case 'pyautogui.hscroll': return scroll('delta_x', 1)
    case 'pyautogui.write':
    case 'pyautogui.typewrite': {
      const message = args.message
      // typewrite(['a', 'enter']) presses each named key, as pyautogui does for a list.
      if (Array.isArray(message)) return message.map((k) => ({ action: 'press_key', keys: [key(k)] }))
      if (typeof message !== 'string') return fail(`${name} needs message, the text to type`)
      return message === '' ? [] : [{ action: 'type_text', text: message }]
    }
    case 'pyautogui.press': {
      const keys = keyList(args.keys)
      const presses = count('presses', 1)
      return Array.from({ length: presses }, () => keys.map((k): UnifiedAction => ({ action: 'press_key', keys: [k] }))).flat()
    }
    case 'pyautogui.hotkey': return [{ action: 'press_key', keys: keyList(args.keys) }]
    case 'pyautogui.keyDown': return [{ action: 'press_key', keys: keyList(args.key), press_type: 'down' }]
    case 'pyautogui.keyUp': return [{ action: 'press_key', keys: keyList(args.key), press_type: 'up' }]
    case 'time.sleep': {
      const seconds = number('secs')
      if (seconds === undefined || seconds < 0) return fail('time.sleep needs a number of seconds')
      return seconds === 0 ? [] : [{ action: 'wait', duration: seconds }]
    }
    case 'pyperclip.copy': {
      if (typeof args.text !== 'string') return fail('pyperclip.copy needs text, the string to put on the clipboard')
      return [{ action: 'set_clipboard', text: args.text }]
    }
    case 'pyperclip.paste': return [{ action: 'get_clipboard', type: 'text' }]
    case 'computer.wait':
    case 'WAIT':
      meta.wait = true
      return []
    case 'computer.terminate': {
      const { status, answer } = args
      if (status !== 'success' && status !== 'failure') fail(`status must be 'success' or 'failure', not ${JSON.stringify(status ?? null)}`)
      if (answer !== undefined && answer !== null && typeof answer !== 'string') fail('answer must be a string')
      meta.terminate ??= { status: status as string, answer: (answer as string | null | undefined) ?? null }
      return []
    }
    case 'DONE':
    case 'FAIL':
      meta.terminate ??= { status: name === 'DONE' ? 'success' : 'failure', answer: null }
      return []
    default:
      return unreachable(name, 'pyautogui call')
  }
}

/**
 * A written coordinate → the pixel of the convention's space it falls on: pyautogui truncates
 * to whole pixels; a fraction is of the display, rounded as OSWorld's OpenCUA agent does
 * (`round(x * width)`), its far edge (1.0) the last pixel.
 */
function toPixel (axis: 'x' | 'y', value: number, size: number, convention: Convention, fail: (why: string) => never): number {
  if (convention === 'relative') {
    if (value < 0 || value > 1) fail(`${axis}=${value} is outside 0–1: with coordinates=relative, x and y are fractions of the display`)
    return Math.min(Math.round(value * size), size - 1)
  }
  return Math.trunc(value)
}
