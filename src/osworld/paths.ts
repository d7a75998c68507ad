/**
 * OSWorld names files as its VM's user sees them: `~/Desktop/a.xlsx`, `$HOME/…` or an absolute
 * path. Here every file lies under the desktop's home, served through the home jail
 * (src/files): a path is turned into one relative to the home, or refused when it names a
 * place outside it. What the jail then refuses (`..` out, links pointing out) it refuses itself.
 */
import { posix } from 'node:path'
import { PathForbidden } from '../errors/errors.ts'

export function homeRelative (path: string, home: string): string {
  const expanded = path.replace(/^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/, home)
  if (!expanded.startsWith('/')) return expanded
  const normalized = posix.normalize(expanded)
  const root = posix.normalize(home).replace(/\/+$/, '')
  if (normalized === root || normalized === `${root}/`) return ''
  if (normalized.startsWith(`${root}/`)) return normalized.slice(root.length + 1)
  throw new PathForbidden(`'${path}' lies outside the desktop's home (${root}): this server reads and writes files under it only; name it as ~/… or ${root}/…`)
}
