/**
 * Children that die with the server. A server killed outright (SIGKILL, the OOM killer) runs
 * no shutdown, and left its Xvfb, window manager, workers and accessibility bus behind. Linux
 * can send a child a signal when its parent dies (PR_SET_PDEATHSIG); util-linux's setpriv sets
 * it and then execs the command, so the PID we get is the command's own. Without setpriv the
 * command runs as is, and so does a command that is not there: spawn's own ENOENT says so
 * better than setpriv's exit code.
 */
import { execFileSync } from 'node:child_process'
import { which } from './which.ts'

let available: boolean | undefined

function hasSetpriv (): boolean {
  if (available === undefined) {
    try {
      execFileSync('setpriv', ['--pdeathsig', 'SIGKILL', '--', 'true'], { stdio: 'ignore', timeout: 5000 })
      available = true
    } catch {
      available = false
    }
  }
  return available
}

/** [command, args] that run `command args` and end it with SIGKILL when this process dies. */
export function diesWithUs (command: string, args: readonly string[]): [string, string[]] {
  return hasSetpriv() && which(command) !== undefined ? ['setpriv', ['--pdeathsig', 'SIGKILL', '--', command, ...args]] : [command, [...args]]
}

/**
 * [command, args] that run `command args` in a process group that ends, all of it, when this
 * process dies: for commands whose own children outlive them (at-spi-bus-launcher's bus, the
 * registry it activates) — a parent-death signal is not inherited by the children of a fork.
 * A shell leads the group, gets SIGTERM when we die, and kills the group. Spawn it detached.
 */
export function groupDiesWithUs (command: string, args: readonly string[]): [string, string[]] {
  if (!hasSetpriv() || which(command) === undefined) return [command, [...args]]
  return ['setpriv', ['--pdeathsig', 'SIGTERM', '--', 'sh', '-c', 'trap "kill -9 0" TERM; "$@" & wait $!', 'sh', command, ...args]]
}
