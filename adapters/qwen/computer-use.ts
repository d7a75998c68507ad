/**
 * What a client sends, per model family: the tool's arguments `{action, …}`; the call
 * `{name, arguments}` (name "computer_use" or "computer", arguments as an object or as the JSON
 * string an OpenAI-compatible endpoint returns); the chat message an OpenAI-compatible server
 * answers with, `{role, content, tool_calls: [{function: {name, arguments}}]}`; the model's
 * text as `{response}`; or the text itself (text/plain) with one or more `<tool_call>` blocks,
 * each holding JSON or the XML form `<function=computer><parameter=action>…</parameter></function>`.
 *
 * One flat object schema serves the object shapes (which one was sent is told apart in
 * parse.ts), so a mistake in the arguments is reported as such rather than as a mismatch
 * with another shape.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox'
import { StringEnum } from '../../src/actions/common.ts'
import type { QwenArguments } from './arguments.ts'
import { FAMILY, type Family } from './family.ts'

export const FUNCTION_NAMES = ['computer_use', 'computer'] as const
export type FunctionName = (typeof FUNCTION_NAMES)[number]

export interface ChatToolCall {
  id?: string
  type?: 'function'
  function: { name: FunctionName, arguments: QwenArguments | string }
}

export type QwenInput = string | (Partial<QwenArguments> & {
  name?: FunctionName
  arguments?: QwenArguments | string
  response?: string
  role?: 'assistant'
  content?: string | null
  reasoning_content?: string | null
  tool_calls?: ChatToolCall[]
})

const FunctionName = StringEnum([...FUNCTION_NAMES], { description: 'The function the model called: computer_use (Qwen2.5-VL, Qwen3-VL, Fara-7B) or computer (Qwen3.5, Kimi K2.5).' })

const input = (args: TObject, id: string, model: string) => Type.Unsafe<QwenInput>({
  $id: id,
  title: id,
  description: `${model} output: the tool's arguments {"action", …}, the call {"name", "arguments"}, the chat message {"role", "content", "tool_calls"}, {"response": "<model text>"}, or the model text itself as text/plain.`,
  anyOf: [{ type: 'object' }, { type: 'string' }],
  properties: {
    ...args.properties,
    name: FunctionName,
    arguments: Type.Union([args, Type.String({ description: 'The arguments as a JSON string (OpenAI-compatible tool_calls).' })]),
    response: Type.String({ description: 'The model text, with its <tool_call> blocks.' }),
    role: Type.Literal('assistant', { description: 'The chat message\'s role.' }),
    content: Type.Union([Type.String(), Type.Null()], { description: 'The chat message\'s text: read for <tool_call> blocks only when tool_calls is empty or absent.' }),
    reasoning_content: Type.Union([Type.String(), Type.Null()], { description: 'The reasoning some servers return beside the message; ignored.' }),
    tool_calls: Type.Array(Type.Object({
      id: Type.Optional(Type.String()),
      type: Type.Optional(Type.Literal('function')),
      function: Type.Object({
        name: FunctionName,
        arguments: Type.Union([Type.String({ description: 'The arguments as a JSON string.' }), args]),
      }),
    }), { description: 'The chat message\'s tool calls (OpenAI-compatible servers), run in order.' }),
  },
  additionalProperties: false,
})

const SCHEMA_IDS: Record<Family, string> = { '2.5': 'QwenComputerUse25Input', 3: 'QwenComputerUse3Input', 3.5: 'QwenComputer35Input', kimi: 'QwenKimiInput', fara: 'QwenFaraInput' }

export const QWEN_INPUTS = Object.fromEntries(
  Object.entries(FAMILY).map(([family, rules]) => [family, input(rules.args, SCHEMA_IDS[family as Family], rules.model)]),
) as Record<Family, ReturnType<typeof input>>

export type QwenComputerUseInput = Static<(typeof QWEN_INPUTS)['3']>
