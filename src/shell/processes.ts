/**
 * Starting a command as the desktop's user with its bounds, and ending everything it started.
 * The command runs under prlimit (RLIMIT_NPROC: a fork bomb meets EAGAIN) and setpriv (the
 * user, no new privileges, killed with the server), in a process group of its own; each also
 * carries a marker in its environment, so a process that left the group (setsid) is still
 * found in /proc and ended with it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { nprocCeiling, tasksCounted, type ShellUser } from './user.ts'

export const MARKER = 'COMPUTER_GATEWAY_SHELL'

export interface Started {
  child: ChildProcess
  /** The value of MARKER in the environment of everything this command starts. */
  id: string
}

/**
 * Starts `argv` as `user`, with RLIMIT_NPROC at `maxProcesses` tasks above what the kernel
 * counts against the user now (tasksCounted: the desktop's processes, and any of the same uid
 * this server cannot see), so the command's own forks always have that room.
 */
export async function startCommand (argv: readonly string[], user: ShellUser, env: Record<string, string>, maxProcesses: number, stdio: 'pipe' | 'ignore' = 'pipe'): Promise<Started> {
  const id = randomBytes(8).toString('hex')
  const ceiling = process.getuid?.() === 0 ? undefined : await nprocCeiling()
  const nproc = Math.min(await tasksCounted(user.uid) + maxProcesses, ceiling ?? Infinity)
  const who = user.switches ? ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups'] : []
  const child = spawn('prlimit', [`--nproc=${nproc}:${nproc}`, '--', 'setpriv', ...who, '--no-new-privs', '--pdeathsig', 'SIGKILL', '--', ...argv], {
    cwd: user.home,
    env: { ...env, [MARKER]: id },
    detached: true,
    stdio: [stdio, stdio, stdio],
  })
  // A spawn failure arrives as an 'error' event; the caller's listeners see it through 'close'.
  child.on('error', () => {})
  return { child, id }
}

/**
 * Ends the command's process group and every process that still carries its marker, again
 * until none is left (a fork bomb forks while it is being killed); at most `rounds` sweeps.
 */
export async function endAll (started: Started, rounds = 20): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    let found = false
    if (started.child.pid !== undefined) {
      try {
        process.kill(-started.child.pid, 'SIGKILL')
        found = true
      } catch {}
    }
    for (const pid of await marked(started.id)) {
      try {
        process.kill(pid, 'SIGKILL')
        found = true
      } catch {}
    }
    if (!found) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function marked (id: string): Promise<number[]> {
  const needle = `${MARKER}=${id}\0`
  const pids: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const environ = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '')
    if (environ.includes(needle)) pids.push(Number(name))
  }
  return pids
}

/** A stream's bytes up to a cap; what comes after is counted and dropped. */
export class Capped {
  readonly #chunks: Buffer[] = []
  #kept = 0
  total = 0
  constructor (readonly cap: number) {}
  add (chunk: Buffer): void {
    this.total += chunk.length
    const room = this.cap - this.#kept
    if (room <= 0) return
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.#chunks.push(part)
    this.#kept += part.length
  }
  get truncated (): boolean { return this.total > this.#kept }
  text (): string { return Buffer.concat(this.#chunks).toString('utf8') }
}
