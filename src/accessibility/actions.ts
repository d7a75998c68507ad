/**
 * Which CUP actions a node supports, from its AT-SPI actions, interfaces, states and role.
 * AT-SPI action names differ by toolkit (GTK 'click'/'activate'; Chromium 'press', 'check',
 * 'jump', …), so they are folded here; the rest follows from what the object can do (an
 * editable text input: type; Value: setvalue, increment, decrement; EXPANDABLE: expand/collapse).
 * Chromium gives every object 'doDefault' (no default action) and 'showContextMenu': neither
 * says the object does anything, so neither counts.
 */
import { CUP_ACTIONS, type CupAction, type CupRole } from './schema.ts'
import { AtspiState, hasState, type StateWords } from './states.ts'

/** AT-SPI action names (lower-cased) to the CUP action they perform. */
export const ATSPI_ACTIONS: Readonly<Record<string, CupAction>> = {
  click: 'click',
  press: 'click',
  activate: 'click',
  jump: 'click',
  open: 'click',
  clickancestor: 'click',
  toggle: 'toggle',
  check: 'toggle',
  uncheck: 'toggle',
  'expand or contract': 'expand',
  'expand or collapse': 'expand',
  expand: 'expand',
  collapse: 'collapse',
  menu: 'rightclick',
  popup: 'rightclick',
  increment: 'increment',
  decrement: 'decrement',
  select: 'select',
  dismiss: 'dismiss',
  close: 'dismiss',
  scroll: 'scroll',
}

const TEXT_INPUT_ROLES: ReadonlySet<CupRole> = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton'])
const RANGE_ROLES: ReadonlySet<CupRole> = new Set(['slider', 'spinbutton', 'scrollbar'])
const TOGGLE_ROLES: ReadonlySet<CupRole> = new Set(['checkbox', 'switch', 'menuitemcheckbox'])

export interface ActionContext {
  role: CupRole
  atspiActions: readonly string[]
  interfaces: readonly string[]
  states: StateWords
}

export function cupActions ({ role, atspiActions, interfaces, states }: ActionContext): CupAction[] {
  const actions = new Set<CupAction>()
  const has = (state: number) => hasState(states, state)
  for (const name of atspiActions) {
    const action = ATSPI_ACTIONS[name.trim().toLowerCase()]
    if (action) actions.add(action)
  }
  if (actions.has('expand') || has(AtspiState.EXPANDABLE)) {
    actions.add('expand')
    actions.add('collapse')
  }
  if (actions.has('click') && TOGGLE_ROLES.has(role)) actions.add('toggle')
  if (actions.has('toggle') && TOGGLE_ROLES.has(role)) actions.add('click')
  const writable = !has(AtspiState.READ_ONLY) && has(AtspiState.ENABLED)
  // Chromium's inputs have no EditableText interface: they are typed into, not set.
  if (writable && has(AtspiState.EDITABLE) && TEXT_INPUT_ROLES.has(role)) {
    actions.add('type')
    if (interfaces.includes('EditableText')) actions.add('setvalue')
  }
  if (writable && interfaces.includes('Value') && RANGE_ROLES.has(role)) {
    actions.add('setvalue')
    actions.add('increment')
    actions.add('decrement')
  }
  if (has(AtspiState.SELECTABLE)) actions.add('select')
  if (actions.size === 0 && has(AtspiState.FOCUSABLE)) actions.add('focus')
  // In the protocol's own order, so a node's list never depends on the toolkit's.
  return CUP_ACTIONS.filter((action) => actions.has(action))
}
