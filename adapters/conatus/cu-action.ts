/**
 * Conatus' computer-use actions (conatus.models.inputs_outputs.tool_calls, the CU* dataclasses;
 * reference/seed-003), as `safe_asdict()` writes them: `type` names the action, unset optional
 * fields arrive as null, tuples as JSON arrays. A request is either one such action or the
 * `AIToolCall` that carries it, whose `returned_arguments` is a dict or a stringified JSON.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'

const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))

const XY = Type.Array(Type.Integer(), {
  minItems: 2,
  maxItems: 2,
  description: '[x, y] in the display space.',
  errorMessage: 'xy must be a list of exactly 2 integers [x, y]',
})

// CUAction.call_id is not in safe_asdict(), but a client serialising the whole dataclass sends it.
const CallId = Nullable(Type.String({ description: 'Echoed in the result.' }))

const pointAction = <K extends string>(type: K, title: string) => Type.Object({
  type: Type.Literal(type),
  xy: Nullable(Type.Array(Type.Integer(), {
    minItems: 2,
    maxItems: 2,
    description: '[x, y]; null acts where the cursor is.',
    errorMessage: 'xy must be a list of exactly 2 integers [x, y], or null for the cursor',
  })),
  call_id: CallId,
}, { additionalProperties: false, title })

// No bounds of the unified limits here: what this translates to is checked against the
// configured limits while planning (src/executor/plan.ts), with the flag to change them.
const Keys = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })

const members = [
  pointAction('left_mouse_down', 'ConatusLeftMouseDown'),
  pointAction('left_mouse_up', 'ConatusLeftMouseUp'),
  pointAction('left_mouse_click', 'ConatusLeftMouseClick'),
  pointAction('left_mouse_double_click', 'ConatusLeftMouseDoubleClick'),
  pointAction('left_mouse_triple_click', 'ConatusLeftMouseTripleClick'),
  pointAction('middle_click', 'ConatusMiddleClick'),
  pointAction('right_click', 'ConatusRightClick'),
  pointAction('back_click', 'ConatusBackClick'),
  pointAction('forward_click', 'ConatusForwardClick'),
  Type.Object({
    type: Type.Literal('drag'),
    xy: Type.Array(XY, {
      minItems: 1,
      description: 'The path; a single point drags from where the cursor is to it.',
    }),
    call_id: CallId,
  }, { additionalProperties: false, title: 'ConatusDrag' }),
  Type.Object({
    type: Type.Literal('keypress'),
    keys: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      description: 'Pressed one after the other; an element may be a combo such as "ctrl+a".',
    }),
    call_id: CallId,
  }, { additionalProperties: false, title: 'ConatusKeypress' }),
  Type.Object({
    type: Type.Literal('keypress_hold'),
    keys: Keys,
    duration: Type.Number({ exclusiveMinimum: 0, description: 'Seconds.' }),
    call_id: CallId,
  }, { additionalProperties: false, title: 'ConatusKeypressHold' }),
  Type.Object({ type: Type.Literal('move'), xy: XY, call_id: CallId }, { additionalProperties: false, title: 'ConatusMove' }),
  Type.Object({ type: Type.Literal('screenshot'), call_id: CallId }, { additionalProperties: false, title: 'ConatusScreenshot' }),
  Type.Object({
    type: Type.Literal('scroll'),
    start_xy: Nullable(XY),
    distance_xy: Nullable(Type.Array(Type.Integer(), {
      minItems: 2,
      maxItems: 2,
      description: 'Pixels [dx, dy], +y down, +x right.',
      errorMessage: 'distance_xy must be a list of exactly 2 integers [dx, dy] (pixels)',
    })),
    magnitude: Nullable(Type.Number({ description: 'Wheel notches, with direction; used when distance_xy is null.' })),
    direction: Nullable(StringEnum(['up', 'down', 'left', 'right'])),
    call_id: CallId,
  }, { additionalProperties: false, title: 'ConatusScroll' }),
  Type.Object({
    type: Type.Literal('type'),
    text: Type.String({ minLength: 1 }),
    call_id: CallId,
  }, { additionalProperties: false, title: 'ConatusType' }),
  Type.Object({
    type: Type.Literal('wait'),
    duration: Nullable(Type.Number({ minimum: 0, description: 'Seconds; null waits the default.' })),
    call_id: CallId,
  }, { additionalProperties: false, title: 'ConatusWait' }),
] as const

export type ConatusAction = Static<typeof members[number]>
export type ConatusActionType = ConatusAction['type']
export const ACTION_TYPES: readonly string[] = members.map((m) => m.properties.type.const)

// oneOf + discriminator: Ajv checks only the member `type` names, so errors speak of it.
export const ConatusActionSchema = {
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: members,
}

const AIToolCall = Type.Object({
  name: Type.String({ description: 'The tool called; the action when returned_arguments names no type.' }),
  returned_arguments: Type.Union([Type.Object({}, { additionalProperties: true }), Type.String()], {
    description: 'The action\'s fields, as a dict or a stringified JSON.',
    errorMessage: 'returned_arguments must be a dict or a stringified JSON',
  }),
  call_id: Nullable(Type.String({ description: 'Echoed in the result.' })),
  type: Type.Optional(Type.Literal('function')),
  requires_local_execution: Type.Optional(Type.Boolean()),
  could_be_structured_output: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, title: 'ConatusAIToolCall' })
export type ConatusToolCall = Static<typeof AIToolCall>

// if/then/else rather than anyOf: Ajv then reports only the errors of the shape that was sent.
export const ConatusInput = Type.Unsafe<ConatusAction | ConatusToolCall>({
  $id: 'ConatusInput',
  title: 'ConatusInput',
  description: 'One CUAction (by `type`), or the AIToolCall carrying it (by `returned_arguments`).',
  if: { type: 'object', required: ['returned_arguments'] },
  then: AIToolCall,
  else: ConatusActionSchema,
})
