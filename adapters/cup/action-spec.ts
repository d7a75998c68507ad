/**
 * The Computer Use Protocol's action specs (computeruseprotocol python-sdk
 * `Session.batch_execute` / MCP `execute_action`, typescript-sdk `Session.batch`): a dict
 * naming `action`, with `keys` for the session's key press, `ms` for a wait, and `element_id`
 * (plus `value` or `direction`) for the fifteen element verbs. A request is one spec, or the
 * list `batch_execute` takes.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import { CUP_ACTIONS, type CupAction } from '../../src/accessibility/schema.ts'

/** The protocol's element verbs (schema/cup.schema.json, the SDKs' VALID_ACTIONS): the ones the accessibility tree lists. */
export const ELEMENT_ACTIONS = CUP_ACTIONS
export type ElementActionName = CupAction

const ElementId = Type.String({
  pattern: '^e\\d+$',
  description: 'An element id from a CUP tree capture, e.g. "e14".',
  errorMessage: 'element_id must be a CUP element id such as "e14"',
})

const Keys = Type.String({
  minLength: 1,
  description: 'One combo, keys joined by "+": "ctrl+s", "alt+f4", "enter", "ctrl+shift+p". A sequence is one spec per combo.',
  errorMessage: "keys must be a key combination such as 'ctrl+s'",
})

const pressMember = <A extends 'press_keys' | 'press'>(action: A, title: string, description: string) => Type.Object({
  action: Type.Literal(action),
  keys: Keys,
}, { additionalProperties: false, title, description })

// What each verb takes besides the element, as the SDKs' executors check it.
const elementParams = (action: ElementActionName): Record<string, TSchema> => {
  switch (action) {
    case 'type':
    case 'setvalue':
      return {
        value: Type.String({
          description: 'The text to type, or the text or number to set.',
          errorMessage: { type: 'value must be a string' },
        }),
      }
    case 'scroll':
      return { direction: StringEnum(['up', 'down', 'left', 'right'], { errorMessage: "direction must be one of 'up', 'down', 'left', 'right'" }) }
    default:
      return {}
  }
}

const elementMember = (action: ElementActionName) => Type.Object({
  action: Type.Literal(action),
  element_id: ElementId,
  ...elementParams(action),
}, {
  additionalProperties: false,
  title: `Cup${action.charAt(0).toUpperCase()}${action.slice(1)}`,
  description: `Element-scoped: ${action} on an element id of the server's last accessibility snapshot (GET /accessibility or get_accessibility_tree).`,
})

const members = [
  pressMember('press_keys', 'CupPressKeys', 'Sends a key combination to the focused window (python-sdk name).'),
  pressMember('press', 'CupPress', 'The same, as typescript-sdk 0.x names it.'),
  Type.Object({
    action: Type.Literal('wait'),
    ms: Type.Optional(Type.Number({
      description: 'Milliseconds; truncated and clamped to 50..5000 as the SDKs do; default 500.',
      errorMessage: 'ms must be a number of milliseconds',
    })),
  }, { additionalProperties: false, title: 'CupWait', description: 'Waits between actions of a batch.' }),
  ...ELEMENT_ACTIONS.map(elementMember),
]

type SessionSpec =
  | { action: 'press_keys' | 'press', keys: string }
  | { action: 'wait', ms?: number }
export type ElementSpec = { action: ElementActionName, element_id: string, value?: string, direction?: 'up' | 'down' | 'left' | 'right' }
export type CupActionSpec = SessionSpec | ElementSpec
export type CupInput = CupActionSpec | CupActionSpec[]

// oneOf + discriminator: Ajv checks only the member `action` names, so errors speak of it.
const ActionSpec = {
  type: 'object',
  discriminator: { propertyName: 'action' },
  oneOf: members,
}

export const CupBatchInput = Type.Unsafe<CupInput>({
  $id: 'CupInput',
  title: 'CupInput',
  description: 'One action spec (execute_action\'s arguments), or the list batch_execute runs in order, stopping at the first failure.',
  if: { type: 'array' },
  then: {
    type: 'array',
    items: ActionSpec,
  },
  else: ActionSpec,
})
