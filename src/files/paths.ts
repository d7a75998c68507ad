/**
 * Where a client's path lands under the home directory, or why it may not. The path is taken
 * apart by hand rather than through path.resolve, so that `..` is refused rather than folded
 * away, and every component that exists is looked at with lstat: a symbolic link is followed
 * only when what it points to is still under the home.
 */
import { lstat, realpath } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { InvalidPath, PathConflict, PathForbidden } from '../errors/errors.ts'

/** Linux's NAME_MAX and PATH_MAX, in bytes: longer names fail in the kernel with a less helpful error. */
export const NAME_MAX = 255
export const PATH_MAX = 4096

export interface Resolved {
  /** The client's path, normalised (no empty or `.` components): what messages quote. */
  shown: string
  /** Where it is on disk, symbolic links resolved. */
  real: string
  /** Its lstat when it exists (never a link: those are resolved), else undefined. */
  stats: Stats | undefined
}

/** The components of a client's path, refused when it is absolute, climbs, or cannot be a path. */
export function components (path: string): string[] {
  if (path.includes('\0')) throw new InvalidPath('the path contains a NUL byte, which no file name can hold')
  if (path.startsWith('/')) throw new PathForbidden(`'${path}' is absolute: paths are relative to the desktop's home directory`)
  if (Buffer.byteLength(path) > PATH_MAX) throw new InvalidPath(`the path is ${Buffer.byteLength(path)} bytes long, over the limit of ${PATH_MAX}`)
  const parts = path.split('/').filter((part) => part !== '' && part !== '.')
  for (const part of parts) {
    if (part === '..') throw new PathForbidden(`'${path}' climbs out with '..': paths stay under the desktop's home directory`)
    if (Buffer.byteLength(part) > NAME_MAX) throw new InvalidPath(`the name '${part.slice(0, 32)}…' is ${Buffer.byteLength(part)} bytes long, over the limit of ${NAME_MAX}`)
  }
  return parts
}

const inside = (home: string, path: string) => {
  const rest = relative(home, path)
  return rest === '' || (!rest.startsWith(`..${sep}`) && rest !== '..' && !rest.startsWith(sep))
}

/**
 * Resolves `path` under `home` (itself already a real path). Components that exist are
 * followed one by one; the first that does not ends the walk, and the rest is appended as
 * given (an upload creates it). A link that leads out of the home is refused (403), so is a
 * file met where a directory has to be (409).
 */
export async function resolveUnder (home: string, path: string): Promise<Resolved> {
  const parts = components(path)
  const shown = parts.join('/')
  let real = home
  let stats: Stats | undefined = await lstat(home)
  for (const [index, part] of parts.entries()) {
    if (!stats.isDirectory()) throw new PathConflict(`'${parts.slice(0, index).join('/')}' is a file, not a directory, so '${shown}' cannot be under it`)
    const next = join(real, part)
    const found = await lstat(next).catch(notFound)
    if (!found) return { shown, real: join(next, ...parts.slice(index + 1)), stats: undefined }
    real = next
    stats = found
    if (found.isSymbolicLink()) {
      const target = await realpath(next).catch(notFound)
      // A dangling link: what it names may be anywhere, and nothing is there to read.
      if (!target) throw new PathForbidden(`'${parts.slice(0, index + 1).join('/')}' is a symbolic link to nothing: it is not followed`)
      if (!inside(home, target)) throw new PathForbidden(`'${parts.slice(0, index + 1).join('/')}' is a symbolic link leading out of the desktop's home directory`)
      real = target
      stats = await lstat(target)
    }
  }
  return { shown, real, stats }
}

function notFound (error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined
  throw error
}
