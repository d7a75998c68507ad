/**
 * What the route takes: GLM-V's reply exactly as it came back (its explanation, the action,
 * often inside <|begin_of_box|>…<|end_of_box|>, and `Memory:`), either as the body itself
 * (`Content-Type: text/plain`) or wrapped in JSON `{ "response": "…" }`.
 */
import { Type, type Static } from '@sinclair/typebox'

export const GlmInput = Type.Union([
  Type.String({ description: "The model's reply, verbatim (Content-Type: text/plain)." }),
  Type.Object({
    response: Type.String({ description: "The model's reply, verbatim." }),
  }, { additionalProperties: false }),
], {
  $id: 'GlmPcInput',
  title: 'GlmPcInput',
  description: "A GLM-4.5V/4.6V reply in the PC action space: an explanation, one call such as left_click(start_box='[586, 446]', element_info='OK button') (points 0–999), then Memory:.",
  errorMessage: 'payload must be the model\'s text (Content-Type: text/plain) or a JSON object {"response": "<the model\'s text>"}',
})
export type GlmInput = Static<typeof GlmInput>

export const replyText = (input: GlmInput): string => typeof input === 'string' ? input : input.response
