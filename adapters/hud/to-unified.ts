/**
 * Common Language Actions → unified actions. Points are in the client's display space (HUD's
 * own adapters rescale to the environment before sending), so nothing is scaled here.
 */
import type { ActionOf, UnifiedAction } from '../../src/actions/index.ts'
import type { Translation } from '../../src/pipeline/adapter.ts'
import { InvalidNativePayload, UnsupportedAction } from '../../src/errors/errors.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import type { HudAction, HudPointValue } from './cla.ts'

export interface HudMeta {
  /** For each unified action, the index of the CLA action it came from. */
  origins: number[]
  /** The text of every `response` action, in order. */
  responses: string[]
}

/**
 * Clicks of a `pattern` that follow each other within this many ms are one n-click, which the
 * desktop recognises as a double or triple click (GTK's and Qt's default double-click time is
 * 400 ms). A longer gap is kept as a wait between separate clicks, since that is what the
 * model asked for and an n-click cannot express it.
 */
export const DOUBLE_CLICK_MS = 400

type Button = ActionOf<'click_mouse'>['button']
type XY = [number, number]

const BUTTONS: Record<NonNullable<Extract<HudAction, { type: 'click' }>['button']>, Button> = {
  left: 'left',
  right: 'right',
  // The older CLAButton calls the middle button "wheel".
  wheel: 'middle',
  middle: 'middle',
  back: 'back',
  forward: 'forward',
}

const xy = (point: HudPointValue): XY => [point.x, point.y]
const seconds = (ms: number) => ms / 1000

export function toUnified (input: HudAction | HudAction[], screenshot: boolean): Translation<HudMeta> {
  const list = Array.isArray(input) ? input : [input]
  const actions: UnifiedAction[] = []
  const meta: HudMeta = { origins: [], responses: [] }
  list.forEach((cla, index) => {
    const where = Array.isArray(input) ? `[${index}] ${cla.type}` : cla.type
    for (const action of translateOne(cla, where, meta.responses)) {
      actions.push(action)
      meta.origins.push(index)
    }
  })
  return { actions, screenshot, meta }
}

function translateOne (cla: HudAction, where: string, responses: string[]): UnifiedAction[] {
  switch (cla.type) {
    case 'click':
      refuseSelector(cla.selector, where)
      return clicks(BUTTONS[cla.button ?? 'left'], cla.point ? xy(cla.point) : undefined, cla.pattern ?? [], cla.hold_keys ?? undefined)
    case 'press':
      return [{ action: 'press_key', keys: cla.keys }]
    case 'keydown':
      return [{ action: 'press_key', keys: cla.keys, press_type: 'down' }]
    case 'keyup':
      return [{ action: 'press_key', keys: cla.keys, press_type: 'up' }]
    case 'type': {
      refuseSelector(cla.selector, where)
      const actions: UnifiedAction[] = cla.text === '' ? [] : [{ action: 'type_text', text: cla.text }]
      if (cla.enter_after) actions.push({ action: 'press_key', keys: ['enter'] })
      return actions
    }
    case 'response':
      responses.push(cla.text)
      return []
    case 'scroll':
      return [scroll(cla, where)]
    case 'move':
      refuseSelector(cla.selector, where)
      return [{ action: 'move_mouse', coordinates: moveTarget(cla.point, cla.offset, where) }]
    case 'wait':
      return cla.time === 0 ? [] : [{ action: 'wait', duration: seconds(cla.time) }]
    case 'drag':
      return drag(cla.path.map(xy), cla.pattern ?? [], cla.hold_keys ?? undefined)
    case 'screenshot':
      return [{ action: 'take_screenshot' }]
    case 'position':
      return [{ action: 'get_cursor_position' }]
    case 'custom':
      throw new UnsupportedAction(`${where}: no handler is registered for custom action '${cla.action}'; send CLA input actions instead`)
    default:
      return unreachable(cla, 'CLA type')
  }
}

function refuseSelector (selector: string | null | undefined, where: string) {
  if (selector == null) return
  throw new UnsupportedAction(`${where}: selector ${JSON.stringify(selector)} cannot be used: a CSS selector names no element of the accessibility tree (its elements have ids such as e14, from get_accessibility_tree, for element_action); send a point instead`)
}

/** One click per run of clicks whose gaps are within DOUBLE_CLICK_MS, with waits for longer gaps. */
function clicks (button: Button, at: XY | undefined, pattern: number[], holdKeys: string[] | undefined): UnifiedAction[] {
  const click = (count: number): UnifiedAction => ({
    action: 'click_mouse',
    button,
    ...(at && { coordinates: at }),
    ...(count > 1 && { num_clicks: count }),
    ...(holdKeys && { hold_keys: holdKeys }),
  })
  const actions: UnifiedAction[] = []
  let count = 1
  for (const gap of pattern) {
    if (gap <= DOUBLE_CLICK_MS) {
      count++
    } else {
      actions.push(click(count), { action: 'wait', duration: seconds(gap) })
      count = 1
    }
  }
  actions.push(click(count))
  return actions
}

function scroll (cla: Extract<HudAction, { type: 'scroll' }>, where: string): UnifiedAction {
  // HUD's PyAutoGUI executors turn these into wheel clicks (+y down), as its Claude adapter
  // fills them from scroll_amount; they are notches, never coordinates to scale.
  const amount = cla.scroll
  if (!amount) throw new InvalidNativePayload(`${where}: 'scroll' is required: the wheel notches to turn, as {"x": 0, "y": 3}`)
  if (amount.x === 0 && amount.y === 0) throw new InvalidNativePayload(`${where}: scroll {"x": 0, "y": 0} turns the wheel by nothing`)
  return {
    action: 'scroll',
    ...(cla.point && { coordinates: xy(cla.point) }),
    ...(amount.x !== 0 && { delta_x: amount.x }),
    ...(amount.y !== 0 && { delta_y: amount.y }),
    ...(cla.hold_keys && { hold_keys: cla.hold_keys }),
  }
}

function moveTarget (point: HudPointValue | null | undefined, offset: HudPointValue | null | undefined, where: string): XY {
  if (point) return offset ? [point.x + offset.x, point.y + offset.y] : xy(point)
  if (offset) {
    throw new UnsupportedAction(`${where}: an offset without a point moves relative to the cursor, which a translation cannot know; send the point to move to (an offset is added to it)`)
  }
  throw new InvalidNativePayload(`${where}: needs a point to move to`)
}

/**
 * Without a pattern, one drag. With one, pattern[i] is the time spent on segment i (as HUD's
 * executors use it): the button goes down at the first point, each segment waits then moves,
 * and held keys are pressed around the whole drag rather than per step.
 */
function drag (path: XY[], pattern: number[], holdKeys: string[] | undefined): UnifiedAction[] {
  if (pattern.length === 0) return [{ action: 'drag_mouse', path, ...(holdKeys && { hold_keys: holdKeys }) }]
  const actions: UnifiedAction[] = []
  if (holdKeys) actions.push({ action: 'press_key', keys: holdKeys, press_type: 'down' })
  actions.push({ action: 'click_mouse', button: 'left', click_type: 'down', coordinates: path[0]! })
  path.slice(1).forEach((point, segment) => {
    const ms = pattern[segment] ?? 0
    if (ms > 0) actions.push({ action: 'wait', duration: seconds(ms) })
    actions.push({ action: 'move_mouse', coordinates: point })
  })
  actions.push({ action: 'click_mouse', button: 'left', click_type: 'up' })
  if (holdKeys) actions.push({ action: 'press_key', keys: holdKeys, press_type: 'up' })
  return actions
}
