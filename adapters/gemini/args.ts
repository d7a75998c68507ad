/**
 * Building blocks of the Gemini function calls' `args`: the grid point, the scroll
 * direction, and the fields the model may add to any call (its safety decision, its intent).
 */
import { Type, type TProperties } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'

export const GridCoordinate = (axis: 'x' | 'y', what = 'the point') => Type.Integer({
  description: `${axis === 'x' ? 'Horizontal' : 'Vertical'} position of ${what} on the 0–999 grid (scaled to the screen).`,
})

export const Direction = StringEnum(['up', 'down', 'left', 'right'])

export const Magnitude = Type.Number({
  minimum: 0,
  default: 800,
  description: 'How far to scroll, in 0–999 grid units along the scroll axis (800 when absent, as in Google\'s reference agent).',
})

/** Google's safety service attaches this to a call that needs the user's confirmation. */
export const SafetyDecision = Type.Object({
  decision: Type.String({ description: "'require_confirmation' holds the call until the user confirms it." }),
  explanation: Type.Optional(Type.String()),
}, {
  // Google's docs name these two fields; anything else it adds is carried, not refused.
  additionalProperties: true,
  description: 'The safety service\'s verdict on this call.',
})

const common = {
  safety_decision: Type.Optional(SafetyDecision),
  intent: Type.Optional(Type.String({ description: 'Gemini 3.5: why the model takes this step; reported, not executed.' })),
}

/** One function call's schema: its name, its args (the given ones plus the common ones), its id. */
export function functionCall<N extends string, A extends TProperties> (name: N, args: A, description: string, argsOptional = false) {
  const Args = Type.Object({ ...args, ...common }, { additionalProperties: false })
  return Type.Object({
    name: Type.Literal(name),
    args: argsOptional ? Type.Optional(Args) : Args,
    id: Type.Optional(Type.String({ description: 'The call id, echoed in the function response.' })),
  }, { additionalProperties: false, title: name, description })
}

export const point = { x: GridCoordinate('x'), y: GridCoordinate('y') }
