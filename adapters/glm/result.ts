/**
 * What the route answers. GLM-V has no tool-result format: its loop writes the action into the
 * next prompt's history with the model's `Memory:` and sends the next screenshot. So the answer
 * is that screenshot with the reply as read — reasoning, explanation, the call and its
 * element_info, the memory to send back — the unified actions the call became and whether they
 * ran, and `finished` for DONE()/FAIL(), which run nothing.
 */
import { Type, type Static } from '@sinclair/typebox'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

export const GlmResult = Type.Object({
  reasoning: Nullable(Type.String({ description: 'The <think>…</think> reasoning, when the reply has one.' })),
  thought: Nullable(Type.String({ description: 'The explanation before the action, box markers removed.' })),
  call: Type.Object({
    name: Type.String({ description: 'The action, e.g. left_click, key, DONE.' }),
    args: Type.Record(Type.String(), Type.Unknown(), { description: 'Its arguments as written.' }),
    text: Type.String({ description: 'The call as written.' }),
  }),
  element_info: Nullable(Type.String({ description: "The call's element_info: the model's words for what it acts on." })),
  memory: Nullable(Type.String({ description: 'Everything after Memory: (a JSON list, as written), for the next prompt; null when the reply has none.' })),
  actions: Type.Array(Type.Object({ action: Type.String() }, { additionalProperties: true, description: 'A unified action (see UnifiedAction).' }), {
    description: 'The unified actions the call became, points on the 0–999 grid.',
  }),
  status: Type.Union([Type.Literal('done'), Type.Literal('failed'), Type.Literal('not_run'), Type.Literal('reported')], {
    description: 'done: ran; failed: an action failed; not_run: refused; reported: DONE()/FAIL(), which run nothing.',
  }),
  finished: Type.Union([Type.Literal('DONE'), Type.Literal('FAIL'), Type.Null()], { description: 'DONE(): the task is complete; FAIL(): it cannot be done; null otherwise.' }),
  cursor: Type.Union([Type.Tuple([Type.Integer(), Type.Integer()]), Type.Null()], { description: 'The pointer after the last action, on the 0–999 grid; null when nothing ran.' }),
  screenshot: Nullable(Type.String({ description: "Base64 PNG of the screen after the action, at the display size: the next prompt's image. Null when nothing ran or screenshot=false." })),
  error: Type.Union([Type.Ref('ErrorBody'), Type.Null()], { description: 'Why the action stopped; the HTTP status is its statusCode.' }),
}, { $id: 'GlmResult', title: 'GlmResult' })
export type GlmResult = Static<typeof GlmResult>
