/**
 * The one place a shell plugs into the OSWorld guest protocol. `/execute`, `/setup/execute`,
 * `/setup/launch` and `/run_python` hand everything that is not pyautogui code to a
 * `GuestShell`; without one (the default) they refuse it, naming the flag that turns it on.
 */
import { ShellOff } from '../errors/errors.ts'

/** What a program or shell line gave, in the harness's words. */
export interface ShellOutcome {
  output: string
  error: string
  returncode: number
}

export interface GuestShell {
  /** Runs `command` to its end (argv, or a line for /bin/sh when `shell`), within `timeoutMs`, in `cwd` (default the home). */
  run: (command: string | string[], options: { shell: boolean, timeoutMs: number, cwd?: string }) => Promise<ShellOutcome>
  /** Starts `command` and returns at once, leaving it running (`/setup/launch`). */
  launch: (command: string | string[], options: { shell: boolean }) => Promise<void>
}

/** How long a command of /execute may run: OSWorld's own server gives it 120 s. */
export const EXECUTE_TIMEOUT_MS = 120_000

/** The refusal of a command that is not pyautogui code, on a server without the shell. */
export function shellOff (route: string, command: string | string[]): Error {
  const shown = typeof command === 'string' ? command : command.join(' ')
  const quoted = JSON.stringify(shown.length > 120 ? `${shown.slice(0, 120)}…` : shown)
  return new ShellOff(`${route} ran no command: ${quoted} is not pyautogui code (python -c "import pyautogui; …"), ` +
    'which is all this server reads without its shell; other commands run only on a server started with --shell')
}
