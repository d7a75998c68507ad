/**
 * How a CUP element action is carried out on Linux: the ways to try, in order (as the
 * protocol's reference Linux handler orders them). The application's own means come first —
 * an AT-SPI action by name, the Value, EditableText or Selection interface, GrabFocus — and
 * real input at the element's centre last, for what the element offers no means to do
 * (a double click, a long press, the wheel) or when the application declines. Pure: the same
 * function tells, while planning, whether an element can take a verb at all (from the
 * snapshot), and, when acting, what to do (from the element read again).
 */
import type { MouseButton } from '../driver/driver.ts'
import type { Point, Rect, Size } from '../screen/geometry.ts'
import type { CupAction, CupRole } from './schema.ts'
import { AtspiState, hasState, type StateWords } from './states.ts'
import { unreachable } from '../errors/unreachable.ts'

export type ScrollDirection = 'up' | 'down' | 'left' | 'right'

/** One step of real input at (or, for keys and text, after focusing) the element. */
export type InputStep =
  | { kind: 'click', button: MouseButton, count: number }
  | { kind: 'long_press', ms: number }
  | { kind: 'keys', keys: string[] }
  | { kind: 'text', text: string }
  | { kind: 'wheel', dx: number, dy: number }

export type Attempt =
  | { via: 'accessibility', op: 'do_action', name: string, index: number }
  | { via: 'accessibility', op: 'grab_focus' }
  | { via: 'accessibility', op: 'set_value', value: number }
  | { via: 'accessibility', op: 'step_value', sign: 1 | -1 }
  | { via: 'accessibility', op: 'set_text', text: string }
  | { via: 'accessibility', op: 'select' }
  /** Real input at `at` (the element's centre, real pixels); `focus` asks GrabFocus first (its answer does not matter). */
  | { via: 'input', at: Point, focus: boolean, steps: InputStep[] }

export interface ElementFacts {
  role: CupRole
  /** AT-SPI action names in index order. */
  actions: readonly string[]
  interfaces: readonly string[]
  states: StateWords
  /** Real screen pixels. */
  bounds: Rect | null
}

export interface VerbParams {
  value?: string | undefined
  direction?: ScrollDirection | undefined
}

/** A long press holds the button this long (the reference handler's 0.8 s). */
export const LONG_PRESS_MS = 800
/** Wheel notches of one element scroll (the reference handler's amount). */
export const SCROLL_NOTCHES = 5

const CLICK = ['click', 'press', 'activate', 'jump', 'open']
const TOGGLE = ['toggle', 'check', 'uncheck', ...CLICK]
const EXPAND = ['expand or contract', 'expand or collapse', 'expand']
const COLLAPSE = ['expand or contract', 'expand or collapse', 'collapse']
const MENU = ['menu', 'popup']
const DISMISS = ['close', 'dismiss']

const WHEEL: Readonly<Record<ScrollDirection, { dx: number, dy: number }>> = {
  up: { dx: 0, dy: -SCROLL_NOTCHES },
  down: { dx: 0, dy: SCROLL_NOTCHES },
  left: { dx: -SCROLL_NOTCHES, dy: 0 },
  right: { dx: SCROLL_NOTCHES, dy: 0 },
}

/** The centre of a rectangle, when it lies on the screen. */
export function centreOf (bounds: Rect | null, screen: Size): Point | undefined {
  if (!bounds || bounds.width <= 0 || bounds.height <= 0) return undefined
  const x = bounds.x + Math.floor(bounds.width / 2)
  const y = bounds.y + Math.floor(bounds.height / 2)
  if (x < 0 || y < 0 || x >= screen.width || y >= screen.height) return undefined
  return { x, y }
}

/** Whether the element holds text one can type or set. */
export function takesText (facts: ElementFacts): boolean {
  return facts.interfaces.includes('EditableText') ||
    (hasState(facts.states, AtspiState.EDITABLE) && !hasState(facts.states, AtspiState.READ_ONLY))
}

export const hasValue = (facts: ElementFacts) => facts.interfaces.includes('Value')

/** A number as CUP's setvalue on a range takes it (Python's float()). */
export function numeric (value: string): number | undefined {
  const trimmed = value.trim()
  if (trimmed === '') return undefined
  const number = Number(trimmed)
  return Number.isFinite(number) ? number : undefined
}

/** The ways to carry out `verb` on the element, best first; empty when there is none. */
export function attempts (verb: CupAction, facts: ElementFacts, params: VerbParams, screen: Size): Attempt[] {
  const byName = (names: readonly string[]): Attempt[] => {
    const found: Attempt[] = []
    for (const name of names) {
      const index = facts.actions.findIndex((action) => action.trim().toLowerCase() === name)
      if (index >= 0 && !found.some((attempt) => attempt.via === 'accessibility' && attempt.op === 'do_action' && attempt.index === index)) {
        found.push({ via: 'accessibility', op: 'do_action', name: facts.actions[index]!, index })
      }
    }
    return found
  }
  const at = centreOf(facts.bounds, screen)
  const input = (steps: InputStep[], focus = false): Attempt[] => (at ? [{ via: 'input', at, focus, steps }] : [])
  const click = (button: MouseButton = 'left', count = 1) => input([{ kind: 'click', button, count }])
  const canFocus = facts.interfaces.includes('Component')
  const focus: Attempt[] = canFocus ? [{ via: 'accessibility', op: 'grab_focus' }] : []
  const value = params.value ?? ''
  const typed = (): Attempt[] => {
    if (!takesText(facts)) return []
    const setText: Attempt[] = facts.interfaces.includes('EditableText') ? [{ via: 'accessibility', op: 'set_text', text: value }] : []
    // Click into it, select what is there and type over it, as a person would.
    const over: InputStep = value ? { kind: 'text', text: value } : { kind: 'keys', keys: ['BackSpace'] }
    return [...setText, ...input([{ kind: 'click', button: 'left', count: 1 }, { kind: 'keys', keys: ['ctrl+a'] }, over])]
  }
  switch (verb) {
    case 'click': return [...byName(CLICK), ...click()]
    case 'doubleclick': return click('left', 2)
    case 'rightclick': return [...byName(MENU), ...click('right')]
    case 'longpress': return input([{ kind: 'long_press', ms: LONG_PRESS_MS }])
    case 'focus': return [...focus, ...click()]
    case 'toggle': return [...byName(TOGGLE), ...click()]
    case 'expand':
    case 'collapse':
      return [...byName(verb === 'expand' ? EXPAND : COLLAPSE), ...byName(CLICK), ...click()]
    case 'select': return [{ via: 'accessibility', op: 'select' }, ...byName(['select', ...CLICK]), ...click()]
    case 'increment':
    case 'decrement': {
      const sign = verb === 'increment' ? 1 : -1
      return [...byName([verb]), ...(hasValue(facts) ? [{ via: 'accessibility', op: 'step_value', sign } as const] : [])]
    }
    case 'setvalue': {
      const number = numeric(value)
      return [
        ...(hasValue(facts) && number !== undefined ? [{ via: 'accessibility', op: 'set_value', value: number } as const] : []),
        ...typed(),
      ]
    }
    case 'type': return typed()
    case 'scroll': return input([{ kind: 'wheel', ...WHEEL[params.direction ?? 'down'] }])
    case 'dismiss': return [...byName(DISMISS), ...input([{ kind: 'keys', keys: ['Escape'] }], canFocus)]
    default: return unreachable(verb, 'element action')
  }
}

/** Expand on an expanded element (or collapse on a collapsed one) is already done: nothing is sent. */
export function alreadyDone (verb: CupAction, facts: ElementFacts): boolean {
  if (verb !== 'expand' && verb !== 'collapse') return false
  const expanded = hasState(facts.states, AtspiState.EXPANDED)
  return expanded === (verb === 'expand') && (expanded || hasState(facts.states, AtspiState.EXPANDABLE))
}
