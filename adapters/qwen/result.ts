/**
 * What the route answers: the calls run, what the model reported (terminate, answer), the
 * pointer and the screen after them. Qwen's cookbooks define no tool-result shape (their
 * agents send the next screenshot as a new user turn), so this carries what that turn needs.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ErrorBody } from '../../src/schemas/error-body.ts'

export const QwenCallResult = Type.Object({
  action: Type.String({ description: 'The call\'s action.' }),
  status: Type.Union([Type.Literal('done'), Type.Literal('failed'), Type.Literal('not_run'), Type.Literal('reported')], {
    description: 'done; failed (see error); not_run (an earlier call failed, or the batch was refused); reported (terminate, answer and pause_and_memorize_fact run nothing).',
  }),
})

export const QwenResult = Type.Object({
  calls: Type.Array(QwenCallResult, { description: 'One entry per tool call, in order.' }),
  terminate: Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Null()], {
    description: "terminate's status (\"success\" for answer): the model ended its task. Null when it did not.",
  }),
  answer: Type.Union([Type.String(), Type.Null()], { description: "Qwen3-VL's answer text, when it gave one." }),
  facts: Type.Optional(Type.Array(Type.String(), { description: "Fara-7B's pause_and_memorize_fact notes, in order; absent when there were none." })),
  cursor: Type.Union([Type.Tuple([Type.Integer(), Type.Integer()]), Type.Null()], {
    description: 'The pointer after the calls, in the model\'s coordinates; null when nothing ran.',
  }),
  screenshot: Type.Union([Type.String(), Type.Null()], {
    description: 'Base64 PNG after the calls, at the display size (the model\'s processor resizes it); null when nothing ran or screenshot=false.',
  }),
  coordinate_space: Type.Object({
    width: Type.Integer(),
    height: Type.Integer(),
  }, { description: 'The space the coordinates are in: the smart-resized screenshot (2.5, fara), which the tool description\'s "screen\'s resolution" should state, or the 1000x1000 grid (3, 3.5, kimi).' }),
  error: Type.Union([Type.Object(ErrorBody.properties), Type.Null()], { description: 'Why the calls stopped, as the usual error body.' }),
}, { $id: 'QwenResult', title: 'QwenResult' })
export type QwenResult = Static<typeof QwenResult>
