/**
 * The server's shell (--shell, src/shell/) as the OSWorld guest's `GuestShell`: a command of
 * /execute runs as the desktop's user, bounded as every command is, and answers in the
 * harness's words; /setup/launch starts one that outlives the call, as the guest's own Popen
 * does (ShellService.launch).
 */
import type { ShellService } from '../shell/service.ts'
import type { GuestShell, ShellOutcome } from './shell.ts'

function argvOf (command: string | string[], shell: boolean, cwd?: string): string[] {
  const line = typeof command === 'string' ? command : command.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ')
  if (!shell && Array.isArray(command) && cwd === undefined) return command
  return ['bash', '-c', cwd === undefined ? line : `cd '${cwd.replaceAll("'", "'\\''")}' && ${line}`]
}

export function guestShell (shell: ShellService): GuestShell {
  return {
    async run (command, { shell: asLine, timeoutMs, cwd }): Promise<ShellOutcome> {
      const result = await shell.runOnce(argvOf(command, asLine, cwd), Math.min(timeoutMs, shell.limits.maxTimeoutMs))
      const note = result.timed_out ? `\n(killed: it ran past its ${timeoutMs / 1000} s)` : result.truncated ? '\n(output truncated)' : ''
      return { output: result.stdout, error: result.stderr + note, returncode: result.exit_code ?? (result.timed_out ? -9 : -1) }
    },
    async launch (command, { shell: asLine }) {
      await shell.launch(argvOf(command, asLine))
    },
  }
}
