/**
 * Tool calls → unified actions, in the family's coordinate space (family.ts). `terminate` and
 * `answer` end the model's task and Fara's `pause_and_memorize_fact` keeps a note: they are
 * reported, nothing is run for them. Fara's browser actions become the keys a desktop browser
 * takes for them (fara-actions.ts).
 */
import type { UnifiedAction } from '../../src/actions/index.ts'
import type { Translation } from '../../src/pipeline/adapter.ts'
import { InvalidNativePayload, UnsupportedAction } from '../../src/errors/errors.ts'
import { need, type QwenArguments } from './arguments.ts'
import type { QwenMeta, XY } from './meta.ts'
import { faraActions, FARA_ONLY } from './fara-actions.ts'
import type { ParsedCall } from './parse.ts'

export type { QwenCallMeta, QwenMeta } from './meta.ts'

/** Pixels per wheel notch: Chromium scrolls 120 px for one X11 wheel click (shared/research/feasibility.md §4). */
export const PIXELS_PER_NOTCH = 120


export interface TranslateOptions {
  /** Qwen3-VL's grid edge (1000), read as its last unit (999): its docs write the range both 0–999 and 0–1000. */
  gridEdge?: number
  screenshot: boolean
  label: string
  /** Fara-7B: its own type and scroll, and its browser actions. */
  fara?: boolean
}

export function toUnified (calls: ParsedCall[], options: TranslateOptions): Translation<QwenMeta> {
  const actions: UnifiedAction[] = []
  const meta: QwenMeta = { calls: [], terminate: null, answer: null }
  for (const { where, args } of calls) {
    const label = `${options.label}: ${where ? `${where} ` : ''}${args.action}`
    const own = options.fara && (FARA_ONLY as Set<string>).has(args.action)
      ? faraActions(args, label, (coordinate) => point(coordinate, options.gridEdge), meta)
      : translateCall(args, label, options.gridEdge, meta)
    meta.calls.push({ action: args.action, first: actions.length, count: own.length })
    actions.push(...own)
  }
  return { actions, screenshot: options.screenshot && actions.length > 0, meta }
}

function translateCall (args: QwenArguments, where: string, edge: number | undefined, meta: QwenMeta): UnifiedAction[] {
  const at = (): XY | undefined => args.coordinate ? point(args.coordinate, edge) : undefined
  const click = (button: 'left' | 'right' | 'middle', clicks = 1): UnifiedAction => {
    const coordinates = at()
    return { action: 'click_mouse', button, ...(coordinates && { coordinates }), ...(clicks > 1 && { num_clicks: clicks }) }
  }
  switch (args.action) {
    case 'key':
      return [{ action: 'press_key', keys: need(args, 'keys', where) }]
    case 'type': {
      const text = need(args, 'text', where)
      return text === '' ? [] : [{ action: 'type_text', text }]
    }
    case 'mouse_move':
      return [{ action: 'move_mouse', coordinates: point(need(args, 'coordinate', where), edge) }]
    case 'left_click':
      return [click('left')]
    case 'right_click':
      return [click('right')]
    case 'middle_click':
      return [click('middle')]
    case 'double_click':
      return [click('left', 2)]
    case 'triple_click':
      return [click('left', 3)]
    case 'left_click_drag':
      // From wherever the pointer is, as Qwen's reference does with pyautogui.dragTo.
      return [
        { action: 'click_mouse', button: 'left', click_type: 'down' },
        { action: 'move_mouse', coordinates: point(need(args, 'coordinate', where), edge) },
        { action: 'click_mouse', button: 'left', click_type: 'up' },
      ]
    case 'scroll':
    case 'hscroll':
      return [wheel(args.action, need(args, 'pixels', where), where, at())]
    case 'wait':
      return [{ action: 'wait', duration: need(args, 'time', where) }]
    case 'screenshot':
      return [{ action: 'take_screenshot' }]
    case 'terminate':
      meta.terminate = need(args, 'status', where)
      return []
    case 'answer':
      meta.answer = need(args, 'text', where)
      meta.terminate = 'success'
      return []
    case 'visit_url':
    case 'web_search':
    case 'history_back':
    case 'pause_and_memorize_fact':
    case 'refresh':
      // Fara's own actions: a schema for another family refuses them before here.
      throw new UnsupportedAction(`${where}: only Fara-7B (version=fara) has this action`)
    default: {
      const unhandled: never = args.action
      throw new UnsupportedAction(`no translation for Qwen action ${JSON.stringify(unhandled)}`)
    }
  }
}

/** Whole units; anything else off the space is left for the executor to refuse, naming the space. */
export function point (coordinate: number[], edge: number | undefined): XY {
  const [x, y] = coordinate.map((v) => {
    const unit = Math.round(v)
    return unit === edge ? unit - 1 : unit
  })
  return [x!, y!]
}

/**
 * `pixels` > 0 scrolls up (scroll) or right (hscroll, pyautogui.hscroll's sign, which Qwen's
 * reference calls); the distance becomes the nearest whole number of 120 px notches, at least one.
 */
function wheel (action: 'scroll' | 'hscroll', pixels: number, where: string, coordinates?: XY): UnifiedAction {
  if (pixels === 0) throw new InvalidNativePayload(`${where}: pixels must not be 0`)
  const count = Math.max(1, Math.round(Math.abs(pixels) / PIXELS_PER_NOTCH))
  const delta = action === 'scroll' ? { delta_y: pixels > 0 ? -count : count } : { delta_x: pixels > 0 ? count : -count }
  return { action: 'scroll', ...(coordinates && { coordinates }), ...delta }
}
