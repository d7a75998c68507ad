/**
 * The Responses API's shell tools as they reach us: a `shell_call` item (the `shell` tool: a
 * list of command lines) or a `local_shell_call` item (the `local_shell` tool: one argv), or
 * just its action; and the output item each answers with (openai's ResponseInputItem.ShellCallOutput
 * and LocalShellCallOutput; test/adapter-openai-shell.test.ts checks them against the SDK's types).
 */
import { Type, type Static } from '@sinclair/typebox'

export const ShellAction = Type.Object({
  commands: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 64, description: 'Command lines, each run with bash -c, in order.', errorMessage: 'commands must be a list of 1 to 64 non-empty command lines' }),
  timeout_ms: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "Each command's timeout; default the server's --shell-timeout." })),
  max_output_length: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Characters of stdout and of stderr kept per command; echoed on the output item.' })),
}, { additionalProperties: false, title: 'OpenaiShellAction' })

const ShellCallItem = Type.Object({
  type: Type.Literal('shell_call'),
  call_id: Type.String({ minLength: 1 }),
  action: ShellAction,
}, { additionalProperties: true, title: 'OpenaiShellCallItem', errorMessage: { required: '' } })

export const OpenaiShellCall = Type.Union([ShellCallItem, ShellAction], {
  $id: 'OpenaiShellCall',
  title: 'OpenaiShellCall',
  description: 'A shell_call item as the Responses API returns it (id, status, environment and caller are passed over), or its action.',
})

export const LocalShellAction = Type.Object({
  type: Type.Literal('exec'),
  command: Type.Array(Type.String(), { minItems: 1, description: 'The program and its arguments, run without a shell.' }),
  env: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Refused unless empty: the environment is the desktop user\'s own.' })),
  timeout_ms: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  user: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Ignored: commands always run as the desktop\'s user.' })),
  working_directory: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Refused unless the home: commands start in the desktop\'s home.' })),
}, { additionalProperties: false, title: 'OpenaiLocalShellAction' })

const LocalShellCallItem = Type.Object({
  type: Type.Literal('local_shell_call'),
  call_id: Type.String({ minLength: 1 }),
  action: LocalShellAction,
}, { additionalProperties: true, title: 'OpenaiLocalShellCallItem', errorMessage: { required: '' } })

export const OpenaiLocalShellCall = Type.Union([LocalShellCallItem, LocalShellAction], {
  $id: 'OpenaiLocalShellCall',
  title: 'OpenaiLocalShellCall',
  description: 'A local_shell_call item as the Responses API returns it, or its action.',
})

export const ShellOutputContent = Type.Object({
  stdout: Type.String(),
  stderr: Type.String(),
  outcome: Type.Union([
    Type.Object({ type: Type.Literal('exit'), exit_code: Type.Integer() }),
    Type.Object({ type: Type.Literal('timeout') }),
  ]),
}, { title: 'OpenaiShellOutputContent' })

export const OpenaiShellOutput = Type.Union([
  Type.Object({
    type: Type.Literal('shell_call_output'),
    call_id: Type.Optional(Type.String({ description: 'The call\'s call_id (from the item or the call_id query); absent for the client to fill in.' })),
    output: Type.Array(ShellOutputContent, { description: 'One entry per command, in order.' }),
    max_output_length: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    status: Type.Optional(Type.Literal('incomplete', { description: 'Only on failure, with `error` (ours: remove it before sending the item on).' })),
    error: Type.Optional(Type.String()),
  }, { title: 'OpenaiShellCallOutput' }),
  Type.Object({
    type: Type.Literal('local_shell_call_output'),
    id: Type.Optional(Type.String({ description: 'The call\'s call_id.' })),
    output: Type.String({ description: 'The result as JSON text: {"stdout", "stderr", "exit_code", "timed_out", "truncated"}.' }),
    status: Type.Optional(Type.Union([Type.Literal('completed'), Type.Literal('incomplete')])),
  }, { title: 'OpenaiLocalShellCallOutput' }),
], { $id: 'OpenaiShellOutput', title: 'OpenaiShellOutput' })
export type OpenaiShellOutput = Static<typeof OpenaiShellOutput>
