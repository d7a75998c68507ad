/**
 * HUD's Common Language Actions (hud/adapters/common/types.py in hud-evals/hud-python), the
 * body HUD's `env.step` posts: one action or a list, each discriminated by `type`.
 *
 * The Python SDK sends `model_dump()` output, so every optional field arrives, as null when
 * unset: each optional field here accepts null. Two generations of the types are accepted
 * side by side: the older one names the middle button "wheel" and carries `selector`; the
 * newer one names it "middle" and adds `response`, `logs` and `reasoning`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'

const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))

export const HudPoint = Type.Object({
  x: Type.Integer(),
  y: Type.Integer(),
}, { additionalProperties: false, description: 'A point in the display space (HUD rescales to the environment before sending).' })

// CLAKey is a closed literal in Python; here any name is let through to the one key table,
// which refuses unknown ones with suggestions.
// No bounds of the unified limits here: what this translates to is checked against the
// configured limits while planning (src/executor/plan.ts), with the flag to change them.
const Keys = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })

const Delays = Type.Array(Type.Integer({ minimum: 0 }), {
  description: 'Milliseconds between consecutive clicks, or spent on each drag segment.',
})

// Fields every generation may send along with any action; they carry no input.
const common = {
  logs: Type.Optional(Type.Unknown({ description: 'Ignored: notes for HUD\'s own trace.' })),
  reasoning: Nullable(Type.String({ description: 'Ignored: the agent\'s reasoning.' })),
}

const Selector = Nullable(Type.String({ description: 'Refused: a CSS selector names no accessibility element (element_action takes the ids get_accessibility_tree gives); send a point.' }))

const Click = Type.Object({
  type: Type.Literal('click'),
  point: Nullable(HudPoint),
  button: Type.Optional(StringEnum(['left', 'right', 'wheel', 'middle', 'back', 'forward'], { description: '"wheel" (older CLA) is the middle button.' })),
  pattern: Nullable(Type.Array(Delays.items, {
    description: 'Delays in ms between clicks: [100] is a double click, [100, 100] a triple.',
  })),
  hold_keys: Nullable(Keys),
  selector: Selector,
  ...common,
}, { additionalProperties: false, title: 'HudClickAction' })

const Press = Type.Object({ type: Type.Literal('press'), keys: Keys, ...common }, { additionalProperties: false, title: 'HudPressAction' })
const KeyDown = Type.Object({ type: Type.Literal('keydown'), keys: Keys, ...common }, { additionalProperties: false, title: 'HudKeyDownAction' })
const KeyUp = Type.Object({ type: Type.Literal('keyup'), keys: Keys, ...common }, { additionalProperties: false, title: 'HudKeyUpAction' })

const TypeText = Type.Object({
  type: Type.Literal('type'),
  text: Type.String(),
  enter_after: Nullable(Type.Boolean()),
  selector: Selector,
  ...common,
}, { additionalProperties: false, title: 'HudTypeAction' })

const Scroll = Type.Object({
  type: Type.Literal('scroll'),
  point: Nullable(HudPoint),
  scroll: Nullable(Type.Object({ x: Type.Integer(), y: Type.Integer() }, {
    additionalProperties: false,
    description: 'Wheel notches: +y down, +x right.',
  })),
  hold_keys: Nullable(Keys),
  ...common,
}, { additionalProperties: false, title: 'HudScrollAction' })

const Move = Type.Object({
  type: Type.Literal('move'),
  point: Nullable(HudPoint),
  offset: Nullable(HudPoint),
  selector: Selector,
  ...common,
}, { additionalProperties: false, title: 'HudMoveAction' })

const Wait = Type.Object({
  type: Type.Literal('wait'),
  time: Type.Integer({ minimum: 0, description: 'Milliseconds.' }),
  ...common,
}, { additionalProperties: false, title: 'HudWaitAction' })

const Drag = Type.Object({
  type: Type.Literal('drag'),
  path: Type.Array(HudPoint, { minItems: 2 }),
  pattern: Nullable(Delays),
  hold_keys: Nullable(Keys),
  ...common,
}, { additionalProperties: false, title: 'HudDragAction' })

const Response = Type.Object({
  type: Type.Literal('response'),
  text: Type.String(),
  ...common,
}, { additionalProperties: false, title: 'HudResponseAction' })

const Screenshot = Type.Object({ type: Type.Literal('screenshot'), ...common }, { additionalProperties: false, title: 'HudScreenshotFetch' })
const Position = Type.Object({ type: Type.Literal('position'), ...common }, { additionalProperties: false, title: 'HudPositionFetch' })

// A custom action carries whatever fields its controller defines, so unknown fields are allowed.
const Custom = Type.Object({
  type: Type.Literal('custom'),
  action: Type.String(),
  ...common,
}, { additionalProperties: true, title: 'HudCustomAction' })

const members = [Click, Press, KeyDown, KeyUp, TypeText, Response, Scroll, Move, Wait, Drag, Custom, Screenshot, Position] as const

export type HudAction = Static<typeof members[number]>
export type HudActionType = HudAction['type']
export type HudPointValue = Static<typeof HudPoint>

// oneOf + discriminator: Ajv checks only the member `type` names, so errors speak of it.
const Action = {
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: members,
}

// if/then/else rather than anyOf: Ajv then reports only the errors of the shape that was
// sent, so a bad item in a list is named, not hidden behind "must be an object".
export const HudCla = Type.Unsafe<HudAction | HudAction[]>({
  $id: 'HudCla',
  title: 'HudCla',
  description: 'One Common Language Action, or a list run in order as one step.',
  if: { type: 'array' },
  then: {
    type: 'array',
    items: Action,
    minItems: 1,
    errorMessage: { minItems: 'a list of actions cannot be empty' },
  },
  else: Action,
})
