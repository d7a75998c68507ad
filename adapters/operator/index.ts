/** The Operator desktop tool (CursorTouch/Operator-Use `computer`). */
import type { Adapter } from '../../src/pipeline/adapter.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { coerceParams } from './coerce.ts'
import { OperatorComputerInput, type OperatorInput } from './computer.ts'
import { OperatorToolResult } from './result.ts'
import { toNativeResult } from './to-native-result.ts'
import { toUnified, type OperatorMeta } from './to-unified.ts'

export const operatorAdapter: Adapter<OperatorInput, OperatorMeta, ActionQuery> = {
  name: 'operator',
  description: "The Operator desktop tool's arguments (click, type with caret, scroll, move, drag, shortcut, wait, open, close, app; desktop is refused), in the first tool's field names (x, y, caret) and the current one's (loc, clicks, caret_position, press_enter, clear, axis, wheel_times, drag, duration), string-typed values coerced as its pydantic model does. app launches an allowed application, switches to a window by title, resizes or moves it. Answered with Operator's ToolResult {success, output, error, metadata}.",
  coordinates: 'screen pixels of the display (display_width_px/display_height_px, else the screen)',
  versions: [{
    name: 'computer',
    description: 'CursorTouch/Operator-Use computer tool, both generations of its fields.',
    schema: OperatorComputerInput,
  }],
  prepare: coerceParams,
  // Operator re-reads the desktop state itself before each call: no screenshot unless asked.
  translate: (input, context) => toUnified(input, context.query.screenshot === true),
  result: (outcome, _context, translation) => toNativeResult(outcome, translation),
  resultSchema: OperatorToolResult,
}
