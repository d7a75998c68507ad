/**
 * What the tool answers: Operator-Use's ToolResult {success, output, error, metadata}
 * (operator_use/tools/service.py), which `success_result(output)` and `error_result(error)`
 * build. The tool returns words only — Operator shows the model the screen in the desktop
 * state it injects before each call — so the screenshot, when asked for, rides in metadata.
 */
import { Type, type Static } from '@sinclair/typebox'
import { WindowInfo } from '../../src/actions/index.ts'
import { ErrorBody } from '../../src/schemas/error-body.ts'

export const OperatorToolResult = Type.Object({
  success: Type.Boolean(),
  output: Type.Union([Type.String(), Type.Null()], {
    description: 'The tool\'s words for what was done ("Single left clicked at (640,360).", "Launched xterm: window …"); null when it failed.',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed; null when it succeeded.' }),
  metadata: Type.Object({
    cursor: Type.Union([Type.Tuple([Type.Integer(), Type.Integer()]), Type.Null()], {
      description: 'The pointer after the call, in screen pixels of the display; null when nothing ran.',
    }),
    screenshot: Type.Union([Type.String(), Type.Null()], {
      description: 'Base64 PNG at the display size, only with ?screenshot=true (or after a failure part-way, the screen then).',
    }),
    window: Type.Union([Type.Ref(WindowInfo), Type.Null()], { description: 'app: the window launched, switched to, resized or moved.' }),
    error: Type.Union([Type.Object(ErrorBody.properties), Type.Null()], { description: 'The failure as the usual error body (code, status).' }),
  }),
}, { $id: 'OperatorToolResult', title: 'OperatorToolResult' })
export type OperatorToolResult = Static<typeof OperatorToolResult>
