/**
 * Picks an X display number nobody uses. This is only a good guess: another process (a
 * parallel test file, say) may take the same number a moment later. Xvfb's own lock file
 * is the real arbiter, so startXvfb retries with the next number when Xvfb says "taken".
 */
import { existsSync, readFileSync } from 'node:fs'
import { InvalidConfig } from '../../src/errors/errors.ts'

/** Where an X server on display `n` keeps its socket and its lock file. */
export const socketFile = (n: number) => `/tmp/.X11-unix/X${n}`
export const lockFile = (n: number) => `/tmp/.X${n}-lock`

/**
 * True when display `n` looks in use. A lock file whose process is gone is stale (an Xvfb
 * killed with SIGKILL leaves it, with its socket): the X server removes both itself, so the
 * number counts as free. A socket without a lock file belongs to a server we cannot see the
 * owner of, so it counts as taken.
 */
export function isDisplayTaken (n: number): boolean {
  if (existsSync(lockFile(n))) {
    const owner = lockOwner(n)
    return owner === undefined || alive(owner)
  }
  return existsSync(socketFile(n))
}

/** The PID in display `n`'s lock file (the X server that holds the number), if readable. */
export function lockOwner (n: number): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile(n), 'latin1').trim(), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive but not ours. Only ESRCH means the owner is gone.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** Numbers handed out by this process and not yet released, so two starts in one process never race. */
const claimed = new Set<number>()

/**
 * The first display number at or above `from` that looks free and that this process has not
 * handed out already; the caller owns it until `releaseDisplayNumber`. Throws InvalidConfig
 * when `count` numbers in a row are all taken.
 */
export function claimFreeDisplayNumber (from = 99, count = 1000): number {
  for (let n = from; n < from + count; n++) {
    if (claimed.has(n) || isDisplayTaken(n)) continue
    claimed.add(n)
    return n
  }
  throw new InvalidConfig(`no free X display number between :${from} and :${from + count - 1}`)
}

/** Gives a number from claimFreeDisplayNumber back (its X server has exited or never started). */
export function releaseDisplayNumber (n: number): void {
  claimed.delete(n)
}
