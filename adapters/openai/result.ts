/**
 * What the adapter answers: the `computer_call_output` input item for the next request
 * (`ResponseInputItem.ComputerCallOutput` in the `openai` package), as OpenAI's computer use
 * guide builds it. No `current_url`: that is for browser environments, and a desktop has no
 * single page address. `error` is ours, not OpenAI's: it is present only on failure, when
 * the item also says `status: "incomplete"`; remove it before sending the item to the API.
 */
import { Type, type Static } from '@sinclair/typebox'

export const AcknowledgedSafetyCheck = Type.Object({
  id: Type.String(),
  code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
}, { title: 'OpenaiAcknowledgedSafetyCheck' })

export const OpenaiComputerCallOutput = Type.Object({
  type: Type.Literal('computer_call_output'),
  call_id: Type.Optional(Type.String({
    description: "The computer_call's call_id, when the body was the item or the query named it; otherwise absent, for the client to fill in.",
  })),
  output: Type.Object({
    type: Type.Literal('computer_screenshot'),
    image_url: Type.Optional(Type.String({
      description: 'data:image/png;base64,… of the screen after the call, at display_width_px x display_height_px. Absent when screenshot=false, or when the call failed before a screenshot was taken.',
    })),
    detail: Type.Optional(Type.Literal('original', {
      description: 'computer tool only, with the image: OpenAI\'s guide sends screenshots at full resolution for click accuracy.',
    })),
  }),
  acknowledged_safety_checks: Type.Optional(Type.Array(AcknowledgedSafetyCheck, {
    description: "The call's pending_safety_checks, once the query acknowledged them.",
  })),
  status: Type.Optional(Type.Literal('incomplete', { description: 'Only on failure: the call did not run to its end.' })),
  error: Type.Optional(Type.Object({
    code: Type.String({ description: 'The error code (ERR_…), as the unified routes would answer.' }),
    message: Type.String(),
    failed_action: Type.Optional(Type.Integer({
      minimum: 0,
      description: 'Index of the action that failed in the call (0 for a single action); absent when the call was refused before anything ran.',
    })),
  }, { description: 'Not part of OpenAI\'s item: why the call failed. Remove it before sending the item on.' })),
}, { $id: 'OpenaiComputerCallOutput', title: 'OpenaiComputerCallOutput' })
export type OpenaiComputerCallOutput = Static<typeof OpenaiComputerCallOutput>
