/** The seed's four mouse actions, as TypeBox schemas built from the configured limits. */
import { Type } from '@sinclair/typebox'
import { limitMessages, type Limits } from './limits.ts'
import {
  Coordinates, HoldKeys, MouseButton, PATH_LENGTH_MESSAGE, PATH_POINT_MESSAGE, ScreenshotFlag,
  StringEnum,
} from './common.ts'

export const moveMouseSchema = (limits: Limits) => Type.Object({
  action: Type.Literal('move_mouse'),
  coordinates: Coordinates('Where to move the pointer.'),
  hold_keys: Type.Optional(HoldKeys(limits)),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'MoveMouseAction', description: 'Moves the pointer.' })

export const clickMouseSchema = (limits: Limits) => Type.Object({
  action: Type.Literal('click_mouse'),
  button: MouseButton,
  click_type: Type.Optional(StringEnum(['down', 'up', 'click'], {
    default: 'click',
    description: "'down' or 'up' presses or releases only; 'click' does both.",
    errorMessage: "click_type must be one of 'down', 'up', 'click'",
  })),
  coordinates: Type.Optional(Coordinates('Where to click; none clicks where the pointer is.')),
  num_clicks: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: limits.maxClicks,
    default: 1,
    description: 'n > 1 is one n-click (2 fires dblclick); only with click_type click.',
    errorMessage: limitMessages(limits).clicks,
  })),
  hold_keys: Type.Optional(HoldKeys(limits)),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'ClickMouseAction', description: 'Clicks, presses or releases a mouse button.' })

export const dragMouseSchema = (limits: Limits) => Type.Object({
  action: Type.Literal('drag_mouse'),
  path: Type.Array(Coordinates('A point [x, y].', PATH_POINT_MESSAGE), {
    minItems: 2,
    maxItems: limits.maxPathPoints,
    description: 'Presses left at the first point, moves through every point, releases at the last.',
    errorMessage: {
      minItems: PATH_LENGTH_MESSAGE,
      maxItems: limitMessages(limits).path,
      type: PATH_LENGTH_MESSAGE,
    },
  }),
  hold_keys: Type.Optional(HoldKeys(limits)),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'DragMouseAction', description: 'Drags with the left button held.' })

const WheelDelta = (limits: Limits, field: 'delta_x' | 'delta_y', direction: string) => {
  // ajv-errors puts the value sent where `${0}` stands.
  const over = limitMessages(limits).scroll(field, '${0}')
  return Type.Number({
    default: 0,
    // ±max is exactly what rounds to at most max notches: 100.2 would turn 101.
    minimum: -limits.maxScrollNotches,
    maximum: limits.maxScrollNotches,
    description: `Wheel notches, ${direction}; a fraction rounds away from zero to at least one notch.`,
    errorMessage: { minimum: over, maximum: over, type: `${field} must be a number of wheel notches` },
  })
}

export const scrollSchema = (limits: Limits) => Type.Object({
  action: Type.Literal('scroll'),
  coordinates: Type.Optional(Coordinates('Where to move the pointer before scrolling.')),
  delta_x: Type.Optional(WheelDelta(limits, 'delta_x', 'right (+) / left (-)')),
  delta_y: Type.Optional(WheelDelta(limits, 'delta_y', 'down (+) / up (-)')),
  hold_keys: Type.Optional(HoldKeys(limits)),
  screenshot: Type.Optional(ScreenshotFlag),
}, { additionalProperties: false, title: 'ScrollAction', description: 'Turns the mouse wheel.' })
