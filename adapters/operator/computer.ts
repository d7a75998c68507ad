/**
 * The Operator desktop tool's arguments (CursorTouch/Operator-Use `computer`): one flat object
 * whose `action` says which fields matter, as the tool's pydantic model declares them. It takes
 * both generations of field names: the first tool's (x, y, caret, drag from → to, open, close,
 * app) and the current one's (loc, clicks, caret_position, press_enter, clear, axis,
 * wheel_times, move with drag, duration, desktop). Every field is optional here because a model
 * may send the whole model with its defaults; which fields an action needs is checked when it
 * is translated, with the tool's own words.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'

// A union of literals for `action`, so a wrong one reads `action must be one of …`; plain
// enums elsewhere, which the formatter words the same way for any field.
const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(values.map((value) => Type.Literal(value)), { description }) as unknown as TSchema & { static: T }
const choice = <T extends string[]>(values: [...T], description: string) => StringEnum(values, { description })

const Pair = (field: string, description: string, minimum?: number) => Type.Array(
  Type.Integer(minimum === undefined ? {} : { minimum }),
  {
    minItems: 2,
    maxItems: 2,
    description,
    errorMessage: `${field} must be a list of exactly 2 ${minimum ? 'positive integers' : 'integers'} ${field.includes('size') ? '[width, height]' : '[x, y]'}`,
  },
)

export const OPERATOR_ACTIONS = ['click', 'type', 'scroll', 'move', 'drag', 'shortcut', 'wait', 'open', 'close', 'app', 'desktop'] as const
export type OperatorActionName = typeof OPERATOR_ACTIONS[number]

const Caret = choice(['start', 'idle', 'end'], 'Where the caret goes before typing: start (ctrl+home) or end (ctrl+end) of the focused field, or idle (where it is).')

const Integer = (field: string, description: string, minimum: number, maximum: number) => Type.Integer({
  minimum,
  maximum,
  description,
  errorMessage: `${field} must be an integer from ${minimum} to ${maximum}`,
})

export const OperatorComputerInput = Type.Object({
  action: literals(OPERATOR_ACTIONS, 'The computer action.'),
  // Where: the first tool's x and y, or the current tool's loc.
  x: Type.Optional(Type.Integer({ description: 'Screen x (the first tool\'s click, type, scroll, move, drag).', errorMessage: 'x must be an integer' })),
  y: Type.Optional(Type.Integer({ description: 'Screen y.', errorMessage: 'y must be an integer' })),
  loc: Type.Optional(Pair('loc', '[x, y] on the screen; for app, the window\'s new top-left corner.')),
  // click
  button: Type.Optional(choice(['left', 'right', 'middle'], 'Mouse button (click); default left.')),
  clicks: Type.Optional(Integer('clicks', '0 hovers, 1 clicks, 2 double-clicks, 3 triple-clicks (click); default 1.', 0, 3)),
  // type
  text: Type.Optional(Type.String({ description: 'Text to type (type).' })),
  caret: Type.Optional(Caret),
  caret_position: Type.Optional(Caret),
  clear: Type.Optional(Type.Boolean({ description: 'Select all and delete before typing (type).' })),
  press_enter: Type.Optional(Type.Boolean({ description: 'Press Enter after typing (type).' })),
  // scroll
  axis: Type.Optional(choice(['vertical', 'horizontal'], 'Scroll axis; default: the direction\'s.')),
  direction: Type.Optional(choice(['up', 'down', 'left', 'right'], 'Scroll direction; default down.')),
  wheel_times: Type.Optional(Integer('wheel_times', 'Wheel notches (scroll); default 1.', 1, 100)),
  // move and drag
  drag: Type.Optional(Type.Boolean({ description: 'move: hold the left button from where the pointer is to loc.' })),
  from_loc: Type.Optional(Pair('from_loc', 'drag: the start [x, y]; default where the pointer is.')),
  to_loc: Type.Optional(Pair('to_loc', 'drag: the end [x, y] (or loc, or x and y).')),
  // shortcut
  shortcut: Type.Optional(Type.String({
    minLength: 1,
    description: 'Keys joined by "+", pressed together: "ctrl+c", "alt+tab", "win", "enter".',
    errorMessage: "shortcut must be keys joined by '+', such as 'ctrl+c'",
  })),
  // wait
  duration: Type.Optional(Type.Number({
    minimum: 0,
    description: 'Seconds to wait (wait).',
    errorMessage: 'duration must be a number of seconds, 0 or more',
  })),
  // app
  mode: Type.Optional(choice(['launch', 'switch', 'resize', 'move'], 'app: launch an allowed application, switch to a window, resize or move it; default launch.')),
  name: Type.Optional(Type.String({ minLength: 1, description: 'app: the application (launch: its name on the server\'s allow-list) or a part of the window\'s title (switch, resize, move).', errorMessage: 'name must be a non-empty string' })),
  size: Type.Optional(Pair('size', 'app resize: [width, height] of the window.', 1)),
  window_loc: Type.Optional(Pair('window_loc', 'app: loc as Windows-MCP\'s App tool names it.')),
  window_size: Type.Optional(Pair('window_size', 'app: size as Windows-MCP\'s App tool names it.', 1)),
  // desktop (refused: one X display has one desktop)
  desktop_action: Type.Optional(choice(['create', 'remove', 'rename', 'switch'], 'Virtual desktop operation (desktop).')),
  desktop_name: Type.Optional(Type.String({ description: 'Virtual desktop name (desktop).' })),
  new_name: Type.Optional(Type.String({ description: 'New virtual desktop name (desktop rename).' })),
}, {
  $id: 'OperatorComputerInput',
  title: 'OperatorComputerInput',
  additionalProperties: false,
  description: 'The Operator computer tool\'s arguments.',
})
export type OperatorInput = Static<typeof OperatorComputerInput>
