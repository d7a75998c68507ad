/** The one PATH lookup: where a program is, before anything is spawned that would fail on it. */
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

function isExecutable (path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Where `command` is on PATH (or itself, when it is a path that exists), else undefined. */
export function which (command: string): string | undefined {
  if (command.includes('/')) return isExecutable(command) ? command : undefined
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const path = join(dir, command)
    if (isExecutable(path)) return path
  }
  return undefined
}
