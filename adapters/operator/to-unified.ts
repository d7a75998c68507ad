/**
 * One Operator tool call → unified actions, in the display's space (the tool's coordinates
 * are screen pixels). Each action is what the tool's desktop backends do for it (Operator-Use
 * `computer/tools/*.py`, `computer/types.py`), and `done` is the line the tool answers with.
 */
import type { UnifiedAction } from '../../src/actions/index.ts'
import type { Translation } from '../../src/pipeline/adapter.ts'
import { InvalidNativePayload, UnsupportedAction } from '../../src/errors/errors.ts'
import { toXY } from '../../src/screen/geometry.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import { appAction } from './app.ts'
import type { OperatorActionName, OperatorInput } from './computer.ts'
import { caretOf, pointOf, requirePoint, type XY } from './fields.ts'

export interface OperatorMeta {
  action: OperatorActionName
  /** The tool's answer when the call succeeds (for app, the window found is added to it). */
  done: string
  /** app: whether the answer describes the window the action returns. */
  window: boolean
}

const CLICK_WORDS: Record<number, string> = { 1: 'Single', 2: 'Double', 3: 'Triple' }

/** Where the caret goes before typing: the start or end of the whole field, not of the line. */
const CARET_KEYS = { start: 'ctrl+home', end: 'ctrl+end' } as const

const press = (combo: string): UnifiedAction => ({ action: 'press_key', keys: [combo] })
const at = (point: XY | undefined) => (point ? { coordinates: point } : {})
const xy = ([x, y]: XY) => `(${x},${y})`

export function toUnified (input: OperatorInput, screenshot: boolean): Translation<OperatorMeta> {
  const { actions, done, window = false } = translate(input)
  return { actions, screenshot, meta: { action: input.action, done, window } }
}

interface Step { actions: UnifiedAction[], done: string, window?: boolean }

function translate (input: OperatorInput): Step {
  switch (input.action) {
    case 'click':
      return click(input)
    case 'type':
      return type(input)
    case 'scroll':
      return scroll(input)
    case 'move': {
      const to = requirePoint(input, 'move')
      if (input.drag) return { actions: dragFromCursor(to), done: `Dragged to ${xy(to)}.` }
      return { actions: [{ action: 'move_mouse', coordinates: to }], done: `Moved to ${xy(to)}.` }
    }
    case 'drag':
      return drag(input)
    case 'shortcut': {
      if (!input.shortcut) throw new InvalidNativePayload('operator: shortcut is required for shortcut')
      // One combo, keys pressed together: the tool splits on '+' alone, as src/keys does.
      return { actions: [press(input.shortcut)], done: `Pressed ${input.shortcut}.` }
    }
    case 'wait': {
      const { duration } = input
      if (duration === undefined) throw new InvalidNativePayload('operator: duration is required for wait')
      return { actions: duration > 0 ? [{ action: 'wait', duration }] : [], done: `Waited for ${duration} seconds.` }
    }
    case 'open':
      // Desktop access means a display that answers: asking where the pointer is fails with
      // 503 while the desktop starts or restarts, and sends no input.
      return { actions: [{ action: 'get_cursor_position' }], done: 'Desktop access enabled.' }
    case 'close':
      // Nothing to release: every action of this tool lets go of what it pressed, and the
      // server releases everything when an action fails.
      return { actions: [], done: 'Desktop access released.' }
    case 'app': {
      const { action, done } = appAction(input)
      return { actions: [action], done, window: true }
    }
    case 'desktop': {
      const what = input.desktop_action ? ` (${input.desktop_action}${input.desktop_name ? ` '${input.desktop_name}'` : ''})` : ''
      throw new UnsupportedAction(`operator: desktop${what} is not supported: virtual desktops (create, remove, rename, switch) do not exist on the single X display this server drives`)
    }
    default:
      return unreachable(input.action, 'operator action')
  }
}

function click (input: OperatorInput): Step {
  const point = requirePoint(input, 'click')
  const button = input.button ?? 'left'
  const clicks = input.clicks ?? 1
  if (clicks === 0) return { actions: [{ action: 'move_mouse', coordinates: point }], done: `Moved cursor to ${xy(point)}.` }
  return {
    actions: [{ action: 'click_mouse', button, coordinates: point, ...(clicks > 1 && { num_clicks: clicks }) }],
    done: `${CLICK_WORDS[clicks]} ${button} clicked at ${xy(point)}.`,
  }
}

/** Click loc (when given: the first tool typed into the focused element), caret, clear, text, Enter. */
function type (input: OperatorInput): Step {
  const { text } = input
  if (text === undefined) throw new InvalidNativePayload('operator: text is required for type')
  const point = pointOf(input)
  const caret = caretOf(input)
  const actions: UnifiedAction[] = []
  if (point) actions.push({ action: 'click_mouse', button: 'left', coordinates: point })
  if (caret !== 'idle') actions.push(press(CARET_KEYS[caret]))
  if (input.clear) actions.push(press('ctrl+a'), press('backspace'))
  if (text !== '') actions.push({ action: 'type_text', text })
  if (input.press_enter) actions.push(press('enter'))
  return { actions, done: point ? `Typed at ${xy(point)}.` : 'Typed into the focused element.' }
}

function scroll (input: OperatorInput): Step {
  const point = pointOf(input)
  const direction = input.direction ?? 'down'
  const vertical = direction === 'up' || direction === 'down'
  // The tool defaults the axis to vertical; here a horizontal direction alone implies its axis.
  const axis = input.axis ?? (vertical ? 'vertical' : 'horizontal')
  if (axis === 'vertical' && !vertical) throw new InvalidNativePayload('operator: invalid direction for vertical scroll. Use "up" or "down".')
  if (axis === 'horizontal' && vertical) throw new InvalidNativePayload('operator: invalid direction for horizontal scroll. Use "left" or "right".')
  const times = input.wheel_times ?? 1
  const delta = direction === 'up' || direction === 'left' ? -times : times
  return {
    actions: [{ action: 'scroll', ...at(point), ...(vertical ? { delta_y: delta } : { delta_x: delta }) }],
    done: `Scrolled ${axis} ${direction} by ${times}.`,
  }
}

/** The first tool's drag, from → to: from_loc, else where the pointer is; to_loc, loc or x and y. */
function drag (input: OperatorInput): Step {
  const point = pointOf(input)
  if (input.to_loc && point) throw new InvalidNativePayload('operator: give to_loc or loc (or x and y) for the end of a drag, not both')
  const to = (input.to_loc && toXY(input.to_loc)) ?? point
  if (!to) throw new InvalidNativePayload('operator: to_loc (or loc, or x and y) is required for drag')
  const from = input.from_loc && toXY(input.from_loc)
  if (from) return { actions: [{ action: 'drag_mouse', path: [from, to] }], done: `Dragged from ${xy(from)} to ${xy(to)}.` }
  return { actions: dragFromCursor(to), done: `Dragged to ${xy(to)}.` }
}

/** Press where the pointer is, move, release: the pointer's place is only known when it runs. */
function dragFromCursor (to: XY): UnifiedAction[] {
  return [
    { action: 'click_mouse', button: 'left', click_type: 'down' },
    { action: 'move_mouse', coordinates: to },
    { action: 'click_mouse', button: 'left', click_type: 'up' },
  ]
}
