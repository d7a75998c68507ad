/**
 * What the route answers. pyautogui agents have no tool-result format: their loop sends the
 * next screenshot as the next user turn. So the answer is that screenshot with each call as
 * read, the unified actions it became and whether it ran, and the model's own end states:
 * `terminate` (computer.terminate, DONE, FAIL) and `wait` (WAIT, computer.wait()), which run
 * nothing.
 */
import { Type, type Static } from '@sinclair/typebox'

export const PyautoguiCallResult = Type.Object({
  name: Type.String({ description: 'The function called, e.g. pyautogui.click, computer.terminate, DONE.' }),
  args: Type.Record(Type.String(), Type.Unknown(), { description: "Its arguments by parameter name, positional ones bound in pyautogui's order; hotkey's keys under keys." }),
  text: Type.String({ description: 'The call as written.' }),
  line: Type.Integer({ description: 'Its line in the code (1-based; code blocks joined in order).' }),
  // Not a $ref to UnifiedAction: a call refused for a limit is answered with what it became.
  actions: Type.Array(Type.Object({ action: Type.String() }, { additionalProperties: true, description: 'A unified action (see UnifiedAction).' }), {
    description: "The unified actions it became, coordinates in the convention's space.",
  }),
  status: Type.Union([Type.Literal('done'), Type.Literal('failed'), Type.Literal('not_run'), Type.Literal('reported')], {
    description: 'done: ran; failed: its action failed; not_run: refused, or after a failure; reported: terminate/DONE/FAIL/WAIT, which run nothing.',
  }),
  returned: Type.Optional(Type.String({ description: "pyperclip.paste() that ran: the clipboard's text ('' when it holds none)." })),
})
export type PyautoguiCallResult = Static<typeof PyautoguiCallResult>

export const PyautoguiResult = Type.Object({
  calls: Type.Array(PyautoguiCallResult, { description: 'Every call of the code, in order.' }),
  terminate: Type.Union([Type.Object({
    status: Type.String({ description: "'success' (computer.terminate(status='success'), DONE) or 'failure' (FAIL)." }),
    answer: Type.Union([Type.String(), Type.Null()], { description: "computer.terminate's answer, null without one." }),
  }), Type.Null()], { description: 'The model ended the task; null when it did not.' }),
  wait: Type.Boolean({ description: 'WAIT or computer.wait(): the model asks its loop to wait and look again.' }),
  cursor: Type.Union([Type.Tuple([Type.Integer(), Type.Integer()]), Type.Null()], {
    description: "The pointer after the last action, in the convention's space (display pixels, or the smart-resized image; pixels of the display for relative); null when nothing ran.",
  }),
  screenshot: Type.Union([Type.String(), Type.Null()], { description: "Base64 PNG of the screen after the last action, at the display size: the next user turn's image. Null when nothing ran or screenshot=false." }),
  error: Type.Union([Type.Ref('ErrorBody'), Type.Null()], { description: 'Why the calls stopped; the HTTP status is its statusCode.' }),
}, { $id: 'PyautoguiResult', title: 'PyautoguiResult' })
export type PyautoguiResult = Static<typeof PyautoguiResult>
