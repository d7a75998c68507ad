/**
 * OpenAI's shell tools (Responses API; the server's --shell): `shell` (a shell_call's command
 * lines, each run with bash -c in order) and `local_shell` (a local_shell_call's argv), as
 * run_command actions, answered with the shell_call_output or local_shell_call_output item.
 */
import { Type } from '@sinclair/typebox'
import type { Adapter, AdapterContext, AdapterOutcome, Translation } from '../../src/pipeline/adapter.ts'
import type { ActionResponse } from '../../src/actions/response.ts'
import { StringEnum } from '../../src/actions/common.ts'
import type { ActionQuery } from '../../src/schemas/action-query.ts'
import { InvalidNativePayload } from '../../src/errors/errors.ts'
import { OpenaiLocalShellCall, OpenaiShellCall, OpenaiShellOutput } from './schemas.ts'

const VERSIONS = ['shell', 'local_shell'] as const
type Version = (typeof VERSIONS)[number]

const Query = Type.Object({
  tool_version: Type.Optional(StringEnum([...VERSIONS], { description: 'The tool the model was given: shell (default) or local_shell.' })),
  call_id: Type.Optional(Type.String({ minLength: 1, description: 'The call_id, when the body is the bare action; the answer carries it.' })),
})
type Query = ActionQuery & { tool_version?: Version, call_id?: string }

interface Meta { version: Version, call_id: string | null, max_output_length: number | null }

type Body = Record<string, unknown>

function translate (body: Body, context: AdapterContext<Query>): Translation<Meta> {
  const version = context.version as Version
  const item = body.type === `${version}_call` ? body : undefined
  const action = (item ? item.action : body) as Record<string, unknown>
  const fromItem = item?.call_id as string | undefined
  const fromQuery = context.query.call_id
  if (fromItem !== undefined && fromQuery !== undefined && fromItem !== fromQuery) {
    throw new InvalidNativePayload(`the call_id query ('${fromQuery}') is not the item's call_id ('${fromItem}'); send one or make them agree`)
  }
  const timeout = typeof action.timeout_ms === 'number' ? { timeout: action.timeout_ms / 1000 } : {}
  const meta = { version, call_id: fromItem ?? fromQuery ?? null, max_output_length: typeof action.max_output_length === 'number' ? action.max_output_length : null }
  if (version === 'shell') {
    return { actions: (action.commands as string[]).map((command) => ({ action: 'run_command', command, ...timeout })), screenshot: false, meta }
  }
  if (action.env && Object.keys(action.env).length) throw new InvalidNativePayload('local_shell: env is refused: commands run with the desktop user\'s own environment, never one a model sets')
  const directory = action.working_directory
  if (typeof directory === 'string' && directory !== '' && directory !== '~' && directory !== '.') {
    throw new InvalidNativePayload(`local_shell: working_directory '${directory}' is refused: commands start in the desktop's home (cd in a shell command instead)`)
  }
  return { actions: [{ action: 'run_command', argv: action.command as string[], ...timeout }], screenshot: false, meta }
}

/** At most `length` characters, as the shell tool's max_output_length asks; null: the server's cap alone. */
const cut = (text: string, length: number | null) => length === null || text.length <= length ? text : text.slice(0, length)

function result (outcome: AdapterOutcome, _context: AdapterContext<Query>, translation: Translation<Meta>): OpenaiShellOutput {
  const { version, call_id: id, max_output_length: length } = translation.meta
  const ran = outcome.results.map((r: ActionResponse) => r.command_result!).filter(Boolean)
  if (version === 'local_shell') {
    const r = ran[0]
    const output = outcome.error
      ? JSON.stringify({ error: outcome.error.message })
      : JSON.stringify({ stdout: r!.stdout, stderr: r!.stderr, exit_code: r!.exit_code, timed_out: r!.timed_out, truncated: r!.truncated })
    return { type: 'local_shell_call_output', ...(id !== null && { id }), output, status: outcome.error ? 'incomplete' : 'completed' }
  }
  return {
    type: 'shell_call_output',
    ...(id !== null && { call_id: id }),
    output: ran.map((r) => ({
      stdout: cut(r.stdout, length),
      stderr: cut(r.stderr, length),
      outcome: r.timed_out ? { type: 'timeout' as const } : { type: 'exit' as const, exit_code: r.exit_code ?? 128 },
    })),
    ...(length !== null && { max_output_length: length }),
    ...(outcome.error && { status: 'incomplete' as const, error: outcome.error.message }),
  }
}

export const openaiShellAdapter: Adapter<Body, Meta, Query> = {
  name: 'openai-shell',
  description: "OpenAI's shell tools (Responses API; the server's --shell): a shell_call item (or its action), its command lines each run with bash -c in order as the desktop's user in its home, answered with the shell_call_output item (stdout, stderr and the exit code or timeout per command, cut to max_output_length); a local_shell_call item (or its action), its argv run without a shell, answered with the local_shell_call_output item. env and working_directory other than the home are refused; user is ignored (always the desktop's user).",
  coordinates: 'none: shell calls take no coordinates',
  versions: [
    { name: 'shell', description: 'The shell tool (gpt-5.1 and later): action.commands, timeout_ms, max_output_length.', schema: OpenaiShellCall },
    { name: 'local_shell', description: 'The local_shell tool (codex-mini-latest): action {type: exec, command: argv, timeout_ms}.', schema: OpenaiLocalShellCall },
  ],
  query: Query,
  version: (query) => query.tool_version,
  translate,
  result,
  resultSchema: OpenaiShellOutput,
}
