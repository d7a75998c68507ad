/**
 * One call of the bash or text editor tool on its own (tool_version=bash_…/text_editor_…): the
 * input or the whole tool_use block → its unified action; the outcome → the tool_result block.
 */
import type { AdapterContext, AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'
import { AGENT_TOOL_VERSIONS, agentToolAction, agentToolText, type AgentToolVersion } from './agent-tools.ts'
import type { AnthropicQuery } from './query.ts'
import type { AnthropicToolResult } from './result.ts'

export interface AgentToolMeta { tool_use_id: string | null }

export type AgentToolBody = Record<string, unknown>

export function agentToolToUnified (body: AgentToolBody, context: AdapterContext<AnthropicQuery>): Translation<AgentToolMeta> {
  const version = context.version as AgentToolVersion
  const name = AGENT_TOOL_VERSIONS[version]
  const isBlock = body.type === 'tool_use'
  if (isBlock && body.name !== name) throw new InvalidNativePayload(`the tool_use block calls '${String(body.name)}', but ${version} is the tool '${name}'`)
  const id = isBlock ? body.id as string : undefined
  const query = context.query.tool_use_id
  if (id !== undefined && query !== undefined && id !== query) {
    throw new InvalidNativePayload(`the tool_use_id query ('${query}') is not the id of the tool_use block ('${id}'); send one or make them agree`)
  }
  const input = (isBlock ? body.input : body) as Record<string, unknown>
  return {
    actions: [agentToolAction(name, input, version)],
    screenshot: context.query.screenshot ?? false,
    meta: { tool_use_id: id ?? query ?? null },
  }
}

export function agentToolToNativeResult (outcome: AdapterOutcome, translation: Translation<AgentToolMeta>): AnthropicToolResult {
  const id = translation.meta.tool_use_id
  const head = { type: 'tool_result' as const, ...(id !== null && { tool_use_id: id }) }
  if (outcome.error) return { ...head, content: [{ type: 'text', text: outcome.error.message }], is_error: true }
  const { text, isError } = agentToolText(outcome.results[0])
  const content: AnthropicToolResult['content'] = [{ type: 'text', text }]
  if (outcome.screenshot) content.push({ type: 'image', source: { type: 'base64', media_type: outcome.mediaType, data: outcome.screenshot } })
  return { ...head, content, is_error: isError }
}
