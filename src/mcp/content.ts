/**
 * Executor answers as MCP tool results: words and JSON as `text` content, screenshots as
 * `image` content (PNG), the response itself as `structuredContent` (without the image), and
 * a refusal as `isError` with the message the HTTP route answers.
 */
import type { ActionResponse } from '../actions/response.ts'

export interface TextContent { type: 'text', text: string }
export interface ImageContent { type: 'image', data: string, mimeType: 'image/png' }

export interface ToolResult {
  [key: string]: unknown
  content: Array<TextContent | ImageContent>
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

type Structured = Omit<ActionResponse, 'base64_image'>

const text = (value: string): TextContent => ({ type: 'text', text: value })
const png = (data: string): ImageContent => ({ type: 'image', data, mimeType: 'image/png' })

/** What a model reads of one response: the words, the cursor, and what a window or tree action found. */
function describe (response: ActionResponse): string[] {
  const { output, cursor_position: cursor, windows, window, element, accessibility, text: compact, truncated, clipboard } = response
  const lines: string[] = []
  const at = cursor && `cursor at (${cursor[0]}, ${cursor[1]})`
  lines.push([output, at && !output?.includes(at) && at].filter(Boolean).join('; '))
  if (compact !== undefined) lines.push(compact)
  if (clipboard?.text !== undefined) lines.push(clipboard.text)
  if (truncated) lines.push('(the tree was cut short by max_depth or max_nodes)')
  const found = { ...(windows && { windows }), ...(window && { window }), ...(element && { element }), ...(accessibility && { accessibility }) }
  if (Object.keys(found).length) lines.push(JSON.stringify(found))
  return lines
}

function structured (response: ActionResponse): Structured {
  const { base64_image: _image, ...rest } = response
  return rest
}

export function actionResult (response: ActionResponse): ToolResult {
  return {
    content: [text(describe(response).join('\n')), ...(response.clipboard?.image ? [png(response.clipboard.image)] : []), ...(response.base64_image ? [png(response.base64_image)] : [])],
    structuredContent: structured(response),
  }
}

export function batchResult (responses: ActionResponse[]): ToolResult {
  const content: ToolResult['content'] = []
  for (const [index, response] of responses.entries()) {
    content.push(text(`actions[${index}]: ${describe(response).join('\n')}`))
    if (response.base64_image) content.push(png(response.base64_image))
  }
  return { content, structuredContent: { results: responses.map(structured) } }
}

/** A refused or failed call: the HTTP route's message, and what a batch did before it stopped. */
export function errorResult (message: string, before: ActionResponse[] = []): ToolResult {
  const done = before.length ? batchResult(before).content : []
  return { content: [text(message), ...done], isError: true }
}
