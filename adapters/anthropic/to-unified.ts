/**
 * A `computer` tool call → unified actions, with each version's semantics as the reference
 * demo (anthropic-quickstarts computer-use-demo, tools/computer.py) carries them out.
 * Coordinates stay in the model's space, the declared display: the executor scales them.
 */
import type { Static } from '@sinclair/typebox'
import type { AdapterContext, Translation } from '../../src/pipeline/adapter.ts'
import type { ActionOf, UnifiedAction } from '../../src/actions/index.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'
import { toRegion, toXY } from '../../src/screen/geometry.ts'
import type { AnthropicComputer20251124, AnthropicComputer20251124Input } from './versions.ts'
import type { AnthropicQuery } from './query.ts'

/** Every version's body fits the newest one's type: older versions have fewer actions and fields. */
export type AnthropicBody = Static<typeof AnthropicComputer20251124>
export type ComputerInput = AnthropicComputer20251124Input
export type ComputerAction = ComputerInput['action']

export interface AnthropicMeta {
  /** From the tool_use block or the tool_use_id query; null when neither gave one. */
  tool_use_id: string | null
  action: ComputerAction
}

/**
 * The demo screenshots after every action but cursor_position (after a 2 s settle, which we
 * do not copy). `screenshot` and `zoom` are images themselves, so nothing is added to them.
 */
const SCREENSHOT_AFTER: Record<ComputerAction, boolean> = {
  key: true,
  hold_key: true,
  type: true,
  cursor_position: false,
  mouse_move: true,
  left_mouse_down: true,
  left_mouse_up: true,
  left_click: true,
  left_click_drag: true,
  right_click: true,
  middle_click: true,
  double_click: true,
  triple_click: true,
  scroll: true,
  wait: true,
  screenshot: false,
  zoom: false,
}

export function toUnified (body: AnthropicBody, context: AdapterContext<AnthropicQuery>): Translation<AnthropicMeta> {
  const block = 'input' in body ? body : null
  const input = block ? block.input : body as ComputerInput
  return {
    actions: actionsFor(input, context.version),
    screenshot: context.query.screenshot ?? SCREENSHOT_AFTER[input.action],
    meta: { tool_use_id: toolUseId(block?.id, context.query.tool_use_id), action: input.action },
  }
}

function toolUseId (fromBlock: string | undefined, fromQuery: string | undefined): string | null {
  if (fromBlock !== undefined && fromQuery !== undefined && fromBlock !== fromQuery) {
    throw new InvalidNativePayload(`the tool_use_id query ('${fromQuery}') is not the id of the tool_use block ('${fromBlock}'); send one or make them agree`)
  }
  return fromBlock ?? fromQuery ?? null
}

/** The button and count each of Claude's clicks names. */
const CLICKS = {
  left_click: { button: 'left' },
  right_click: { button: 'right' },
  middle_click: { button: 'middle' },
  double_click: { button: 'left', num_clicks: 2 },
  triple_click: { button: 'left', num_clicks: 3 },
} as const

export function actionsFor (input: ComputerInput, version: string): UnifiedAction[] {
  const { action } = input
  const at = input.coordinate ? { coordinates: toXY(input.coordinate) } : {}
  const held = input.text === undefined ? {} : { hold_keys: keyNames(input.text, action) }
  switch (action) {
    case 'key':
      // xdotool's `key` presses each space-separated combo in turn ("ctrl+a Delete").
      return keyNames(need(input.text, 'text', action), action).map((combo) => ({ action: 'press_key', keys: [combo] }))
    case 'hold_key':
      return [{ action: 'press_key', keys: keyNames(need(input.text, 'text', action), action), duration: need(input.duration, 'duration', action) }]
    case 'type':
      return [{ action: 'type_text', text: need(input.text, 'text', action) }]
    case 'cursor_position':
      return [{ action: 'get_cursor_position' }]
    case 'mouse_move':
      return [{ action: 'move_mouse', coordinates: toXY(need(input.coordinate, 'coordinate', action)) }]
    case 'left_mouse_down':
      return [{ action: 'click_mouse', button: 'left', click_type: 'down', ...at }]
    case 'left_mouse_up':
      return [{ action: 'click_mouse', button: 'left', click_type: 'up', ...at }]
    case 'left_click':
    case 'right_click':
    case 'middle_click':
    case 'double_click':
    case 'triple_click':
      return [{ action: 'click_mouse', ...CLICKS[action], ...at, ...held }]
    case 'left_click_drag':
      return drag(input, version)
    case 'scroll':
      return [scroll(input)]
    case 'wait':
      return [{ action: 'wait', duration: need(input.duration, 'duration', action) }]
    case 'screenshot':
      return [{ action: 'take_screenshot' }]
    case 'zoom':
      // Both the demo and the unified region take x1, y1 as exclusive: [0, 0, W, H] is the whole screen.
      return [{ action: 'take_screenshot', region: toRegion(need(input.region, 'region', action)) }]
    default: {
      const unhandled: never = action
      throw new InvalidNativePayload(`unhandled action ${JSON.stringify(unhandled)}`)
    }
  }
}

/**
 * 20241022 drags from where the pointer is, as the demo does with
 * `xdotool mousedown 1 mousemove --sync X Y mouseup 1`; later versions from
 * start_coordinate, when given (the demo's later tools still drag from the pointer).
 */
function drag (input: ComputerInput, version: string): UnifiedAction[] {
  const to = toXY(need(input.coordinate, 'coordinate', 'left_click_drag'))
  const keys = input.text === undefined ? [] : keyNames(input.text, 'left_click_drag')
  if (input.start_coordinate && version !== 'computer_20241022') {
    return [{ action: 'drag_mouse', path: [toXY(input.start_coordinate), to], ...(keys.length && { hold_keys: keys }) }]
  }
  const fromPointer: UnifiedAction[] = [
    { action: 'click_mouse', button: 'left', click_type: 'down' },
    { action: 'move_mouse', coordinates: to },
    { action: 'click_mouse', button: 'left', click_type: 'up' },
  ]
  // Held keys must outlast all three steps, so they are pressed and released around them.
  if (!keys.length) return fromPointer
  return [{ action: 'press_key', keys, press_type: 'down' }, ...fromPointer, { action: 'press_key', keys, press_type: 'up' }]
}

/** One notch per scroll_amount, like the demo's `click --repeat N 4|5|6|7`. */
function scroll (input: ComputerInput): ActionOf<'scroll'> {
  const amount = need(input.scroll_amount, 'scroll_amount', 'scroll')
  const direction = need(input.scroll_direction, 'scroll_direction', 'scroll')
  const delta = direction === 'up' || direction === 'left' ? -amount : amount
  return {
    action: 'scroll',
    ...(input.coordinate && { coordinates: toXY(input.coordinate) }),
    ...(direction === 'up' || direction === 'down' ? { delta_y: delta } : { delta_x: delta }),
    ...(input.text !== undefined && { hold_keys: keyNames(input.text, 'scroll') }),
  }
}

/**
 * xdotool key syntax: combos joined by '+', several combos separated by spaces. Names are
 * passed on as written; the key table checks them before anything runs.
 */
function keyNames (text: string, action: ComputerAction): string[] {
  const combos = text.trim().split(/\s+/).filter(Boolean)
  if (!combos.length) throw new InvalidNativePayload(`text for action '${action}' has no key names; write xdotool key names like "Return" or "ctrl+shift+t"`)
  return combos
}

/** The schema's rules require these fields for the action; this narrows their type. */
function need<T> (value: T | undefined, field: string, action: ComputerAction): T {
  if (value === undefined) throw new InvalidNativePayload(`missing required field '${field}' for action '${action}'`)
  return value
}
