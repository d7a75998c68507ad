/**
 * What the adapter answers: the `tool_result` content block to put in the next user message,
 * as the reference demo's loop builds it (`_make_api_tool_result`).
 */
import { Type, type Static } from '@sinclair/typebox'
import { imageBlock, textBlock } from './content-blocks.ts'

const TextBlock = textBlock('AnthropicTextBlock')
const ImageBlock = imageBlock('AnthropicImageBlock', 'The PNG, base64, at display_width_px x display_height_px (a zoom: the region at its own size).')

export const AnthropicToolResult = Type.Object({
  type: Type.Literal('tool_result'),
  tool_use_id: Type.Optional(Type.String({
    description: "The tool_use block's id, when the body was the block or the query named it; otherwise absent, for the client to fill in.",
  })),
  content: Type.Array(Type.Union([TextBlock, ImageBlock]), {
    description: 'A text block with what was done (cursor_position: "X=x,Y=y"), then the screenshot; on failure, only the error message.',
  }),
  is_error: Type.Boolean({ description: 'True when the action failed; the text says why.' }),
}, { $id: 'AnthropicToolResult', title: 'AnthropicToolResult' })
export type AnthropicToolResult = Static<typeof AnthropicToolResult>
