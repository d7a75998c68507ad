/** The outcome → the tool_result block the model reads next. */
import type { AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import type { AnthropicToolResult } from './result.ts'
import type { AnthropicMeta } from './to-unified.ts'

type Block = AnthropicToolResult['content'][number]

export function toNativeResult (outcome: AdapterOutcome, translation: Translation<AnthropicMeta>): AnthropicToolResult {
  const { tool_use_id: id, action } = translation.meta
  const head = { type: 'tool_result' as const, ...(id !== null && { tool_use_id: id }) }
  if (outcome.error) {
    return { ...head, content: [{ type: 'text', text: outcome.error.message }], is_error: true }
  }
  const text = action === 'cursor_position' ? cursorText(outcome) : outputText(outcome)
  const content: Block[] = []
  if (text) content.push({ type: 'text', text })
  if (outcome.screenshot) {
    content.push({ type: 'image', source: { type: 'base64', media_type: outcome.mediaType, data: outcome.screenshot } })
  }
  return { ...head, content, is_error: false }
}

/** As the demo writes it, in the model's coordinates. */
function cursorText (outcome: AdapterOutcome): string {
  const at = outcome.results.at(-1)?.cursor_position
  return at ? `X=${at[0]},Y=${at[1]}` : ''
}

/** What each unified step did, one line each (the demo's text is xdotool's usually empty stdout). */
function outputText (outcome: AdapterOutcome): string {
  return outcome.results.map((result) => result.output).filter((output) => output).join('\n')
}
