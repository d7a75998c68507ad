/**
 * launch_app's `target`, checked before anything starts: what it becomes on the command line
 * (one argument after the program's own options) or, for a terminal, its working directory.
 * URLs only http(s) and file (a file URL, like a path, only under the desktop's home); paths
 * only under the home; nothing that starts with '-', which a program would read as an option.
 */
import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { InvalidAction, TargetNotAllowed } from '../errors/errors.ts'
import type { TargetKind } from '../runtime/desktop-apps.ts'
import { unreachable } from '../errors/unreachable.ts'

export interface LaunchTarget {
  /** Appended to the program's argv. */
  args: string[]
  /** The process's working directory. */
  cwd?: string
}

export function launchTarget (app: string, kind: TargetKind, target: string, home: string | undefined): LaunchTarget {
  if (target.includes('\0')) throw new InvalidAction(`target of app '${app}' holds a NUL character, which no path or URL may contain`)
  if (target.startsWith('-')) throw new InvalidAction(`target ${JSON.stringify(target)} of app '${app}' begins with '-', which the program would read as an option; give a path or URL`)
  switch (kind) {
    case 'url': {
      let url: URL
      try {
        url = new URL(target)
      } catch {
        throw new InvalidAction(`target of app '${app}' must be an http, https or file URL (got ${JSON.stringify(target)})`)
      }
      if (url.protocol === 'http:' || url.protocol === 'https:') return { args: [url.href] }
      if (url.protocol === 'file:') {
        underHome(app, filePath(app, target, url), home)
        return { args: [url.href] }
      }
      throw new TargetNotAllowed(`target of app '${app}' must be an http, https or file URL; ${url.protocol.slice(0, -1)} URLs are not opened`)
    }
    case 'path':
      return { args: [underHome(app, target, home)] }
    case 'directory':
      return { args: [], cwd: underHome(app, target, home) }
    default:
      return unreachable(kind, 'target kind')
  }
}

/**
 * The local path a file URL names, or a 400 saying why it names none. Checked here rather
 * than left to fileURLToPath, whose refusals (another host; '/' encoded as %2F, which would
 * hide a `..` from the URL parser) are plain errors, which would answer 500.
 */
function filePath (app: string, target: string, url: URL): string {
  if (url.hostname !== '' && url.hostname !== 'localhost') {
    throw new InvalidAction(`target of app '${app}' is a file URL on host '${url.hostname}'; only files on this machine are opened: file:///path (got ${JSON.stringify(target)})`)
  }
  if (/%2f/i.test(url.pathname)) {
    throw new InvalidAction(`target of app '${app}' encodes '/' as %2F, which hides the path's real parts; write the path's slashes as they are (got ${JSON.stringify(target)})`)
  }
  let path: string
  try {
    path = fileURLToPath(url)
  } catch (error) {
    throw new InvalidAction(`target of app '${app}' is not a file URL of a local path: ${(error as Error).message} (got ${JSON.stringify(target)})`)
  }
  if (path.includes('\0')) throw new InvalidAction(`target of app '${app}' encodes a NUL character (%00), which no path may contain (got ${JSON.stringify(target)})`)
  return path
}

/** The absolute path of `target` (relative ones are relative to the home), refused unless it lies under the home, symbolic links followed. */
function underHome (app: string, target: string, home: string | undefined): string {
  if (!home) throw new TargetNotAllowed(`app '${app}' takes no target: the desktop has no home directory (set --home or HOME)`)
  const path = resolve(home, target)
  const inside = (root: string, candidate: string) => {
    const rel = relative(root, candidate)
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
  }
  if (!inside(home, path) || !inside(real(home), real(path))) {
    throw new TargetNotAllowed(`target ${JSON.stringify(target)} of app '${app}' is outside the desktop's home ${home}; only paths under it are opened`)
  }
  return path
}

/** The path with symbolic links resolved, as far as it exists (a file about to be created has no real path yet). */
function real (path: string): string {
  try {
    return realpathSync(path)
  } catch {
    const parent = resolve(path, '..')
    return parent === path ? path : resolve(real(parent), relative(parent, path))
  }
}
