/**
 * Extension: the desktop's clipboard (--clipboard). Text (exact, any Unicode) or a PNG image,
 * on the CLIPBOARD selection, or PRIMARY on request. Off unless the server turns it on.
 */
import { Type, type Static } from '@sinclair/typebox'
import { limitMessages, type Limits } from './limits.ts'
import { ScreenshotFlag } from './common.ts'

const SelectionField = Type.Optional(Type.Union([Type.Literal('clipboard'), Type.Literal('primary')], {
  description: 'Which X selection: clipboard (default; what ctrl+c and ctrl+v use) or primary (the last selected text, pasted by the middle button).',
  errorMessage: "selection must be 'clipboard' or 'primary'",
}))

export const getClipboardSchema = () => Type.Object({
  action: Type.Literal('get_clipboard'),
  selection: SelectionField,
  type: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('image')], {
    description: 'What to read when the owner offers both: text or a PNG image. Default: text when offered, else the image.',
    errorMessage: "type must be 'text' or 'image'",
  })),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'GetClipboardAction',
  description: 'Extension (--clipboard): reads the clipboard into `clipboard`: its text, or a PNG image; empty when nobody owns it.',
})

export const setClipboardSchema = (limits: Limits) => Type.Object({
  action: Type.Literal('set_clipboard'),
  text: Type.Optional(Type.String({
    maxLength: limits.maxTextLength,
    description: 'The text to put on the clipboard, exactly as given.',
    errorMessage: { maxLength: limitMessages(limits).text, type: 'text must be a string' },
  })),
  image: Type.Optional(Type.String({
    contentEncoding: 'base64',
    contentMediaType: 'image/png',
    description: 'A PNG image to put on the clipboard, base64 (no data: prefix).',
    errorMessage: 'image must be a PNG image in base64',
  })),
  selection: SelectionField,
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'SetClipboardAction',
  description: 'Extension (--clipboard): puts text, or a PNG image, on the clipboard (exactly one of them), for a paste (ctrl+v) to insert.',
})

export const ClipboardContentSchema = Type.Object({
  selection: Type.Union([Type.Literal('clipboard'), Type.Literal('primary')]),
  kind: Type.Union([Type.Literal('text'), Type.Literal('image'), Type.Literal('empty')], {
    description: 'text, image (a PNG), or empty: nobody owns the selection, or its owner offers neither.',
  }),
  text: Type.Optional(Type.String({ description: 'kind text: the text, exactly.' })),
  image: Type.Optional(Type.String({ description: 'kind image: the PNG, base64.' })),
}, { $id: 'ClipboardContent', title: 'ClipboardContent' })
export type ClipboardContentResponse = Static<typeof ClipboardContentSchema>
