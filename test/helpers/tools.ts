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
  // 0755: the user must be able to pass through it to its home.
  const root = mkdtempSync(join(tmpdir(), 'tools-home-'))
  chmodSync(root, 0o755)
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const [home, outside] = ['home', 'outside'].map((name) => {
    mkdirSync(join(root, name), { mode: 0o700 })
    return join(root, name)
  }) as [string, string]
  chmodSync(outside, 0o755)
  chownSync(home, user.uid, user.gid)
  return { user, root, home, outside }
}

export const shellLimits = (limits: Partial<ShellLimits> = {}): ShellLimits => ({ ...DEFAULT_SHELL_LIMITS, ...limits })
