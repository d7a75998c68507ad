/**
 * How a running server tells its own user which desktop it serves, so that `computer-gateway
 * exec` can put a program there with neither a port nor a cookie anyone else can read: one
 * 0600 file per server, named by its PID, in a 0700 directory of that user
 * ($COMPUTER_GATEWAY_RUNTIME_DIR, else $XDG_RUNTIME_DIR/computer-gateway, else
 * <tmpdir>/computer-gateway-<uid>). A file, not a socket or a port: the kernel's file
 * permissions are the whole access check, and a server killed outright leaves a file whose
 * PID is gone, which the next reader drops.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Instance {
  pid: number
  /** The X display the server's driver acts on (e.g. ':99'). */
  display: string
  /** The Xauthority file holding the display's cookie; absent when the display needs none. */
  xauthority?: string
}

/** A refusal to show the operator: the message says what to do. */
export class InstancesUnreadable extends Error {}

const uid = () => process.getuid?.() ?? 0

/** The directories a server may have written to, the one it writes to first. */
export function runtimeDirs (env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.COMPUTER_GATEWAY_RUNTIME_DIR) return [env.COMPUTER_GATEWAY_RUNTIME_DIR]
  const dirs = env.XDG_RUNTIME_DIR ? [join(env.XDG_RUNTIME_DIR, 'computer-gateway')] : []
  // A server started by a supervisor without XDG_RUNTIME_DIR still has to be found from a login shell.
  return [...dirs, join(tmpdir(), `computer-gateway-${uid()}`)]
}

/**
 * Creates `dir` (0700) or checks it: in a shared /tmp another user could have made it first,
 * or made it a link to somewhere they read; then it is refused, not used.
 */
function privateDir (dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = lstatSync(dir)
  if (!stat.isDirectory() || stat.uid !== uid() || (stat.mode & 0o077) !== 0) {
    throw new InstancesUnreadable(`${dir} is not a private directory of uid ${uid()} (a link, another owner, or open to others): remove it, or set COMPUTER_GATEWAY_RUNTIME_DIR`)
  }
  return dir
}

/** Writes this server's file; the function returned removes it (also called on exit). */
export function publish (instance: Omit<Instance, 'pid'>, env: NodeJS.ProcessEnv = process.env): () => void {
  const path = join(privateDir(runtimeDirs(env)[0]!), `${process.pid}.json`)
  // Renamed into place: a reader sees the whole file or none.
  writeFileSync(`${path}.new`, JSON.stringify({ pid: process.pid, ...instance }), { mode: 0o600 })
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

/** The running servers this user can reach, oldest file first. */
export function instances (env: NodeJS.ProcessEnv = process.env): Instance[] {
  const found: Instance[] = []
  for (const dir of runtimeDirs(env)) {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') continue
      if (code === 'EACCES') throw new InstancesUnreadable(`${dir} belongs to another user: run this as the user who started the server`)
      throw error
    }
    for (const name of names.filter((n) => /^\d+\.json$/.test(n))) {
      let instance: Instance
      try {
        instance = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Instance
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EACCES') throw new InstancesUnreadable(`${join(dir, name)} belongs to another user: run this as the user who started the server`)
        continue
      }
      if (alive(instance.pid)) found.push(instance)
      else rmSync(join(dir, name), { force: true })
    }
  }
  return found
}
