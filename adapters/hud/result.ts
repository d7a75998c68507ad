/**
 * What a step answers: the body of HUD's `POST /execute_step`, which `Environment.step` reads
 * as `TaskResult(observation, reward, terminated, info)` (hud/environment.py), so a HUD client
 * pointed at this server parses it unchanged.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ErrorBody } from '../../src/schemas/error-body.ts'

export const HudStepResult = Type.Object({
  observation: Type.Object({
    screenshot: Type.Union([Type.String(), Type.Null()], {
      description: 'Base64 PNG at the display size: taken after the step (unless ?screenshot=false), or the last `screenshot` fetch.',
    }),
    text: Type.Union([Type.String(), Type.Null()], {
      description: 'One line per `position` fetch ("cursor at (x, y)"), then the error message if the step failed; null when there is neither.',
    }),
  }),
  reward: Type.Number({ description: 'Always 0: the gateway runs no evaluator.' }),
  terminated: Type.Boolean({ description: 'True when the step carried a `response` action, the agent\'s final answer.' }),
  info: Type.Object({
    responses: Type.Array(Type.String(), { description: 'The text of every `response` action, in order: nothing is typed for them.' }),
    cursor: Type.Union([Type.Object({ x: Type.Integer(), y: Type.Integer() }), Type.Null()], {
      description: 'The pointer after the step, in the display space; null when nothing ran.',
    }),
    failed_index: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Index (in the list sent) of the action that failed; null when all ran or none was started.',
    }),
    error: Type.Union([Type.Object(ErrorBody.properties), Type.Null()], { description: 'Why the step stopped, as the usual error body.' }),
  }),
}, { $id: 'HudStepResult', title: 'HudStepResult' })
export type HudStepResult = Static<typeof HudStepResult>
