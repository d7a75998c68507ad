/**
 * Whether the shell's commands could read the server's own token. A server that is not root
 * runs them as itself, and a process of the same user reads another's /proc/PID/environ (which
 * keeps API_TOKEN as the server was started with it, whatever the server then removes from its
 * environment), /proc/PID/mem and every file that user may read: the token file among them.
 * The kernel closes the first two only for a process that is not dumpable, which a server
 * becomes by executing a node binary its user cannot read (the image's, root's and mode 0711):
 * its /proc files are then root's. Checked once at start, so the server says so in its log.
 */
import { statSync } from 'node:fs'

export interface TokenReachInput {
  /** The server's uid: commands run as this user unless it is root. */
  uid: number
  /** The token file the server read (--token-file, API_TOKEN_FILE), if any. */
  tokenFile?: string | undefined
  /** The owner of this process's /proc/PID/environ: the server's uid while it is dumpable, root's when not. */
  environOwner?: () => number
}

const ownEnvironOwner = (): number => statSync('/proc/self/environ').uid

/** What of the token the shell's commands can read; empty when nothing is in reach. */
export function tokenInReach ({ uid, tokenFile, environOwner = ownEnvironOwner }: TokenReachInput): string[] {
  if (uid === 0) return []
  const reach: string[] = []
  if (environOwner() === uid) reach.push(`the environment this server started with and its memory (/proc/${process.pid}/environ, /proc/${process.pid}/mem)`)
  if (tokenFile !== undefined) reach.push(`the token file ${tokenFile}`)
  return reach
}

/** The start-up warning for `reach` (never the token itself). */
export function tokenReachWarning (uid: number, reach: string[]): string {
  return `--shell runs commands as this server's own user (uid ${uid}), who can read the token: ${reach.join(', and ')}. ` +
    'To keep it from them, run the server as another user than the desktop\'s: as root with --home a directory of the desktop\'s user ' +
    '(commands then run as that user), or, for the environment and memory, with a node binary of root\'s that its user may execute ' +
    'but not read (chmod 0711), as the image does, and the token in API_TOKEN rather than a file'
}
