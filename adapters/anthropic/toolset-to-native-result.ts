/**
 * The outcome → one tool_result block per member call, as the SDK's pipeline renders them:
 * a pure action answers with its fixed acknowledgment, screenshot and zoom with the image,
 * cursor_position with "X=x,Y=y"; the call that failed with the error's text and is_error; the
 * calls after it with the SDK's not-executed text.
 */
import { callStatus, type AdapterOutcome, type Translation } from '../../src/pipeline/adapter.ts'
import { unreachable } from '../../src/errors/unreachable.ts'
import type { ToolsetMember } from './computer_toolset_20260801.ts'
import type { AnthropicToolsetResult, AnthropicToolsetResultBlock } from './toolset-result.ts'
import type { ToolsetCall, ToolsetMeta } from './toolset-to-unified.ts'
import { AGENT_TOOL_NAMES, agentToolText } from './agent-tools.ts'

/** @anthropic-ai/sdk lib/internal/toolsets/run.ts, NOT_EXECUTED_BY_FAMILY.computer. */
export const NOT_EXECUTED = 'Not executed: an earlier computer action in this turn failed.'

/**
 * Ours, for a turn refused before anything ran (planning found a call at fault): the calls before
 * it did not run either, and the SDK's text would say the opposite.
 */
export const NOT_EXECUTED_REFUSED = 'Not executed: a later computer action in this turn was refused, so none of them ran.'

/** The SDK's acknowledgments (lib/internal/toolsets/computer-members.ts ROWS); null: the member answers with data. */
const ACKNOWLEDGMENT: Record<ToolsetMember, string | null> = {
  key: 'Pressed {text}.',
  hold_key: 'Held {text} for {duration}s.',
  type: 'Typed.',
  cursor_position: null,
  mouse_move: 'Moved the mouse.',
  left_mouse_down: 'Left mouse button pressed.',
  left_mouse_up: 'Left mouse button released.',
  left_click: 'Clicked.',
  left_click_drag: 'Dragged.',
  right_click: 'Right-clicked.',
  middle_click: 'Middle-clicked.',
  double_click: 'Double-clicked.',
  triple_click: 'Triple-clicked.',
  scroll: 'Scrolled {scroll_direction}.',
  wait: 'Waited {duration}s.',
  screenshot: null,
  zoom: null,
}

type Content = AnthropicToolsetResultBlock['content']

export function toolsetToNativeResult (outcome: AdapterOutcome, translation: Translation<ToolsetMeta>): AnthropicToolsetResult {
  const { calls } = translation.meta
  const atFault = outcome.error && outcome.failedIndex === null ? refusedCall(calls, outcome.error.failed_index) : null
  return calls.map((call, index) => {
    const status = callStatus(call, outcome)
    switch (status) {
      case 'ran': {
        if (!AGENT_TOOL_NAMES.has(call.name)) return block(call, rendered(call, outcome))
        const { text: said, isError } = agentToolText(outcome.results[call.first])
        return block(call, [text(said)], isError)
      }
      case 'failed':
        return block(call, [text(outcome.error!.message)], true)
      case 'not_run':
        return block(call, NOT_EXECUTED, true)
      case 'refused':
        if (atFault === null || index === atFault) return block(call, [text(outcome.error!.message)], true)
        return block(call, index > atFault ? NOT_EXECUTED : NOT_EXECUTED_REFUSED, true)
      default:
        return unreachable(status)
    }
  })
}

/** The call whose actions hold the refused action; null when the refusal names none (then every call carries it). */
function refusedCall (calls: ToolsetCall[], actionIndex: number | undefined): number | null {
  if (actionIndex === undefined) return calls.length === 1 ? 0 : null
  const found = calls.findIndex((c) => actionIndex >= c.first && actionIndex < c.first + c.count)
  return found === -1 ? null : found
}

function block (call: ToolsetCall, content: Content, isError = false): AnthropicToolsetResultBlock {
  const member = !AGENT_TOOL_NAMES.has(call.name)
  return { type: 'tool_result', tool_use_id: call.id, ...(member && { toolset_name: 'computer' as const }), content, ...(isError && { is_error: true as const }) }
}

const text = (value: string) => ({ type: 'text' as const, text: value })

function rendered (call: ToolsetCall, outcome: AdapterOutcome): Content {
  const template = ACKNOWLEDGMENT[call.name as ToolsetMember]
  if (template !== null) return [text(acknowledgment(template, call.input))]
  const result = outcome.results[call.first]
  if (call.name === 'cursor_position') {
    const at = result?.cursor_position
    return at ? [text(`X=${at[0]},Y=${at[1]}`)] : []
  }
  const data = result?.base64_image
  return data ? [{ type: 'image', source: { type: 'base64', media_type: outcome.mediaType, data } }] : []
}

// The SDK's one-line rule for a quoted field (sanitize.ts LINE_UNSAFE, oneLine): control, line
// and bidi characters fold to a space, lone surrogates to U+FFFD, the ends are trimmed.
const LINE_UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu
const FIELD_MAX = 4096

function oneLine (value: string): string {
  const line = value.replace(LONE_SURROGATE, '\uFFFD').replace(LINE_UNSAFE, ' ').trim()
  return [...line].slice(0, FIELD_MAX).join('')
}

/** Filled in one pass, so a value such as "{text}" stays data. */
function acknowledgment (template: string, input: Record<string, unknown>): string {
  return template.replace(/\{(text|duration|scroll_direction)\}/g, (_token, field: string) => oneLine(String(input[field] ?? '')))
}
