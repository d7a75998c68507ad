/**
 * The actions of a `computer_call`, field for field as the `openai` package (v6) types them
 * (`ResponseComputerToolCall.action`, and `ComputerAction` for the batched `actions`): points in
 * pixels of the screenshot the model saw, scroll distances in pixels, key names as the model
 * writes them (upper case: "CTRL", "ENTER", "ARROWLEFT"). `keys` on pointer actions are held
 * while the action runs; the API sends null for none.
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'

const Pixel = (axis: 'x' | 'y', what: string) => Type.Integer({
  description: `The ${axis}-coordinate of ${what}, in pixels of the screenshot the model saw.`,
})

const HeldKeys = Type.Optional(Type.Union([
  Type.Array(Type.String({ minLength: 1 }), { description: 'Keys held down during the action, e.g. ["SHIFT"].' }),
  Type.Null(),
]))

/** One action's schema; a missing field is reported with everything the action needs. */
function action<T extends string, P extends TProperties> (type: T, properties: P, description: string) {
  const schema = Type.Object({ type: Type.Literal(type), ...properties }, { additionalProperties: false, title: `Openai${pascal(type)}Action`, description })
  const needs = ((schema.required ?? []) as string[]).filter((field) => field !== 'type')
  return needs.length ? { ...schema, errorMessage: { required: `${type} needs ${needs.length > 1 ? `${needs.slice(0, -1).join(', ')} and ${needs.at(-1)}` : needs[0]}` } } as typeof schema : schema
}

function pascal (name: string): string {
  return name.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')
}

export const Click = action('click', {
  // Required in the SDK's types, yet OpenAI's own recipes read it with a default of left
  // (`getattr(action, "button", "left")`), and published GA examples omit it.
  button: Type.Optional(StringEnum(['left', 'right', 'wheel', 'back', 'forward'], {
    default: 'left',
    description: '`wheel` is the middle button; `back` and `forward` are the side buttons (X buttons 8 and 9). Left when absent.',
  })),
  x: Pixel('x', 'the click'),
  y: Pixel('y', 'the click'),
  keys: HeldKeys,
}, 'Clicks a button at a point.')

export const DoubleClick = action('double_click', {
  x: Pixel('x', 'the double click'),
  y: Pixel('y', 'the double click'),
  keys: HeldKeys,
}, 'Double-clicks the left button at a point.')

export const DragPoint = Type.Object({
  x: Pixel('x', 'the point'),
  y: Pixel('y', 'the point'),
}, { additionalProperties: false })

export const Drag = action('drag', {
  path: Type.Array(DragPoint, {
    minItems: 2,
    description: 'Presses the left button at the first point, moves through each point, releases at the last.',
    errorMessage: { minItems: 'path must have at least 2 points {x, y} for a drag' },
  }),
  keys: HeldKeys,
}, 'Drags with the left button.')

export const Keypress = action('keypress', {
  keys: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    description: 'Keys pressed together as one combo, e.g. ["CTRL", "C"]; released in reverse order.',
    errorMessage: { minItems: 'keypress needs at least one key' },
  }),
}, 'Presses a key or a combo.')

export const Move = action('move', {
  x: Pixel('x', 'the pointer'),
  y: Pixel('y', 'the pointer'),
  keys: HeldKeys,
}, 'Moves the pointer.')

export const Screenshot = action('screenshot', {}, 'Asks for the screen; every answer carries it.')

export const Scroll = action('scroll', {
  x: Pixel('x', 'the pointer while scrolling'),
  y: Pixel('y', 'the pointer while scrolling'),
  scroll_x: Type.Number({ description: 'Horizontal distance in pixels, + right.' }),
  scroll_y: Type.Number({ description: 'Vertical distance in pixels, + down.' }),
  keys: HeldKeys,
}, 'Turns the wheel at a point.')

export const TypeText = action('type', {
  text: Type.String({ description: 'Typed exactly as given.' }),
}, 'Types text where the focus is.')

export const Wait = action('wait', {}, 'Waits (the payload names no duration).')

export const ACTIONS = [Click, DoubleClick, Drag, Keypress, Move, Screenshot, Scroll, TypeText, Wait] as const

export type OpenaiAction = Static<(typeof ACTIONS)[number]>
export type OpenaiActionType = OpenaiAction['type']
export const ACTION_TYPES: readonly OpenaiActionType[] = ACTIONS.map((member) => member.properties.type.const)
