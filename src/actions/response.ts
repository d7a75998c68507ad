/**
 * What every action answers: the seed system's response shape, plus the cursor (and windows,
 * trees and elements, for the window and accessibility actions).
 */
import { Type, type Static } from '@sinclair/typebox'
import { CupEnvelope } from '../accessibility/schema.ts'
import { ElementOutcome } from './accessibility.ts'
import { WindowInfo } from './window.ts'
import { ClipboardContentSchema } from './clipboard.ts'
import { CommandResultSchema } from './tools.ts'
import { HumanAnswerSchema } from '../control/schema.ts'

export const ActionResponse = Type.Object({
  output: Type.Union([Type.String(), Type.Null()], { description: 'What was done, in words.' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Always null on 200; errors answer 4xx/5xx.' }),
  base64_image: Type.Union([Type.String(), Type.Null()], {
    description: 'A PNG (base64, no data: prefix) for take_screenshot, or after any action asked with screenshot=true.',
  }),
  cursor_position: Type.Union([Type.Tuple([Type.Integer(), Type.Integer()]), Type.Null()], {
    description: "The pointer after the action, in the request's coordinate space.",
  }),
  windows: Type.Optional(Type.Array(Type.Ref(WindowInfo), {
    description: 'list_windows only: the top-level windows, highest in the stacking order first.',
  })),
  window: Type.Optional(Type.Ref(WindowInfo, {
    description: 'focus_window, launch_app and set_window_geometry only: the window after the action.',
  })),
  accessibility: Type.Optional(Type.Ref(CupEnvelope, {
    description: 'get_accessibility_tree with format json only: the CUP snapshot.',
  })),
  text: Type.Optional(Type.String({ description: "get_accessibility_tree with format compact only: CUP's compact encoding of the snapshot." })),
  truncated: Type.Optional(Type.Boolean({ description: 'get_accessibility_tree only: true when max_depth or max_nodes cut the walk short.' })),
  element: Type.Optional(Type.Ref(ElementOutcome, { description: 'element_action only: the element and how it was acted on.' })),
  clipboard: Type.Optional(Type.Ref(ClipboardContentSchema, { description: 'get_clipboard only: what the selection holds.' })),
  command_result: Type.Optional(Type.Ref(CommandResultSchema, { description: 'run_command and bash only: the exit code and what the command wrote.' })),
  human: Type.Optional(Type.Ref(HumanAnswerSchema, { description: 'request_human only: whether a person took over and handed back, what they said, who, how long.' })),
}, { $id: 'ActionResponse', title: 'ActionResponse' })
export type ActionResponse = Static<typeof ActionResponse>
export type ElementOutcome = Static<typeof ElementOutcome>

export const BatchResponse = Type.Object({
  results: Type.Array(Type.Ref(ActionResponse), { description: 'One response per action, in order.' }),
  failed_index: Type.Null({ description: 'null: every action ran.' }),
}, { $id: 'BatchResponse', title: 'BatchResponse' })
export type BatchResponse = Static<typeof BatchResponse>
