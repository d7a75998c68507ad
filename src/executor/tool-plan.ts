/**
 * Planning and running the agent's other tools (run_command, bash: --shell; edit: --files).
 * Refusals come while planning, before anything runs: the tool off (403 naming its flag), a
 * timeout past --shell-max-timeout, a path out of the home; the commands themselves run
 * through the ShellService, the edits through the TextEditor.
 */
import type { ActionOf } from '../actions/index.ts'
import type { CommandResultResponse } from '../actions/tools.ts'
import type { EditRequest, TextEditor } from '../editor/editor.ts'
import { InvalidAction, ShellSessionLimit, ToolOff } from '../errors/errors.ts'
import type { ShellService } from '../shell/service.ts'

export interface Tools {
  shell?: ShellService | undefined
  editor?: TextEditor | undefined
  /** The calling client's scope for bash sessions (an MCP session's), when it has one: its names are its own. */
  scope?: string | undefined
}

export type ToolPlan =
  | { kind: 'run_command', argv: string[], timeoutMs: number }
  | { kind: 'bash', session: string, key: string, command?: string, restart: boolean, timeoutMs: number }
  | { kind: 'edit', request: EditRequest }

const SHELL_OFF = 'the shell is off on this server: start it with --shell (env SHELL_TOOL=1), which runs commands as the desktop\'s user in --home'
const EDITOR_OFF = 'the text editor is off on this server: start it with --files (env FILES=1) and --home, the directory it edits in'

export function planTool (action: ActionOf<'run_command' | 'bash' | 'edit'>, tools: Tools | undefined): ToolPlan {
  if (action.action === 'edit') {
    if (!tools?.editor) throw new ToolOff(EDITOR_OFF)
    const { action: _, screenshot: __, ...request } = action
    // Refused here, before anything is read: `..`, absolute paths outside the home, NUL.
    tools.editor.parts(request.path)
    return { kind: 'edit', request }
  }
  const shell = tools?.shell
  if (!shell) throw new ToolOff(SHELL_OFF)
  const timeoutMs = action.timeout === undefined ? shell.limits.timeoutMs : Math.round(action.timeout * 1000)
  if (timeoutMs > shell.limits.maxTimeoutMs) {
    throw new InvalidAction(`timeout ${action.timeout} s is over this server's limit of ${shell.limits.maxTimeoutMs / 1000} s (--shell-max-timeout)`)
  }
  if (action.action === 'run_command') {
    if ((action.argv === undefined) === (action.command === undefined)) throw new InvalidAction('run_command needs exactly one of argv (a program and its arguments) or command (a line for bash -c)')
    return { kind: 'run_command', argv: action.argv ?? ['/bin/bash', '-c', action.command!], timeoutMs }
  }
  if ((action.command === undefined) === (action.restart !== true)) throw new InvalidAction('bash needs exactly one of command or restart: true')
  const session = action.session ?? 'default'
  // A client with a scope has sessions of its own: the same name is another bash for another client.
  const key = tools.scope === undefined ? session : `${tools.scope}/${session}`
  if (action.command !== undefined && !shell.sessionAllowed(key)) {
    throw new ShellSessionLimit(`${shell.limits.maxSessions} bash sessions are open (--shell-max-sessions): restart one ({"action":"bash","restart":true,"session":"<name>"}) before starting '${session}'`)
  }
  return { kind: 'bash', session, key, ...(action.command !== undefined && { command: action.command }), restart: action.restart === true, timeoutMs }
}

export interface ToolOutcome { output: string, command_result?: CommandResultResponse }

export async function runTool (plan: ToolPlan, tools: Tools | undefined, signal?: AbortSignal): Promise<ToolOutcome> {
  switch (plan.kind) {
    case 'edit':
      return { output: await tools!.editor!.run(plan.request) }
    case 'run_command': {
      const result = await tools!.shell!.runOnce(plan.argv, plan.timeoutMs, signal)
      return { output: describe(result, plan.timeoutMs), command_result: result }
    }
    case 'bash': {
      if (plan.restart) {
        await tools!.shell!.restart(plan.key)
        return { output: 'tool has been restarted.' }
      }
      const { ended, ...result } = await tools!.shell!.session(plan.key, plan.command!, plan.timeoutMs, signal)
      return { output: ended ?? describe(result, plan.timeoutMs), command_result: result }
    }
  }
}

/** A line for the log and for dialects that show text alone: the status and sizes, never the output. */
function describe (result: CommandResultResponse, timeoutMs: number): string {
  const how = result.timed_out
    ? `timed out after ${timeoutMs / 1000} s: killed with everything it started`
    : result.exit_code === null ? `ended by ${result.signal}` : `exited with code ${result.exit_code}`
  const cut = result.truncated ? ' (output truncated: over the --shell-max-output cap)' : ''
  return `the command ${how}; ${result.stdout_bytes} bytes on stdout, ${result.stderr_bytes} on stderr${cut}`
}
