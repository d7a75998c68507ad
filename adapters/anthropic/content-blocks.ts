/**
 * The text and image blocks of a Claude `tool_result`'s content, shared by the computer tool's
 * answer and the toolset's; each names them apart in OpenAPI and says what its image holds.
 */
import { Type } from '@sinclair/typebox'
import { ImageMediaType } from '../../src/schemas/action-query.ts'

export const textBlock = (title: string) => Type.Object({
  type: Type.Literal('text'),
  text: Type.String(),
}, { title })

export const imageBlock = (title: string, data: string) => Type.Object({
  type: Type.Literal('image'),
  source: Type.Object({
    type: Type.Literal('base64'),
    media_type: ImageMediaType,
    data: Type.String({ description: data }),
  }),
}, { title })
