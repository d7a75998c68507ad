/**
 * What the route answers. UI-TARS has no tool-result format of its own: its agents send the
 * next screenshot as the next user turn. So the answer is that screenshot with what the reply
 * was read as (thought, reflection, summary, each call and the unified actions it became,
 * whether it ran), the model's end state `finished` (which runs nothing) and `call_user`, which
 * waits for a person (request_human) and carries their answer in `human`.
 */
import { Type, type Static } from '@sinclair/typebox'
import { callOutcomeFields, screenAfterFields } from '../shared/call-results.ts'
import { HumanAnswerSchema } from '../../src/control/schema.ts'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

export const UitarsCallResult = Type.Object({
  name: Type.String({ description: 'The action as written, e.g. click, type, hotkey, finished.' }),
  args: Type.Record(Type.String(), Type.String(), { description: 'Its keyword arguments, escapes resolved; point=/start_point=/end_point= read as start_box/end_box.' }),
  text: Type.String({ description: 'The call as it appears in the reply.' }),
  ...callOutcomeFields('finished'),
})
export type UitarsCallResult = Static<typeof UitarsCallResult>

export const UitarsResult = Type.Object({
  thought: Nullable(Type.String({ description: 'After Thought: (or the unlabelled reasoning before Action:).' })),
  reflection: Nullable(Type.String({ description: 'After Reflection:.' })),
  action_summary: Nullable(Type.String({ description: 'After Action_Summary:.' })),
  calls: Type.Array(UitarsCallResult, { description: 'Every call of the reply, in order.' }),
  finished: Nullable(Type.String({ description: "finished(content=…)'s content ('' without one): the task is over. Null when the reply did not finish." })),
  call_user: Nullable(Type.String({ description: "call_user()'s content ('' without one): the model needs the user, and the call waited for a person (request_human). Null otherwise." })),
  human: Type.Union([Type.Ref(HumanAnswerSchema), Type.Null()], { description: 'call_user() only: what the person said on handing the desktop back, who, how long; or that nobody came in time.' }),
  ...screenAfterFields('0–1000, or the smart-resized image'),
}, { $id: 'UitarsResult', title: 'UitarsResult' })
export type UitarsResult = Static<typeof UitarsResult>
