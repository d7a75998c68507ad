/**
 * Claude's bash and text editor tools (bash_20250124, text_editor_20250728 and their older
 * versions) → the unified `bash` and `edit` actions, and their result → the tool_result text
 * the reference loop gives the model. They run beside `computer`: as their own tool_version
 * (the input or the whole block), or as blocks of a computer_toolset_20260801 turn.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { ActionResponse } from '../../src/actions/response.ts'
import type { UnifiedAction } from '../../src/actions/index.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'

/** The tools' names in tool_use blocks, per version. */
export const AGENT_TOOL_VERSIONS = {
  bash_20250124: 'bash',
  bash_20241022: 'bash',
  text_editor_20250728: 'str_replace_based_edit_tool',
  text_editor_20250429: 'str_replace_based_edit_tool',
  text_editor_20250124: 'str_replace_editor',
  text_editor_20241022: 'str_replace_editor',
} as const
export type AgentToolVersion = keyof typeof AGENT_TOOL_VERSIONS
export const AGENT_TOOL_NAMES: ReadonlySet<string> = new Set(Object.values(AGENT_TOOL_VERSIONS))
export const isAgentToolVersion = (version: string): version is AgentToolVersion => version in AGENT_TOOL_VERSIONS

export const BashInput = Type.Object({
  command: Type.Optional(Type.String({ description: 'The bash command to run.' })),
  restart: Type.Optional(Type.Boolean({ description: 'Restart the session.' })),
}, { additionalProperties: false, title: 'AnthropicBashInput' })

export const TextEditorInput = Type.Object({
  command: Type.Union([Type.Literal('view'), Type.Literal('create'), Type.Literal('str_replace'), Type.Literal('insert'), Type.Literal('undo_edit')]),
  path: Type.String(),
  view_range: Type.Optional(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 })),
  file_text: Type.Optional(Type.String()),
  old_str: Type.Optional(Type.String()),
  new_str: Type.Optional(Type.String()),
  insert_line: Type.Optional(Type.Integer({ minimum: 0 })),
  insert_text: Type.Optional(Type.String()),
}, { additionalProperties: false, title: 'AnthropicTextEditorInput' })

const block = (name: string, input: typeof BashInput | typeof TextEditorInput) => Type.Object({
  type: Type.Literal('tool_use'),
  id: Type.String({ minLength: 1 }),
  name: Type.Literal(name),
  input,
}, { additionalProperties: true, errorMessage: { required: '' } })

const body = (id: string, name: string, input: typeof BashInput | typeof TextEditorInput, description: string) =>
  Type.Union([block(name, input), input], { $id: id, title: id, description })

/** Each version's body schema (its own $id: a schema is registered once per id). */
export const AGENT_TOOL_SCHEMAS = Object.fromEntries(Object.entries(AGENT_TOOL_VERSIONS).map(([version, name]) => {
  const id = `Anthropic${version.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}`
  const schema = name === 'bash'
    ? body(id, name, BashInput, `The ${version} tool's input ({command} or {restart: true}), or the whole tool_use block (name bash) carrying it.`)
    : body(id, name, TextEditorInput, `The ${version} tool's input, or the whole tool_use block (name ${name}) carrying it.${name === 'str_replace_editor' ? ' This version has undo_edit.' : ''}`)
  return [version, schema]
})) as Record<AgentToolVersion, ReturnType<typeof body>>

type Input = Record<string, unknown>

/** The unified action of one call of tool `name` (the tool_use block's name) in `version`, or of the named tool's newest version. */
export function agentToolAction (name: string, input: Input, version?: AgentToolVersion): UnifiedAction {
  if (name === 'bash') {
    const { command, restart } = input as Static<typeof BashInput>
    if (restart === true) return { action: 'bash', restart: true }
    if (typeof command !== 'string' || command === '') throw new InvalidNativePayload('bash: input needs command (a non-empty string) or restart: true')
    return { action: 'bash', command }
  }
  const edit = input as Static<typeof TextEditorInput>
  if (edit.command === 'undo_edit' && (version === 'text_editor_20250728' || version === 'text_editor_20250429' || (version === undefined && name === 'str_replace_based_edit_tool'))) {
    throw new InvalidNativePayload(`${name}: undo_edit is not a command of ${version ?? 'text_editor_20250728'} (only text_editor_20250124 and older have it)`)
  }
  if (typeof edit.path !== 'string' || !['view', 'create', 'str_replace', 'insert', 'undo_edit'].includes(edit.command)) {
    throw new InvalidNativePayload(`${name}: input needs command (view, create, str_replace, insert${name === 'str_replace_editor' ? ', undo_edit' : ''}) and path`)
  }
  // 20250728 and 20250429 name the inserted text insert_text; older versions new_str.
  const { command, path, view_range, file_text, old_str, new_str, insert_line, insert_text } = edit
  const inserted = command === 'insert' ? insert_text ?? new_str : undefined
  return {
    action: 'edit',
    command,
    path,
    ...(view_range !== undefined && { view_range }),
    ...(file_text !== undefined && { file_text }),
    ...(old_str !== undefined && { old_str }),
    ...(new_str !== undefined && command !== 'insert' && { new_str }),
    ...(insert_line !== undefined && { insert_line }),
    ...(inserted !== undefined && { insert_text: inserted }),
  }
}

/**
 * What the model reads after a call that ran: the editor's result string; bash's stdout then
 * stderr, with the exit status when it is not 0 and a note when output was cut or the command
 * was killed (the session's end message). Null: the call failed (the caller sends is_error).
 */
export function agentToolText (result: ActionResponse | undefined): { text: string, isError: boolean } {
  const command = result?.command_result
  if (!command) return { text: result?.output ?? '', isError: false }
  const parts = [command.stdout, command.stderr].filter((part) => part !== '').map((part) => part.replace(/\n$/, ''))
  if (command.truncated) parts.push(`[output truncated: ${command.stdout_bytes} bytes on stdout and ${command.stderr_bytes} on stderr, each cut to the server's --shell-max-output]`)
  if (command.timed_out) return { text: [...parts, result.output ?? ''].join('\n'), isError: true }
  if (command.exit_code !== null && command.exit_code !== 0) parts.push(`[exit code ${command.exit_code}]`)
  if (command.exit_code === null) parts.push(`[${result.output ?? `killed by ${command.signal}`}]`)
  return { text: parts.join('\n') || '(no output)', isError: false }
}
