/**
 * A computer_call (or its bare action, or its list of actions) → unified actions, carried out
 * as OpenAI's computer use recipes do (developers.openai.com, "Computer use integration
 * recipes", Docker/xdotool): keys of a keypress pressed together, `keys` on a pointer action
 * held around it, `wheel` the middle button and back/forward X buttons 8/9, wait 2 s, and one
 * screenshot after the whole call. Points stay in the model's pixels (the declared display):
 * the executor scales them.
 */
import type { AdapterContext, Translation } from '../../src/pipeline/adapter.ts'
import type { ActionOf, UnifiedAction } from '../../src/actions/index.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import { notches } from '../../src/screen/scaling.ts'
import { parseCombo } from '../../src/keys/index.ts'
import type { OpenaiAction, OpenaiActionType } from './actions.ts'
import type { BatchCall, PreviewCall } from './computer-call.ts'
import { DEFAULT_PX_PER_NOTCH, DEFAULT_WAIT_SECONDS, type OpenaiQuery } from './query.ts'
import { acknowledge, type AcknowledgedSafetyCheck } from './safety-checks.ts'

export type OpenaiBody = BatchCall | PreviewCall | OpenaiAction | OpenaiAction[]

export interface OpenaiMeta {
  /** From the computer_call or the call_id query; null when neither gave one. */
  call_id: string | null
  /** Echoed in the answer; empty when the call had no pending checks. */
  acknowledged_safety_checks: AcknowledgedSafetyCheck[]
  /** The call's action types, in order. */
  actions: OpenaiActionType[]
  /** For each unified action, the index of the call's action it carries out. */
  sources: number[]
}

const BUTTONS = { left: 'left', right: 'right', wheel: 'middle', back: 'back', forward: 'forward' } as const

export function toUnified (body: OpenaiBody, context: AdapterContext<OpenaiQuery>): Translation<OpenaiMeta> {
  const call = !Array.isArray(body) && body.type === 'computer_call' ? body : null
  const native = call ? callActions(call) : Array.isArray(body) ? body : [body as OpenaiAction]
  // Checked before anything is translated: a held call must not run, nor half-run.
  const acknowledged = acknowledge(call?.pending_safety_checks ?? [], context.query.acknowledge_safety_checks)
  const options = {
    pxPerNotch: context.query.scroll_px_per_notch ?? DEFAULT_PX_PER_NOTCH,
    waitSeconds: context.query.wait_seconds ?? DEFAULT_WAIT_SECONDS,
  }
  const actions: UnifiedAction[] = []
  const sources: number[] = []
  native.forEach((action, index) => {
    // The answer carries one screenshot, of the screen after the whole call: a screenshot
    // asked for earlier in the batch would be taken and thrown away.
    if (action.type === 'screenshot' && index < native.length - 1) return
    for (const unified of translate(action, options)) {
      actions.push(unified)
      sources.push(index)
    }
  })
  if (!actions.length) {
    actions.push({ action: 'take_screenshot' })
    sources.push(Math.max(0, native.length - 1))
  }
  return {
    actions,
    screenshot: context.query.screenshot ?? true,
    meta: {
      call_id: callId(call?.call_id, context.query.call_id),
      acknowledged_safety_checks: acknowledged,
      actions: native.map((action) => action.type),
      sources,
    },
  }
}

/** `actions` when the call has them (the computer tool), else its one `action`; neither is a call for the screen. */
function callActions (call: BatchCall | PreviewCall): OpenaiAction[] {
  if ('actions' in call && call.actions) return call.actions
  return call.action ? [call.action] : []
}

function callId (fromCall: string | undefined, fromQuery: string | undefined): string | null {
  if (fromCall !== undefined && fromQuery !== undefined && fromCall !== fromQuery) {
    throw new InvalidNativePayload(`the call_id query ('${fromQuery}') is not the call_id of the computer_call ('${fromCall}'); send one or make them agree`)
  }
  return fromCall ?? fromQuery ?? null
}

interface Options { pxPerNotch: number, waitSeconds: number }

function translate (action: OpenaiAction, options: Options): UnifiedAction[] {
  switch (action.type) {
    case 'click':
      return [{ action: 'click_mouse', button: BUTTONS[action.button ?? 'left'], coordinates: [action.x, action.y], ...held(action.keys) }]
    case 'double_click':
      return [{ action: 'click_mouse', button: 'left', num_clicks: 2, coordinates: [action.x, action.y], ...held(action.keys) }]
    case 'drag':
      return [{ action: 'drag_mouse', path: action.path.map(({ x, y }) => [x, y]), ...held(action.keys) }]
    case 'keypress':
      return [{ action: 'press_key', keys: keyNames(action.keys) }]
    case 'move':
      return [{ action: 'move_mouse', coordinates: [action.x, action.y], ...held(action.keys) }]
    case 'screenshot':
      return [{ action: 'take_screenshot' }]
    case 'scroll':
      return [scroll(action, options.pxPerNotch)]
    case 'type':
      // Nothing to type is nothing to do (the unified type_text refuses empty text).
      return action.text === '' ? [] : [{ action: 'type_text', text: action.text }]
    case 'wait':
      return [{ action: 'wait', duration: options.waitSeconds }]
    default:
      return unreachable(action, 'computer action')
  }
}

/**
 * Pixels become wheel notches, a remainder rounding away from zero (the executor's rule), so
 * a small scroll still scrolls. A scroll of nothing only moves the pointer, as the recipes'
 * handlers do (they move, then click the wheel zero times).
 */
function scroll (action: Extract<OpenaiAction, { type: 'scroll' }>, pxPerNotch: number): UnifiedAction {
  const dx = notches(action.scroll_x / pxPerNotch)
  const dy = notches(action.scroll_y / pxPerNotch)
  const at: [number, number] = [action.x, action.y]
  if (dx === 0 && dy === 0) return { action: 'move_mouse', coordinates: at, ...held(action.keys) }
  const wheel: ActionOf<'scroll'> = { action: 'scroll', coordinates: at, ...held(action.keys) }
  if (dx !== 0) wheel.delta_x = dx
  if (dy !== 0) wheel.delta_y = dy
  return wheel
}

function held (keys: string[] | null | undefined): { hold_keys?: string[] } {
  return keys?.length ? { hold_keys: keyNames(keys) } : {}
}

/** The model's names ("CTRL", "ARROWLEFT") → canonical ones; an unknown name is a 400 here, before anything runs. */
function keyNames (keys: readonly string[]): string[] {
  return keys.flatMap((key) => parseCombo(key).map((info) => info.name))
}
