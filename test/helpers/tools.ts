/**
 * The shell's and the editor's fixtures: a desktop home owned by a second local user made for
 * the test (root only), removed with the user at teardown.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_SHELL_LIMITS, type ShellLimits } from '../../src/shell/service.ts'
import { secondUser } from './files.ts'

interface TestContext { teardown: (fn: () => unknown) => void }

/** A scratch root (0755) holding `home` (0700, the second user's) and `outside` (root's, beside it). */
export function desktopHome (t: TestContext) {
  const user = secondUser(t)
  const root = mkdtempSync(join(tmpdir(), 'tools-home-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  chmodSync(root, 0o755)
  const home = join(root, 'home')
  const outside = join(root, 'outside')
  mkdirSync(home)
  mkdirSync(outside)
  chownSync(home, user.uid, user.gid)
  chmodSync(home, 0o700)
  return { user, root, home, outside }
}

export const shellLimits = (limits: Partial<ShellLimits> = {}): ShellLimits => ({ ...DEFAULT_SHELL_LIMITS, ...limits })
