/**
 * CUP action specs → unified actions, one each. Only the session actions run here: the
 * element verbs act on an accessibility-tree node ("e14") that this server has no tree to
 * resolve, so a spec naming one refuses the whole request before any input.
 */
import type { UnifiedAction } from '../../src/actions/index.ts'
import type { Translation } from '../../src/adapter.ts'
import { InvalidQuery, UnsupportedAction } from '../../src/errors.ts'
import type { CupActionSpec, CupInput, ElementSpec } from './action-spec.ts'

/** What the result needs of each spec that runs: its words, the SDK's. */
export type CupStep =
  | { action: 'press_keys' | 'press', keys: string }
  | { action: 'wait', ms: number }

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
  const steps = specs.map((spec, index) => step(spec, batch ? `actions[${index}]: ` : ''))
  return { actions: steps.map(toAction), screenshot: false, meta: { batch, steps } }
}

function step (spec: CupActionSpec, where: string): CupStep {
  switch (spec.action) {
    case 'press_keys':
    case 'press':
      return { action: spec.action, keys: spec.keys }
    case 'wait':
      return { action: 'wait', ms: Math.max(WAIT_MIN_MS, Math.min(Math.trunc(spec.ms ?? WAIT_DEFAULT_MS), WAIT_MAX_MS)) }
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
      throw needsTree(spec, where)
    default: {
      const unhandled: never = spec
      throw new UnsupportedAction(`cup: unhandled action ${JSON.stringify((unhandled as { action: unknown }).action)}`)
    }
  }
}

function needsTree (spec: ElementSpec, where: string): InstanceType<typeof UnsupportedAction> {
  return new UnsupportedAction(`${where}cup: "${spec.action}" on element "${spec.element_id}" needs the accessibility tree, which this server does not read yet; only press_keys and wait run here`)
}

function toAction (step: CupStep): UnifiedAction {
  switch (step.action) {
    case 'press_keys':
    case 'press':
      // One combo pressed together: CUP's parse_combo splits on '+' alone, as src/keys does.
      return { action: 'press_key', keys: [step.keys] }
    case 'wait':
      return { action: 'wait', duration: step.ms / 1000 }
  }
}
