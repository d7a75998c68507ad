/**
 * CUP action specs → unified actions, one each: the session actions become press_key and
 * wait, the fifteen element verbs become element_action on the same id, which the server
 * resolves against its last accessibility snapshot (GET /accessibility or
 * get_accessibility_tree) — the tree a CUP client read its ids from.
 */
import type { UnifiedAction } from '../../src/actions/index.ts'
import type { Translation } from '../../src/pipeline/adapter.ts'
import { InvalidQuery } from '../../src/errors/errors.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import type { CupActionSpec, CupInput, ElementActionName, ElementSpec } from './action-spec.ts'

/** What the result needs of each spec that runs: its words, the SDK's. */
export type CupStep =
  | { action: 'press_keys' | 'press', keys: string }
  | { action: 'wait', ms: number }
  | { action: ElementActionName, element_id: string }

export interface CupMeta {
  /** A list answers a list of results; one spec, one result. */
  batch: boolean
  steps: CupStep[]
}

/** The SDKs' wait: `max(50, min(int(ms), 5000))`, 500 when absent. */
export const WAIT_DEFAULT_MS = 500
export const WAIT_MIN_MS = 50
export const WAIT_MAX_MS = 5000

export function toUnified (input: CupInput, screenshot: boolean | undefined): Translation<CupMeta> {
  if (screenshot === true) {
    throw new InvalidQuery('cup: CUP action results carry no image (its screenshot is a tool of its own); take one with POST /computer {"action": "take_screenshot"}')
  }
  const batch = Array.isArray(input)
  const specs = batch ? input : [input]
  return { actions: specs.map(toAction), screenshot: false, meta: { batch, steps: specs.map(step) } }
}

function step (spec: CupActionSpec): CupStep {
  switch (spec.action) {
    case 'press_keys':
    case 'press':
      return { action: spec.action, keys: spec.keys }
    case 'wait':
      return { action: 'wait', ms: waitMs(spec.ms) }
    case 'click':
    case 'collapse':
    case 'decrement':
    case 'dismiss':
    case 'doubleclick':
    case 'expand':
    case 'focus':
    case 'increment':
    case 'longpress':
    case 'rightclick':
    case 'scroll':
    case 'select':
    case 'setvalue':
    case 'toggle':
    case 'type':
      return { action: spec.action, element_id: spec.element_id }
    default:
      return unreachable(spec, 'CUP action')
  }
}

function toAction (spec: CupActionSpec): UnifiedAction {
  switch (spec.action) {
    case 'press_keys':
    case 'press':
      // One combo pressed together: CUP's parse_combo splits on '+' alone, as src/keys does.
      return { action: 'press_key', keys: [spec.keys] }
    case 'wait':
      return { action: 'wait', duration: waitMs(spec.ms) / 1000 }
    default:
      return elementAction(spec)
  }
}

/** The SDKs' `max(50, min(int(ms), 5000))`. */
const waitMs = (ms: number | undefined) => Math.max(WAIT_MIN_MS, Math.min(Math.trunc(ms ?? WAIT_DEFAULT_MS), WAIT_MAX_MS))

function elementAction (spec: ElementSpec): UnifiedAction {
  return {
    action: 'element_action',
    element: spec.element_id,
    verb: spec.action,
    ...(spec.value !== undefined && { value: spec.value }),
    ...(spec.direction !== undefined && { direction: spec.direction }),
  }
}
