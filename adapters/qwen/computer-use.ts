/**
 * What a client sends, per model version: the `computer_use` arguments `{action, …}`, the call
 * `{name: "computer_use", arguments}` (arguments as an object, or as the JSON string an
 * OpenAI-compatible endpoint returns), the model's text as `{response}`, or the text itself
 * (text/plain) with one or more `<tool_call>…</tool_call>` blocks.
 *
 * One flat object schema serves the three object shapes (which one was sent is told apart in
 * parse.ts), so a mistake in the arguments is reported as such rather than as a mismatch
 * with another shape.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox'
import { QwenArguments25, QwenArguments3, type QwenArguments } from './arguments.ts'

export type QwenInput = string | (Partial<QwenArguments> & {
  name?: 'computer_use'
  arguments?: QwenArguments | string
  response?: string
})

const input = (args: TObject, id: string, model: string) => Type.Unsafe<QwenInput>({
  $id: id,
  title: id,
  description: `${model} output: the computer_use arguments {"action", …}, the call {"name": "computer_use", "arguments"}, {"response": "<model text>"}, or the model text itself as text/plain.`,
  anyOf: [{ type: 'object' }, { type: 'string' }],
  properties: {
    ...args.properties,
    name: Type.Literal('computer_use'),
    arguments: Type.Union([args, Type.String({ description: 'The arguments as a JSON string (OpenAI-compatible tool_calls).' })]),
    response: Type.String({ description: 'The model text, with its <tool_call> blocks.' }),
  },
  additionalProperties: false,
})

export const QwenComputerUse25Input = input(QwenArguments25, 'QwenComputerUse25Input', 'Qwen2.5-VL')
export const QwenComputerUse3Input = input(QwenArguments3, 'QwenComputerUse3Input', 'Qwen3-VL')
export type QwenComputerUseInput = Static<typeof QwenComputerUse3Input>
