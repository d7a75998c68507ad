/** A Conatus CUAction → unified actions. Coordinates are in the display space: nothing is scaled. */
import type { UnifiedAction } from '../../src/actions/index.ts'
import type { Translation } from '../../src/pipeline/adapter.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'
import { toXY, type XY } from '../../src/screen/geometry.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import type { ConatusAction } from './cu-action.ts'
import type { Unwrapped } from './unwrap.ts'

export interface ConatusMeta {
  call_id: string | null
  /** The CUAction type that ran. */
  name: string
}

/**
 * Pixels per wheel notch for `distance_xy`: the factor Conatus' own Anthropic converter uses
 * (pixels_per_click = 120) to turn notches into a distance, so a distance it made from a
 * model's notches turns back into the same notches.
 */
export const PIXELS_PER_NOTCH = 120

/** CUWait.duration is "not always provided by the AI provider"; Conatus' OpenAI converter waits 1 s then. */
export const DEFAULT_WAIT_SECONDS = 1

const at = (xy: number[] | null | undefined) => (xy ? { coordinates: toXY(xy) } : {})

export function toUnified ({ action, callId }: Unwrapped, screenshot: boolean): Translation<ConatusMeta> {
  return { actions: translate(action), screenshot, meta: { call_id: callId, name: action.type } }
}

function translate (action: ConatusAction): UnifiedAction[] {
  switch (action.type) {
    case 'left_mouse_down':
      return [{ action: 'click_mouse', button: 'left', click_type: 'down', ...at(action.xy) }]
    case 'left_mouse_up':
      return [{ action: 'click_mouse', button: 'left', click_type: 'up', ...at(action.xy) }]
    case 'left_mouse_click':
      return [{ action: 'click_mouse', button: 'left', ...at(action.xy) }]
    case 'left_mouse_double_click':
      return [{ action: 'click_mouse', button: 'left', ...at(action.xy), num_clicks: 2 }]
    case 'left_mouse_triple_click':
      return [{ action: 'click_mouse', button: 'left', ...at(action.xy), num_clicks: 3 }]
    case 'middle_click':
      return [{ action: 'click_mouse', button: 'middle', ...at(action.xy) }]
    case 'right_click':
      return [{ action: 'click_mouse', button: 'right', ...at(action.xy) }]
    case 'back_click':
      return [{ action: 'click_mouse', button: 'back', ...at(action.xy) }]
    case 'forward_click':
      return [{ action: 'click_mouse', button: 'forward', ...at(action.xy) }]
    case 'drag':
      return drag(action.xy.map(toXY))
    case 'keypress':
      return action.keys.map((key) => ({ action: 'press_key', keys: [key] }))
    case 'keypress_hold':
      return [{ action: 'press_key', keys: action.keys, duration: action.duration }]
    case 'move':
      return [{ action: 'move_mouse', coordinates: toXY(action.xy) }]
    case 'screenshot':
      return [{ action: 'take_screenshot' }]
    case 'scroll':
      return [{ action: 'scroll', ...at(action.start_xy), ...wheel(action) }]
    case 'type':
      return [{ action: 'type_text', text: action.text }]
    case 'wait': {
      const duration = action.duration ?? DEFAULT_WAIT_SECONDS
      return duration === 0 ? [] : [{ action: 'wait', duration }]
    }
    default:
      return unreachable(action, 'CUAction type')
  }
}

/** One point drags from the cursor, as the Anthropic demo's left_click_drag does: down where it is, move, up. */
function drag (path: XY[]): UnifiedAction[] {
  if (path.length > 1) return [{ action: 'drag_mouse', path }]
  return [
    { action: 'click_mouse', button: 'left', click_type: 'down' },
    { action: 'move_mouse', coordinates: path[0]! },
    { action: 'click_mouse', button: 'left', click_type: 'up' },
  ]
}

/** Pixels round to whole notches, at least one for any movement; magnitude counts notches. */
function wheel (scroll: Extract<ConatusAction, { type: 'scroll' }>): { delta_x?: number, delta_y?: number } {
  if (scroll.distance_xy) {
    const [dx, dy] = toXY(scroll.distance_xy.map(notches))
    if (dx === 0 && dy === 0) throw new InvalidNativePayload('scroll: distance_xy [0, 0] scrolls nothing')
    return { ...(dx !== 0 && { delta_x: dx }), ...(dy !== 0 && { delta_y: dy }) }
  }
  const { magnitude, direction } = scroll
  if (magnitude == null || direction == null) {
    throw new InvalidNativePayload('scroll: needs distance_xy (pixels), or magnitude (notches) with direction')
  }
  if (magnitude <= 0) throw new InvalidNativePayload(`scroll: magnitude must be positive, not ${magnitude}; direction gives the sign`)
  switch (direction) {
    case 'up': return { delta_y: -magnitude }
    case 'down': return { delta_y: magnitude }
    case 'left': return { delta_x: -magnitude }
    case 'right': return { delta_x: magnitude }
  }
}

function notches (pixels: number): number {
  if (pixels === 0) return 0
  return Math.sign(pixels) * Math.max(1, Math.round(Math.abs(pixels) / PIXELS_PER_NOTCH))
}
