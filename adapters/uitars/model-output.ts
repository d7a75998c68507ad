/**
 * What the route takes: the model's reply exactly as it came back, either as the body itself
 * (`Content-Type: text/plain`, which Fastify hands over as a string) or wrapped in JSON
 * `{ "response": "…" }` for clients that only speak JSON. Both coordinate conventions read the
 * same text, so each version gets the same shape under its own `$id`.
 */
import { Type, type Static } from '@sinclair/typebox'

const MESSAGE = 'payload must be the model\'s text (Content-Type: text/plain) or a JSON object {"response": "<the model\'s text>"}'

const modelOutput = (id: string, description: string) => Type.Union([
  Type.String({ description: "The model's reply, verbatim (Content-Type: text/plain)." }),
  Type.Object({
    response: Type.String({ description: "The model's reply, verbatim." }),
  }, { additionalProperties: false }),
], { $id: id, title: id, description, errorMessage: MESSAGE })

export const UitarsRelativeInput = modelOutput('UitarsRelativeInput',
  "A UI-TARS reply (Thought:/Reflection:/Action_Summary: and an Action: with one or more calls) whose points are relative, 0–1000 on each axis.")
export const UitarsAbsoluteInput = modelOutput('UitarsAbsoluteInput',
  'A UI-TARS reply whose points are pixels of the smart-resized screenshot the model saw.')

export type UitarsInput = Static<typeof UitarsRelativeInput>

/** The reply text, whichever way it was sent. */
export const replyText = (input: UitarsInput): string => typeof input === 'string' ? input : input.response
