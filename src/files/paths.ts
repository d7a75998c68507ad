/**
 * A client's path taken apart by hand rather than through path.resolve, so that `..` is
 * refused rather than folded away. Where the parts land is dir-handle.ts's work: one
 * component at a time, through directories held open.
 */
import { InvalidPath, PathForbidden } from '../errors/errors.ts'

/** Linux's NAME_MAX and PATH_MAX, in bytes: longer names fail in the kernel with a less helpful error. */
export const NAME_MAX = 255
export const PATH_MAX = 4096

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
