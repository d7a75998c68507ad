/**
 * Extension: the agent's other tools on the same desktop. `run_command` and `bash` (--shell)
 * run commands as the desktop's user in its home, on its display; `edit` (--files) is
 * Anthropic's text editor over the home. Off unless the server turns them on.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ScreenshotFlag } from './common.ts'

/** The most any call may ask to wait, seconds; the server's own --shell-max-timeout may be lower. */
export const MAX_TIMEOUT_SECONDS = 3600

const Timeout = Type.Optional(Type.Number({
  exclusiveMinimum: 0,
  maximum: MAX_TIMEOUT_SECONDS,
  description: 'Seconds the command may run before everything it started is killed (default --shell-timeout; at most --shell-max-timeout).',
  errorMessage: `timeout must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`,
}))

export const runCommandSchema = () => Type.Object({
  action: Type.Literal('run_command'),
  argv: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 1024, description: 'The program and its arguments, run without a shell.', errorMessage: 'argv must be a non-empty list of strings' })),
  command: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'A line for `bash -c`.', errorMessage: 'command must be a non-empty string' })),
  timeout: Timeout,
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'RunCommandAction',
  description: 'Extension (--shell): runs one command to its end (exactly one of argv or command) and answers `command_result`: exit code, stdout, stderr (each capped), whether it timed out. What it leaves running in its process group ends with it.',
})

export const bashSchema = () => Type.Object({
  action: Type.Literal('bash'),
  command: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'Run in the persistent bash session: its directory, variables and background jobs last to the next command.', errorMessage: 'command must be a non-empty string' })),
  restart: Type.Optional(Type.Boolean({ description: 'End the session and everything it started; the next command starts a new one.' })),
  session: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$', description: 'Which session (default "default"): each name is a bash of its own.', errorMessage: 'session must be 1 to 64 letters, digits, ".", "_" or "-"' })),
  timeout: Timeout,
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'BashAction',
  description: "Extension (--shell): Anthropic's bash tool. Exactly one of command or restart. A command that outlives its timeout is killed with its session, and the answer says so.",
})

export const editSchema = () => Type.Object({
  action: Type.Literal('edit'),
  command: Type.Union([Type.Literal('view'), Type.Literal('create'), Type.Literal('str_replace'), Type.Literal('insert'), Type.Literal('undo_edit')], {
    errorMessage: "command must be one of 'view', 'create', 'str_replace', 'insert', 'undo_edit'",
  }),
  path: Type.String({ minLength: 1, maxLength: 4096, description: "Relative to the desktop's home, or absolute inside it.", errorMessage: 'path must be a non-empty string' }),
  view_range: Type.Optional(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2, description: 'view: first and last line (1-based; last -1: to the end).', errorMessage: 'view_range must be two integers' })),
  file_text: Type.Optional(Type.String({ description: 'create: the whole file.' })),
  old_str: Type.Optional(Type.String({ minLength: 1, description: 'str_replace: text that occurs exactly once in the file.' })),
  new_str: Type.Optional(Type.String({ description: 'str_replace: its replacement (default empty).' })),
  insert_line: Type.Optional(Type.Integer({ minimum: 0, description: 'insert: the line after which to insert (0: at the start).' })),
  insert_text: Type.Optional(Type.String({ description: 'insert: the text to insert.' })),
  screenshot: Type.Optional(ScreenshotFlag),
}, {
  additionalProperties: false,
  title: 'EditAction',
  description: "Extension (--files): Anthropic's text editor over the desktop's home, with its result strings: view (a file with line numbers, or a directory two levels deep), create, str_replace (exactly one match), insert, undo_edit.",
})

export const CommandResultSchema = Type.Object({
  exit_code: Type.Union([Type.Integer(), Type.Null()], { description: 'The exit status; null when a signal ended it.' }),
  signal: Type.Union([Type.String(), Type.Null()]),
  stdout: Type.String(),
  stderr: Type.String(),
  stdout_bytes: Type.Integer({ description: 'Bytes written to stdout, kept or not.' }),
  stderr_bytes: Type.Integer(),
  truncated: Type.Boolean({ description: 'A stream passed --shell-max-output: its start is shown.' }),
  timed_out: Type.Boolean({ description: 'The timeout passed: everything the command started was killed.' }),
}, { $id: 'CommandResult', title: 'CommandResult' })
export type CommandResultResponse = Static<typeof CommandResultSchema>
