/**
 * The fields of the `computer` tool's input, with Anthropic's own descriptions (the tool's
 * input_schema as the SDK and vercel/ai copy it). Every version draws its fields from here;
 * which action takes which field is each version's action table.
 */
import { Type } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'

const Point = (name: string, description: string) => Type.Array(Type.Integer(), {
  minItems: 2,
  maxItems: 2,
  description,
  errorMessage: `${name} must be a list of exactly 2 integers [x, y]`,
})

export const FIELDS = {
  coordinate: Point('coordinate', '(x, y): x pixels from the left edge and y pixels from the top edge of the display.'),
  start_coordinate: Point('start_coordinate', '(x, y) where left_click_drag presses the button.'),
  text: Type.String({
    minLength: 1,
    description: 'The text to type (type), the xdotool key combo(s) to press (key) or hold (hold_key), or keys held down during a click, drag or scroll (e.g. "shift", "ctrl+shift").',
    // The string form: ajv-errors' per-keyword form, in the second branch of the body's anyOf,
    // rejects valid text once the first branch has failed (singleError mode).
    errorMessage: 'text must be a non-empty string',
  }),
  scroll_direction: StringEnum(['up', 'down', 'left', 'right'], { description: 'Which way to scroll.' }),
  scroll_amount: Type.Integer({ minimum: 1, description: "The number of 'clicks' (wheel notches) to scroll." }),
  // The reference tool's own bound ("…is too long"); the server's --max-wait and --max-key-hold
  // hold on what hold_key and wait translate to.
  duration: Type.Number({
    exclusiveMinimum: 0,
    maximum: 100,
    description: 'Seconds, for hold_key and wait.',
    errorMessage: 'duration must be a number of seconds, more than 0 and at most 100',
  }),
  region: Type.Array(Type.Integer({ minimum: 0 }), {
    minItems: 4,
    maxItems: 4,
    description: 'zoom: [x0, y0, x1, y1], the top-left corner and the bottom-right corner (exclusive) of the region to view.',
    errorMessage: 'region must be a list of 4 non-negative integers [x0, y0, x1, y1]',
  }),
} as const

export type Field = keyof typeof FIELDS
