/**
 * Planning an accessibility action, once: which element an id names (or why it names none: a
 * 409 that says to take a new snapshot) and whether the element can take the verb at all,
 * checked from the snapshot before any input. Carrying it out is element-run.ts.
 */
import type { ActionOf } from '../actions/index.ts'
import type { Accessibility } from '../accessibility/service.ts'
import type { ElementRecord } from '../accessibility/normalize.ts'
import type { CupAction } from '../accessibility/schema.ts'
import { alreadyDone, attempts, hasValue, numeric, takesText, type ElementFacts, type VerbParams } from '../accessibility/strategy.ts'
import type { Rect, Size } from '../screen/geometry.ts'
import { InvalidAction, StaleElement, UnsupportedAction } from '../errors/errors.ts'

export const NEW_SNAPSHOT = 'take a new snapshot (GET /accessibility or get_accessibility_tree) and use its ids'

export interface ElementPlan {
  kind: 'element_action'
  element: string
  verb: CupAction
  params: VerbParams
  /** The element as the snapshot recorded it; undefined when an earlier action of the batch takes the snapshot it names. */
  record?: ElementRecord | undefined
  screenshot: boolean
}

/** An element in words, for messages: its id, role and name. */
export const describe = (id: string, record: ElementRecord) => `${id} (${record.role}${record.name ? ` ${JSON.stringify(record.name)}` : ''})`

const toRect = (bounds: ElementRecord['bounds']): Rect | null => bounds ? { x: bounds.x, y: bounds.y, width: bounds.w, height: bounds.h } : null

/** The element an id of the last snapshot names; a 409 naming the way out when it names none. */
export function resolveElement (accessibility: Accessibility, id: string): ElementRecord {
  const record = accessibility.lookup(id)
  if (record) return record
  const current = accessibility.snapshots.current
  if (!current) throw new StaleElement(`element ${id}: no accessibility snapshot has been taken yet; ${NEW_SNAPSHOT}`)
  const size = current.elements.size
  throw new StaleElement(`element ${id} is not in the last accessibility snapshot (${size ? `its ids are e0..e${size - 1}` : 'it has no elements'}); ${NEW_SNAPSHOT}`)
}

export function planElementAction (action: ActionOf<'element_action'>, accessibility: Accessibility | undefined,
  snapshotBefore: boolean, screen: Size): ElementPlan {
  const { verb, value, direction } = action
  const takesValue = verb === 'type' || verb === 'setvalue'
  if (takesValue && value === undefined) throw new InvalidAction(`element_action '${verb}' needs value: the text to put in`)
  if (!takesValue && value !== undefined) throw new InvalidAction(`value is only for the verbs 'type' and 'setvalue' (got verb '${verb}')`)
  if (verb === 'scroll' && direction === undefined) throw new InvalidAction("element_action 'scroll' needs direction: 'up', 'down', 'left' or 'right'")
  if (verb !== 'scroll' && direction !== undefined) throw new InvalidAction(`direction is only for the verb 'scroll' (got verb '${verb}')`)
  if (!accessibility) throw new UnsupportedAction('element_action needs the accessibility tree, and this server has none')
  const unavailable = accessibility.unavailable()
  if (unavailable) throw new UnsupportedAction(unavailable)
  const params: VerbParams = { value, direction }
  const plan: ElementPlan = { kind: 'element_action', element: action.element, verb, params, screenshot: action.screenshot === true }
  if (snapshotBefore) return plan
  const record = resolveElement(accessibility, action.element)
  checkFeasible(action.element, record, verb, params, screen)
  return { ...plan, record }
}

/** Refuses, before any input, a verb the element cannot take in any way. */
export function checkFeasible (id: string, record: ElementRecord, verb: CupAction, params: VerbParams, screen: Size): void {
  const facts: ElementFacts = { role: record.role, actions: record.actions, interfaces: record.interfaces, states: record.states, bounds: toRect(record.bounds) }
  const what = describe(id, record)
  if (verb === 'type' && !takesText(facts)) throw new UnsupportedAction(`element ${what} takes no text: type needs an editable text element`)
  if (verb === 'setvalue') {
    if (!takesText(facts) && !hasValue(facts)) throw new UnsupportedAction(`element ${what} takes no value: setvalue needs a range (Value) or an editable text element`)
    if (!takesText(facts) && numeric(params.value ?? '') === undefined) {
      throw new InvalidAction(`setvalue on ${what} needs a number for its range, got ${JSON.stringify(params.value)}`)
    }
  }
  if (alreadyDone(verb, facts)) return
  if (attempts(verb, facts, params, screen).length === 0) {
    throw new UnsupportedAction(`element ${what} offers no way to ${verb}: no accessibility action or interface for it, and no bounds on the screen to act at`)
  }
}
