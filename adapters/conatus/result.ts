/**
 * What a Conatus tool call answers: a tool response tied to the call by `call_id`, with words
 * for the model, the screenshot, and where the pointer is.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ErrorBody } from '../../src/schemas/error-body.ts'

export const ConatusToolResult = Type.Object({
  call_id: Type.Union([Type.String(), Type.Null()], { description: 'The AIToolCall\'s (or action\'s) call_id, echoed; null when none was sent.' }),
  name: Type.String({ description: 'The CUAction type that ran, e.g. "left_mouse_click".' }),
  success: Type.Boolean({ description: 'False when the action was refused or failed; `error` says why.' }),
  content: Type.String({ description: 'What was done, in words (one line per step), or the error message.' }),
  screenshot: Type.Union([Type.String(), Type.Null()], {
    description: 'Base64 PNG at the display size: taken after the action (unless ?screenshot=false), or by a screenshot action.',
  }),
  cursor_xy: Type.Union([Type.Tuple([Type.Integer(), Type.Integer()]), Type.Null()], {
    description: 'The pointer after the action, in the display space; null when nothing ran.',
  }),
  error: Type.Union([Type.Object(ErrorBody.properties), Type.Null()]),
}, { $id: 'ConatusToolResult', title: 'ConatusToolResult' })
export type ConatusToolResult = Static<typeof ConatusToolResult>
