/**
 * What the route answers. UI-TARS has no tool-result format of its own: its agents send the
 * next screenshot as the next user turn. So the answer is that screenshot with what the reply
 * was read as (thought, reflection, summary, each call and the unified actions it became,
 * whether it ran) and the model's own end states, `finished` and `call_user`, which run nothing.
 */
import { Type, type Static } from '@sinclair/typebox'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

export const UitarsCallResult = Type.Object({
  name: Type.String({ description: 'The action as written, e.g. click, type, hotkey, finished.' }),
  args: Type.Record(Type.String(), Type.String(), { description: 'Its keyword arguments, escapes resolved; point=/start_point=/end_point= read as start_box/end_box.' }),
  text: Type.String({ description: 'The call as it appears in the reply.' }),
  // Not a $ref to UnifiedAction: a call refused for being over a limit (eleven keys, a text
  // too long) is answered with what it became, which that schema, bounds included, refuses.
  actions: Type.Array(Type.Object({ action: Type.String() }, { additionalProperties: true, description: 'A unified action (see UnifiedAction).' }), {
    description: 'The unified actions it became, coordinates in the convention\'s space.',
  }),
  status: Type.Union([Type.Literal('done'), Type.Literal('failed'), Type.Literal('not_run'), Type.Literal('reported')], {
    description: 'done: ran; failed: its action failed; not_run: refused, or after a failure; reported: finished/call_user, which run nothing.',
  }),
})
export type UitarsCallResult = Static<typeof UitarsCallResult>

export const UitarsResult = Type.Object({
  thought: Nullable(Type.String({ description: 'After Thought: (or the unlabelled reasoning before Action:).' })),
  reflection: Nullable(Type.String({ description: 'After Reflection:.' })),
  action_summary: Nullable(Type.String({ description: 'After Action_Summary:.' })),
  calls: Type.Array(UitarsCallResult, { description: 'Every call of the reply, in order.' }),
  finished: Nullable(Type.String({ description: "finished(content=…)'s content ('' without one): the task is over. Null when the reply did not finish." })),
  call_user: Nullable(Type.String({ description: "call_user()'s content ('' without one): the model needs the user. Null otherwise." })),
  cursor: Type.Union([Type.Tuple([Type.Integer(), Type.Integer()]), Type.Null()], {
    description: "The pointer after the last action, in the convention's space (0–1000, or the smart-resized image); null when nothing ran.",
  }),
  screenshot: Nullable(Type.String({ description: 'Base64 PNG of the screen after the last action, at the display size: the next user turn\'s image. Null when nothing ran or screenshot=false.' })),
  error: Type.Union([Type.Ref('ErrorBody'), Type.Null()], { description: 'Why the calls stopped; the HTTP status is its statusCode.' }),
}, { $id: 'UitarsResult', title: 'UitarsResult' })
export type UitarsResult = Static<typeof UitarsResult>
