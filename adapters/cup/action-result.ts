/**
 * What CUP answers: the SDKs' `ActionResult` {success, message, error} — one for one spec
 * (the JSON `execute_action` returns), a list for a batch (`batch_execute`), which stops at
 * the first failure, so only its last element can have failed.
 */
import { Type, type Static } from '@sinclair/typebox'

export const CupActionResult = Type.Object({
  success: Type.Boolean(),
  message: Type.String({
    description: 'What was done, in the SDK\'s words ("Pressed ctrl+s", "Waited 500ms", "Clicked …"), for an element followed by ' +
      'the element and how it was reached (`Clicked e14 (button "Save"): by its AT-SPI action "press"`); empty on failure.',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the action failed; null when it succeeded.' }),
}, { $id: 'CupActionResult', title: 'CupActionResult' })
export type CupActionResult = Static<typeof CupActionResult>

export const CupResult = Type.Union([
  Type.Ref(CupActionResult),
  Type.Array(Type.Ref(CupActionResult), {
    description: 'A batch: one result per action that ran, the last a failure when one failed. A batch refused before any input (an unknown key, an element id the last snapshot did not issue, the desktop unavailable) answers one failed result with the reason.',
  }),
], { $id: 'CupResult', title: 'CupResult' })
export type CupResult = CupActionResult | CupActionResult[]
