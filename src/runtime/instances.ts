/**
 * How a running server tells its own user which desktop it serves, so that `computer-gateway
 * exec` can put a program there with neither a port nor a cookie anyone else can read: one
 * 0600 file per server, named by its PID, in a directory of that user
 * ($COMPUTER_GATEWAY_RUNTIME_DIR, else $XDG_RUNTIME_DIR/computer-gateway when XDG_RUNTIME_DIR
 * is a directory of this user, else <tmpdir>/computer-gateway-<uid>, created 0700). A file,
 * not a socket or a port: the kernel's file permissions are the whole access check, and a
 * server killed outright leaves a file whose PID is gone, which the next reader drops.
 *
 * The name in a shared /tmp is predictable: another user can make it first, and fill it with
 * files that name their own X display, so that exec would start this user's program on their
 * server. So every directory and every file is checked before it is used, without following
 * links: a directory (a file) owned by this uid and writable by nobody else; anything else is
 * refused with its path and what is wrong, never used, by the readers and the writer alike.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, type Stats } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Instance {
  pid: number
  /** The X display the server's driver acts on (e.g. ':99'). */
  display: string
  /** The Xauthority file holding the display's cookie; absent when the display needs none. */
  xauthority?: string
}

/** A refusal to show the operator: the message says what is wrong, where, and what to do. */
export class InstancesUnreadable extends Error {}

const uid = () => process.getuid?.() ?? 0

const REMEDY = 'remove it (as its owner, or root), or set COMPUTER_GATEWAY_RUNTIME_DIR to a directory of your own'

/** Why `stat` (an lstat: a link is itself) is not this user's private `kind`, or undefined when it is. */
export function unsafe (stat: Stats, kind: 'directory' | 'file'): string | undefined {
  const isKind = kind === 'directory' ? stat.isDirectory() : stat.isFile()
  if (stat.isSymbolicLink()) return `is a symbolic link, not a ${kind}`
  if (!isKind) return `is not a ${kind}`
  if (stat.uid !== uid()) return `belongs to another user (uid ${stat.uid}), not to you (uid ${uid()})`
  if ((stat.mode & 0o022) !== 0) return `is writable by ${(stat.mode & 0o002) !== 0 ? 'every user' : 'its group'} (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')})`
  return undefined
}

function refuse (path: string, why: string): never {
  throw new InstancesUnreadable(`${path} ${why}: refused (another user could steer computer-gateway exec to a display of theirs). ` +
    `To reach another user's server, run this as the user who started it; else ${REMEDY}`)
}

/** $XDG_RUNTIME_DIR when it is a directory of this user that nobody else may write (after `su`, it may still be the first user's). */
function ownXdgRuntimeDir (env: NodeJS.ProcessEnv): string | undefined {
  const dir = env.XDG_RUNTIME_DIR
  if (!dir) return undefined
  try {
    return unsafe(lstatSync(dir), 'directory') === undefined ? dir : undefined
  } catch {
    return undefined
  }
}

/** The directories a server may have written to, the one it writes to first. */
export function runtimeDirs (env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.COMPUTER_GATEWAY_RUNTIME_DIR) return [env.COMPUTER_GATEWAY_RUNTIME_DIR]
  const xdg = ownXdgRuntimeDir(env)
  // A server started by a supervisor without XDG_RUNTIME_DIR still has to be found from a login shell.
  return [...(xdg ? [join(xdg, 'computer-gateway')] : []), join(tmpdir(), `computer-gateway-${uid()}`)]
}

/** Creates `dir` (0700) if it is missing, then refuses it unless it is a private directory of this user. */
function privateDir (dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const why = unsafe(lstatSync(dir), 'directory')
  if (why) refuse(dir, why)
  return dir
}

/** Writes this server's file; the function returned removes it (also called on exit). Throws InstancesUnreadable into a directory not this user's own. */
export function publish (instance: Omit<Instance, 'pid'>, env: NodeJS.ProcessEnv = process.env): () => void {
  const path = join(privateDir(runtimeDirs(env)[0]!), `${process.pid}.json`)
  // Renamed into place: a reader sees the whole file or none.
  rmSync(`${path}.new`, { force: true })
  writeFileSync(`${path}.new`, JSON.stringify({ pid: process.pid, ...instance }), { mode: 0o600, flag: 'wx' })
  renameSync(`${path}.new`, path)
  const remove = () => rmSync(path, { force: true })
  process.once('exit', remove)
  return remove
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The file at `path`, opened without following a link and checked on the descriptor read (no window between check and read). */
function readPrivate (path: string): string {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') refuse(path, 'is a symbolic link, not a file')
    if (code === 'EACCES') refuse(path, 'belongs to another user')
    throw error
  }
  try {
    const why = unsafe(fstatSync(fd), 'file')
    if (why) refuse(path, why)
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/**
 * The running servers this user can reach, oldest file first. A directory or file not this
 * user's own is never read: with no server found elsewhere that refusal is thrown
 * (InstancesUnreadable); with servers found in another directory (XDG_RUNTIME_DIR's, while the
 * one in /tmp is squatted), they are returned and `warn` is told of each refusal.
 */
export function instances (env: NodeJS.ProcessEnv = process.env, warn: (refusal: InstancesUnreadable) => void = () => {}): Instance[] {
  const found: Instance[] = []
  const refusals: InstancesUnreadable[] = []
  const refused = (read: () => void) => {
    try {
      read()
    } catch (error) {
      if (!(error instanceof InstancesUnreadable)) throw error
      refusals.push(error)
    }
  }
  for (const dir of runtimeDirs(env)) refused(() => readDir(dir, found, refused))
  if (refusals.length > 0 && found.length === 0) throw refusals[0]!
  refusals.forEach(warn)
  return found
}

function readDir (dir: string, found: Instance[], refused: (read: () => void) => void): void {
  let stat: Stats
  try {
    stat = lstatSync(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const why = unsafe(stat, 'directory')
  if (why) refuse(dir, why)
  for (const name of readdirSync(dir).filter((n) => /^\d+\.json$/.test(n))) {
    refused(() => {
      const path = join(dir, name)
      let text: string
      try {
        text = readPrivate(path)
      } catch (error) {
        // Removed meanwhile (its server stopped): not a server.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
        throw error
      }
      let instance: Instance
      try {
        instance = JSON.parse(text) as Instance
      } catch {
        return
      }
      if (alive(instance.pid)) found.push(instance)
      else rmSync(path, { force: true })
    })
  }
}
