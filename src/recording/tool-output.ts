/**
 * A recording keeps what the shell and the editor were asked and how each call ended (the
 * command, its exit code, how many bytes it wrote), never what they printed or showed: a
 * command's output and a file's text may hold anything of the desktop user's, secrets included.
 */
import type { UnifiedAction } from '../actions/index.ts'
import type { ActionResponse } from '../actions/response.ts'

const TOOL_ACTIONS: ReadonlySet<string> = new Set(['run_command', 'bash', 'edit'])

export const hasToolAction = (actions: readonly UnifiedAction[]): boolean => actions.some((action) => TOOL_ACTIONS.has(action.action))

/** Said in place of a step's answer when its request ran a shell or editor call. */
export const ANSWER_NOT_KEPT = '[the answer to a shell or editor call is not kept: its results below say how each call ended]'

export function recordedResult (action: UnifiedAction | undefined, result: ActionResponse): ActionResponse {
  const command = result.command_result
  if (command) {
    return { ...result, command_result: { ...command, stdout: `[${command.stdout_bytes} bytes not kept]`, stderr: `[${command.stderr_bytes} bytes not kept]` } }
  }
  if (action?.action === 'edit' && (action.command === 'view' || action.command === 'undo_edit' || action.command === 'str_replace' || action.command === 'insert') && result.output !== null) {
    return { ...result, output: `[${action.command}: ${result.output.length} characters of the file not kept]` }
  }
  return result
}
