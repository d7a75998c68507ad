/**
 * What the route answers. pyautogui agents have no tool-result format: their loop sends the
 * next screenshot as the next user turn. So the answer is that screenshot with each call as
 * read, the unified actions it became and whether it ran, and the model's own end states:
 * `terminate` (computer.terminate, DONE, FAIL) and `wait` (WAIT, computer.wait()), which run
 * nothing.
 */
import { Type, type Static } from '@sinclair/typebox'
import { callOutcomeFields, screenAfterFields } from '../shared/call-results.ts'

export const PyautoguiCallResult = Type.Object({
  name: Type.String({ description: 'The function called, e.g. pyautogui.click, computer.terminate, DONE.' }),
  args: Type.Record(Type.String(), Type.Unknown(), { description: "Its arguments by parameter name, positional ones bound in pyautogui's order; hotkey's keys under keys." }),
  text: Type.String({ description: 'The call as written.' }),
  line: Type.Integer({ description: 'Its line in the code (1-based; code blocks joined in order).' }),
  ...callOutcomeFields('terminate/DONE/FAIL/WAIT'),
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
  ...screenAfterFields('display pixels, or the smart-resized image; pixels of the display for relative'),
}, { $id: 'PyautoguiResult', title: 'PyautoguiResult' })
export type PyautoguiResult = Static<typeof PyautoguiResult>
