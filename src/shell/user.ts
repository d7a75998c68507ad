/**
 * Who the shell's commands run as: the desktop's user, the owner of its home. A server running
 * as root runs them as that owner (never as root: a home of root's is refused); a server that
 * is not root runs them as itself, which is then the desktop's user too.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { ShellForbidden } from '../errors/errors.ts'

export interface ShellUser {
  uid: number
  gid: number
  /** The home's real path: the commands' working directory and $HOME. */
  home: string
  /** Whether the server changes to this user (it runs as root) or already is it. */
  switches: boolean
}

export async function shellUser (home: string): Promise<ShellUser> {
  const info = await stat(home).catch(() => {
    throw new ShellForbidden(`the desktop's home directory ${home} is not there: the shell runs in it`)
  })
  if (!info.isDirectory()) throw new ShellForbidden(`the desktop's home ${home} is not a directory: the shell runs in it`)
  const me = process.getuid?.() ?? 0
  if (me !== 0) return { uid: me, gid: process.getgid?.() ?? me, home, switches: false }
  if (info.uid === 0) {
    throw new ShellForbidden(`the desktop's home ${home} belongs to root, and the shell never runs commands as root: give --home a directory of the desktop's own user`)
  }
  return { uid: info.uid, gid: info.gid, home, switches: true }
}

/**
 * The hard RLIMIT_NPROC this server runs under (a container's ulimit), or undefined when
 * unlimited: a server that is not root cannot raise a command's limit past it.
 */
export async function nprocCeiling (): Promise<number | undefined> {
  const limits = await readFile('/proc/self/limits', 'latin1').catch(() => '')
  const hard = /^Max processes\s+\S+\s+(\S+)/m.exec(limits)?.[1]
  return hard === undefined || hard === 'unlimited' ? undefined : Number(hard)
}

/**
 * The tasks (threads count: RLIMIT_NPROC counts them) that `uid` runs now, of those this server
 * sees in its /proc.
 */
export async function tasksOf (uid: number): Promise<number> {
  return (await scan(uid)).user
}

/**
 * What the kernel counts against `uid` when one of its processes forks, at most: the tasks
 * this server sees the user run, plus every task it cannot see. RLIMIT_NPROC is checked
 * against every task of the user in its user namespace, and a container run without
 * user-namespace remapping shares the host's: the same uid's tasks in other containers (the
 * fleet's other desktops, each with its Firefox of ~200 threads) and on the host (a developer's
 * own session, when the uid is theirs) are counted, though this server's pid namespace hides
 * them. Counted as the user's, a command's limit is its allowance above what the kernel counts;
 * left out, a command's fork (and a launched Firefox's threads) failed with EAGAIN as soon as
 * the hidden ones reached the allowance. /proc/loadavg's total is the kernel's, namespace or
 * not; it is read before and after the scan, and the smaller taken, so that a task ending
 * during the scan is not counted as hidden.
 */
export async function tasksCounted (uid: number): Promise<number> {
  const before = await kernelTasks()
  const { user, all } = await scan(uid)
  const after = await kernelTasks()
  const hidden = before === undefined || after === undefined ? 0 : Math.max(0, Math.min(before, after) - all)
  return user + hidden
}

/** Every task of the system, as the kernel counts them: /proc/loadavg's "running/total". */
async function kernelTasks (): Promise<number | undefined> {
  const total = /^\S+ \S+ \S+ \d+\/(\d+) /.exec(await readFile('/proc/loadavg', 'latin1').catch(() => ''))?.[1]
  return total === undefined ? undefined : Number(total)
}

async function scan (uid: number): Promise<{ user: number, all: number }> {
  let user = 0
  let all = 0
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const status = await readFile(`/proc/${name}/status`, 'latin1').catch(() => '')
    if (status === '') continue
    const tasks = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1)
    all += tasks
    if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid) user += tasks
  }
  return { user, all }
}
