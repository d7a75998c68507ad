/**
 * What the toolset version answers: the `tool_result` blocks for the next user message, one per
 * member tool_use block and in its order, in the SDK's form (`toolsetResultBlock` and
 * `renderResult` of @anthropic-ai/sdk's lib/internal/toolsets).
 */
import { Type, type Static } from '@sinclair/typebox'
import { imageBlock, textBlock } from './content-blocks.ts'

const TextBlock = textBlock('AnthropicToolsetTextBlock')
const ImageBlock = imageBlock('AnthropicToolsetImageBlock', 'The image (PNG unless the query asks for another format), base64, in the pixels of the screenshot the model sees (a zoom: the region at its own size).')

export const AnthropicToolsetResultBlock = Type.Object({
  type: Type.Literal('tool_result'),
  tool_use_id: Type.String({ description: "The member tool_use block's id." }),
  toolset_name: Type.Optional(Type.Literal('computer', { description: 'Echoed from a member tool_use block; the API requires it on a member result. Absent on the result of a bash or text editor call of the same turn.' })),
  content: Type.Union([
    Type.String({ description: 'A call that did not run because an earlier one failed: the SDK\'s "Not executed: an earlier computer action in this turn failed."' }),
    Type.Array(Type.Union([TextBlock, ImageBlock]), {
      description: "A pure action: the SDK's acknowledgment (\"Clicked.\", \"Pressed ctrl+s.\"); screenshot and zoom: the image; cursor_position: \"X=x,Y=y\"; a failure: the error's text.",
    }),
  ]),
  is_error: Type.Optional(Type.Literal(true, { description: 'Present, true, when the call failed or was not run.' })),
}, { title: 'AnthropicToolsetResultBlock' })
export type AnthropicToolsetResultBlock = Static<typeof AnthropicToolsetResultBlock>

export const AnthropicToolsetResult = Type.Array(AnthropicToolsetResultBlock, {
  $id: 'AnthropicToolsetResult',
  title: 'AnthropicToolsetResult',
  description: 'One tool_result block per member tool_use block, in order (computer_toolset_20260801).',
})
export type AnthropicToolsetResult = Static<typeof AnthropicToolsetResult>
