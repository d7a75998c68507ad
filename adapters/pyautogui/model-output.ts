/**
 * What the route takes: the model's reply as it came back — the whole reply with its
 * ```python block (OpenCUA's `## Thought / ## Action / ## Code`), or the bare code — either as
 * the body itself (`Content-Type: text/plain`) or wrapped in JSON `{ "response": "…" }`. Every
 * coordinate convention reads the same text, so each gets the same shape under its own `$id`.
 */
import { Type, type Static } from '@sinclair/typebox'

const MESSAGE = 'payload must be the model\'s text (Content-Type: text/plain) or a JSON object {"response": "<the model\'s text>"}'

const modelOutput = (id: string, description: string) => Type.Union([
  Type.String({ description: "The model's reply, verbatim (Content-Type: text/plain)." }),
  Type.Object({
    response: Type.String({ description: "The model's reply, verbatim." }),
  }, { additionalProperties: false }),
], { $id: id, title: id, description, errorMessage: MESSAGE })

export const PyautoguiAbsoluteInput = modelOutput('PyautoguiAbsoluteInput',
  'pyautogui code (in a ```python block or bare) whose x/y are pixels of the display, as the OSWorld baselines write them.')
export const PyautoguiSmartResizeInput = modelOutput('PyautoguiSmartResizeInput',
  "pyautogui code whose x/y are pixels of the display after Qwen2.5-VL's smart_resize, as OpenCUA writes them.")
export const PyautoguiRelativeInput = modelOutput('PyautoguiRelativeInput',
  'pyautogui code whose x/y are fractions of the display, 0–1 on each axis.')

export type PyautoguiInput = Static<typeof PyautoguiAbsoluteInput>

export const replyText = (input: PyautoguiInput): string => typeof input === 'string' ? input : input.response
