/**
 * A version's body: the tool's input, or the whole `tool_use` content block the model
 * answered with, so an agent loop can forward the block as it came and get back the
 * tool_result that pairs with it.
 */
import { Type, type TObject } from '@sinclair/typebox'

/**
 * The block is listed first: its errors on a bare input (no `type`, `id`, …) are blanked
 * (empty ajv-errors messages, which the error formatter skips), so a bare input is reported
 * by its own schema and a block by its `input`. Further envelope fields are allowed: the API
 * keeps adding them (`caller`, `toolset_name`, `cache_control`) and only `id` and `input` matter here.
 */
export function ToolUseBlock<T extends TObject> (input: T) {
  return Type.Object({
    type: Type.Literal('tool_use'),
    id: Type.String({ minLength: 1, description: 'Becomes the tool_use_id of the answer.' }),
    name: Type.Literal('computer'),
    input,
  }, {
    additionalProperties: true,
    description: 'The tool_use content block as the Messages API returns it.',
    errorMessage: { required: '' },
  })
}

export function versionBody<T extends TObject> (id: string, description: string, input: T) {
  return Type.Union([ToolUseBlock(input), input], { $id: id, title: id, description })
}
