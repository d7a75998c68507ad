/**
 * The input of the adapters whose models answer in text (UI-TARS, pyautogui code, GLM-V): the
 * reply exactly as it came back, either as the body itself (`Content-Type: text/plain`, which
 * Fastify hands over as a string) or wrapped in JSON `{ "response": "…" }` for clients that only
 * speak JSON. Each coordinate convention reads the same text, so each version gets this shape
 * under its own `$id`.
 */
import { Type, type Static } from '@sinclair/typebox'

const MESSAGE = 'payload must be the model\'s text (Content-Type: text/plain) or a JSON object {"response": "<the model\'s text>"}'

export const modelText = (id: string, description: string) => Type.Union([
  Type.String({ description: "The model's reply, verbatim (Content-Type: text/plain)." }),
  Type.Object({
    response: Type.String({ description: "The model's reply, verbatim." }),
  }, { additionalProperties: false }),
], { $id: id, title: id, description, errorMessage: MESSAGE })

export type ModelText = Static<ReturnType<typeof modelText>>

/** The reply text, whichever way it was sent. */
export const replyText = (input: ModelText): string => typeof input === 'string' ? input : input.response
