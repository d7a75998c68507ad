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
 * The tasks (threads count: RLIMIT_NPROC counts them) that `uid` runs now. The shell's limit
 * is this plus its allowance, since the kernel checks a fork against every task of the user,
 * the desktop's own included; the desktop's processes carry no such limit, so a command that
 * reaches it cannot stop them from forking.
 */
export async function tasksOf (uid: number): Promise<number> {
  let tasks = 0
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const status = await readFile(`/proc/${name}/status`, 'latin1').catch(() => '')
    const owner = /^Uid:\s+(\d+)/m.exec(status)
    if (Number(owner?.[1]) !== uid) continue
    tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1)
  }
  return tasks
}
