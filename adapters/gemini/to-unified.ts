/**
 * Gemini function calls → unified actions, with points on the 0–999 grid (the adapter declares
 * that space, so the executor scales them). Browser functions become what a person does in a
 * desktop browser: ctrl+l and the address for navigate and search, alt+Left/Right for history.
 */
import type { ActionOf, UnifiedAction } from '../../src/actions/index.ts'
import type { Size } from '../../src/screen/geometry.ts'
import type { Translation, CallSpan } from '../../src/pipeline/adapter.ts'
import { InvalidNativePayload, SafetyCheckPending } from '../../src/errors/errors.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import type { GeminiComputerUseInput, GeminiFunctionCall } from './computer-use.ts'

/**
 * Pixels one wheel notch scrolls: Chromium reports 120 per X11 wheel click, and that is the
 * page distance it scrolls (shared/research/feasibility.md §4).
 */
export const PIXELS_PER_NOTCH = 120

/** Where `search` goes: the search page Google's reference browser opens. */
export const SEARCH_PAGE = 'https://www.google.com'

/** `scroll_at`/`scroll` without a magnitude, as Google's reference agent defaults it. */
export const DEFAULT_MAGNITUDE = 800

/** The call's span of the translation's actions (`CallSpan`), and what its result needs. */
export interface GeminiCallMeta extends CallSpan {
  name: GeminiFunctionCall['name']
  /** The call's id, echoed in its function response; null when the model gave none. */
  id: string | null
  /** The call was held for confirmation and the client acknowledged it. */
  safety_acknowledgement: boolean
  /** Gemini 3.5's reason for the step, when given. */
  intent: string | null
}

export interface GeminiMeta {
  /** Whether a list was sent (the result is then a list too). */
  list: boolean
  calls: GeminiCallMeta[]
}

export interface TranslateOptions {
  /** The real screen: scroll magnitudes are fractions of it. */
  screen: Size
  /** The client acknowledged calls that need the user's confirmation. */
  acknowledged: boolean
  /** Attach a screenshot to every call's response (false when the query says screenshot=false). */
  screenshots: boolean
}

type XY = [number, number]
type Direction = 'up' | 'down' | 'left' | 'right'

const click = (at: XY, button: ActionOf<'click_mouse'>['button'] = 'left', clicks = 1): UnifiedAction =>
  ({ action: 'click_mouse', button, coordinates: at, ...(clicks > 1 && { num_clicks: clicks }) })
const keys = (...names: string[]): UnifiedAction => ({ action: 'press_key', keys: names })
const typed = (text: string): UnifiedAction[] => text === '' ? [] : [{ action: 'type_text', text }]
const openAddress = (url: string): UnifiedAction[] => [keys('ctrl+l'), ...typed(url), keys('enter')]

export function toUnified (input: GeminiComputerUseInput, options: TranslateOptions): Translation<GeminiMeta> {
  const list = Array.isArray(input)
  const items = list ? input : [input]
  const actions: UnifiedAction[] = []
  const meta: GeminiMeta = { list, calls: [] }
  items.forEach((item, index) => {
    const call = 'functionCall' in item ? item.functionCall : 'name' in item ? item : null
    if (call === null) return
    const acknowledged = checkSafety(call, list ? `[${index}] ${call.name}` : call.name, options.acknowledged)
    const own = translateCall(call, options.screen)
    // Each function response carries the screen after its call, as Google's reference sends it.
    const last = own.at(-1)
    if (options.screenshots && last && last.action !== 'take_screenshot') own[own.length - 1] = { ...last, screenshot: true }
    meta.calls.push({
      name: call.name,
      id: call.id ?? null,
      first: actions.length,
      count: own.length,
      safety_acknowledgement: acknowledged,
      intent: call.args?.intent ?? null,
    })
    actions.push(...own)
  })
  if (!meta.calls.length) throw new InvalidNativePayload('the parts hold no functionCall: the model answered in text, there is nothing to run')
  return { actions, screenshot: false, meta }
}

/** A call held for confirmation runs only when the client says the user confirmed it. */
function checkSafety (call: GeminiFunctionCall, where: string, acknowledged: boolean): boolean {
  const safety = call.args?.safety_decision
  if (safety?.decision !== 'require_confirmation') return false
  if (!acknowledged) {
    const why = safety.explanation ? `: "${safety.explanation}"` : ''
    throw new SafetyCheckPending(`${where} needs the user's confirmation${why}. Ask the user; if they agree, send it again with ?safety_acknowledgement=true`)
  }
  return true
}

function translateCall (call: GeminiFunctionCall, screen: Size): UnifiedAction[] {
  switch (call.name) {
    case 'open_web_browser':
    case 'take_screenshot':
      return [{ action: 'take_screenshot' }]
    case 'click_at':
    case 'click':
      return [click([call.args.x, call.args.y])]
    case 'double_click':
      return [click([call.args.x, call.args.y], 'left', 2)]
    case 'triple_click':
      return [click([call.args.x, call.args.y], 'left', 3)]
    case 'middle_click':
      return [click([call.args.x, call.args.y], 'middle')]
    case 'right_click':
      return [click([call.args.x, call.args.y], 'right')]
    case 'mouse_down':
    case 'mouse_up':
      return [{ action: 'click_mouse', button: 'left', click_type: call.name === 'mouse_down' ? 'down' : 'up', coordinates: [call.args.x, call.args.y] }]
    case 'hover_at':
    case 'move':
      return [{ action: 'move_mouse', coordinates: [call.args.x, call.args.y] }]
    case 'type_text_at': {
      const { x, y, text, press_enter: enter = false, clear_before_typing: clear = true } = call.args
      // Clearing as Google's reference does: select all, then Delete.
      return [click([x, y]), ...(clear ? [keys('ctrl+a'), keys('delete')] : []), ...typed(text), ...(enter ? [keys('enter')] : [])]
    }
    case 'type':
      return [...typed(call.args.text), ...(call.args.press_enter ? [keys('enter')] : [])]
    case 'scroll_document':
      return [scrollDocument(call.args.direction, screen)]
    case 'scroll_at':
    case 'scroll': {
      const { x, y, direction, magnitude = DEFAULT_MAGNITUDE } = call.args
      return [wheel(direction, magnitude, screen, [x, y])]
    }
    case 'wait_5_seconds':
      return [{ action: 'wait', duration: 5 }]
    case 'wait':
      return [{ action: 'wait', duration: call.args?.seconds ?? 1 }]
    case 'go_back':
      return [keys('alt+left')]
    case 'go_forward':
      return [keys('alt+right')]
    case 'search':
      return openAddress(SEARCH_PAGE)
    case 'navigate':
      return openAddress(call.args.url)
    case 'key_combination':
      // "Control+C" is one combo; the key table splits it (and reads "Control++" as ctrl and plus).
      return [keys(call.args.keys)]
    case 'hotkey':
      return [keys(...call.args.keys)]
    case 'press_key':
      return [keys(call.args.key)]
    case 'key_down':
    case 'key_up':
      return [{ action: 'press_key', keys: [call.args.key], press_type: call.name === 'key_down' ? 'down' : 'up' }]
    case 'drag_and_drop': {
      const { x, y, destination_x: dx, destination_y: dy } = call.args
      return [{ action: 'drag_mouse', path: [[x, y], [dx, dy]] }]
    }
    default:
      return unreachable(call, 'Gemini function')
  }
}

/**
 * The magnitude is a share of the screen along the scroll axis (grid units, as Google's agent
 * denormalises it), turned into real pixels and then into the nearest whole number of notches.
 */
function wheel (direction: Direction, magnitude: number, screen: Size, at?: XY): UnifiedAction {
  const vertical = direction === 'up' || direction === 'down'
  const pixels = (magnitude / 1000) * (vertical ? screen.height : screen.width)
  const count = Math.max(1, Math.round(pixels / PIXELS_PER_NOTCH))
  const signed = direction === 'up' || direction === 'left' ? -count : count
  return { action: 'scroll', ...(at && { coordinates: at }), ...(vertical ? { delta_y: signed } : { delta_x: signed }) }
}

/** Like Google's reference browser: Page Up/Down, and half a screen sideways (500 grid units). */
function scrollDocument (direction: Direction, screen: Size): UnifiedAction {
  if (direction === 'up') return keys('pageup')
  if (direction === 'down') return keys('pagedown')
  return wheel(direction, 500, screen)
}
