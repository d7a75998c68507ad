/**
 * OSWorld's guest runs commands through its own shell (/execute, /run_bash_script,
 * /setup/launch, /setup/execute_with_verification) and sets the wallpaper
 * (/setup/change_wallpaper), beside the executor: the lease is checked here too, so a person's
 * takeover stops those as it stops every other acting request.
 */
import type { GuestShell } from '../osworld/shell.ts'
import type { ControlLease } from './lease.ts'

export function leasedShell (shell: GuestShell, control: ControlLease): GuestShell {
  return {
    run: async (command, options) => {
      control.assertAgentMayAct()
      return shell.run(command, options)
    },
    launch: async (command, options) => {
      control.assertAgentMayAct()
      return shell.launch(command, options)
    },
  }
}

export function leasedWallpaper (wallpaper: (file: string) => Promise<void>, control: ControlLease): (file: string) => Promise<void> {
  return async (file) => {
    control.assertAgentMayAct()
    return wallpaper(file)
  }
}
