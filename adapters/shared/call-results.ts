/**
 * The answer of a dialect whose model writes calls as code (pyautogui, UI-TARS). Neither has a
 * tool-result format: their loops send the next screenshot as the next user turn. So each call
 * is answered as read, with the unified actions it became and whether it ran, beside the
 * pointer, that screenshot and the error; the model's end states run nothing and are `reported`.
 */
import { Type } from '@sinclair/typebox'
import { callStatus, type AdapterOutcome, type CallSpan, type Translation } from '../../src/pipeline/adapter.ts'

/**
 * What a call became and whether it ran. `reported` names the dialect's end states. Actions are
 * not a $ref to UnifiedAction: a call refused for being over a limit (eleven keys, a text too
 * long) is answered with what it became, which that schema, bounds included, refuses.
 */
export const callOutcomeFields = (reported: string) => ({
  actions: Type.Array(Type.Object({ action: Type.String() }, { additionalProperties: true, description: 'A unified action (see UnifiedAction).' }), {
    description: "The unified actions it became, coordinates in the convention's space.",
  }),
  status: Type.Union([Type.Literal('done'), Type.Literal('failed'), Type.Literal('not_run'), Type.Literal('reported')], {
    description: `done: ran; failed: its action failed; not_run: refused, or after a failure; reported: ${reported}, which run nothing.`,
  }),
})

/** The pointer (`space` says in what), the screen and the error after the calls. */
export const screenAfterFields = (space: string) => ({
  cursor: Type.Union([Type.Tuple([Type.Integer(), Type.Integer()]), Type.Null()], {
    description: `The pointer after the last action, in the convention's space (${space}); null when nothing ran.`,
  }),
  screenshot: Type.Union([Type.String(), Type.Null()], { description: "Base64 PNG of the screen after the last action, at the display size: the next user turn's image. Null when nothing ran or screenshot=false." }),
  error: Type.Union([Type.Ref('ErrorBody'), Type.Null()], { description: 'Why the calls stopped; the HTTP status is its statusCode.' }),
})

interface Call<Args> extends CallSpan { name: string, args: Args, text: string }
type CallAnswer<Args> = { name: string, args: Args, text: string, actions: Translation['actions'], status: 'done' | 'failed' | 'not_run' | 'reported' }

const STATUS = { ran: 'done', failed: 'failed', not_run: 'not_run', refused: 'not_run' } as const

/** A call as read, its actions and its status; a call named in `reported` ran nothing and is reported. */
export function callAnswer<Args> (call: Call<Args>, outcome: AdapterOutcome, translation: Translation<unknown>, reported: ReadonlySet<string>): CallAnswer<Args> {
  return {
    name: call.name,
    args: call.args,
    text: call.text,
    actions: translation.actions.slice(call.first, call.first + call.count),
    status: reported.has(call.name) ? 'reported' : STATUS[callStatus(call, outcome)],
  }
}

/** The pointer, the screen and the error of an outcome, as `screenAfterFields` describes them. */
export const screenAfter = ({ cursor, screenshot, error }: AdapterOutcome) => ({ cursor, screenshot, error })
