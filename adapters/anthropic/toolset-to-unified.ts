/**
 * Toolset member calls → unified actions, one span per call (`CallSpan`), so the result can say
 * what became of each by `callStatus`: the calls run in order as one batch and the batch stops
 * at the first failure, which is the SDK's rule for a turn's members. Each member carries out
 * the same action as the `computer` tool's action of that name (to-unified.ts).
 */
import type { AdapterContext, CallSpan, Translation } from '../../src/pipeline/adapter.ts'
import type { UnifiedAction } from '../../src/actions/index.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'
import type { ToolsetMember, ToolsetToolUse } from './computer_toolset_20260801.ts'
import type { AnthropicQuery } from './query.ts'
import { actionsFor, type ComputerInput } from './to-unified.ts'
import { AGENT_TOOL_NAMES, agentToolAction } from './agent-tools.ts'

export type ToolsetBody = ToolsetToolUse | Array<ToolsetToolUse | { type: string }>

/** The bash and text editor tools' names in a turn's tool_use blocks (they carry no toolset_name). */
export type AgentToolName = 'bash' | 'str_replace_based_edit_tool' | 'str_replace_editor'
interface AgentToolUse { type: 'tool_use', id: string, name: AgentToolName, input: Record<string, unknown> }

export interface ToolsetCall extends CallSpan {
  id: string
  /** A member of the toolset, or the bash or text editor tool called beside it in the turn. */
  name: ToolsetMember | AgentToolName
  /** The fields the SDK's acknowledgment quotes ("Pressed {text}.", "Scrolled {scroll_direction}."). */
  input: Record<string, unknown>
}

export interface ToolsetMeta {
  calls: ToolsetCall[]
}

export function toolsetToUnified (body: ToolsetBody, context: AdapterContext<AnthropicQuery>): Translation<ToolsetMeta> {
  if (context.query.tool_use_id !== undefined) {
    throw new InvalidNativePayload('anthropic computer_toolset_20260801: the tool_use_id query does not apply: every member tool_use block carries its own id')
  }
  if (context.query.screenshot === true) {
    throw new InvalidNativePayload('anthropic computer_toolset_20260801: screenshot=true does not apply: a member answers as the SDK does, and the model asks for the screen with the screenshot member')
  }
  const members = (Array.isArray(body) ? body : [body])
    .map((block, index) => ({ block, index }))
    .filter((entry): entry is { block: ToolsetToolUse | AgentToolUse, index: number } => isMember(entry.block) || isAgentTool(entry.block))
  if (members.length === 0) {
    throw new InvalidNativePayload('anthropic computer_toolset_20260801: the turn has no computer toolset member call: a member is a tool_use block with toolset_name "computer" (the computer tool\'s blocks, name "computer", take tool_version=computer_20251124)')
  }
  const seen = new Set<string>()
  const actions: UnifiedAction[] = []
  const calls: ToolsetCall[] = members.map(({ block, index }) => {
    if (seen.has(block.id)) throw Object.assign(new InvalidNativePayload(`anthropic computer_toolset_20260801: [${index}]: tool_use id '${block.id}' is given twice; each block needs its own`), { failedIndex: index })
    seen.add(block.id)
    const own = isAgentTool(block) ? [agentToolAction(block.name, block.input)] : memberActions(block as ToolsetToolUse)
    const call = { id: block.id, name: block.name, input: block.input as Record<string, unknown>, first: actions.length, count: own.length }
    actions.push(...own)
    return call
  })
  return { actions, screenshot: false, meta: { calls } }
}

const isMember = (block: { type: string }): block is ToolsetToolUse =>
  block.type === 'tool_use' && (block as { toolset_name?: unknown }).toolset_name === 'computer'

/** A bash or text editor call of the same turn; its input is checked as it is translated. */
function isAgentTool (block: { type: string }): block is AgentToolUse {
  const { name, toolset_name: toolset, id, input } = block as { name?: unknown, toolset_name?: unknown, id?: unknown, input?: unknown }
  if (block.type !== 'tool_use' || toolset !== undefined || typeof name !== 'string' || !AGENT_TOOL_NAMES.has(name)) return false
  if (typeof id !== 'string' || id === '' || typeof input !== 'object' || input === null) throw new InvalidNativePayload(`a ${name} tool_use block needs an id and an input object`)
  return true
}

function memberActions ({ name, input }: ToolsetToolUse): UnifiedAction[] {
  const { repeat, ...fields } = input as ComputerInput & { repeat?: number }
  const once = actionsFor({ ...fields, action: name } as ComputerInput, 'computer_20251124')
  // key's `repeat`: the whole key sequence again, as many times.
  return name === 'key' && repeat !== undefined ? Array.from({ length: repeat }, () => once).flat() : once
}
