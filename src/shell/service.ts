/**
 * The shell (--shell): one-shot commands and named persistent bash sessions, as the desktop's
 * user, in its home, on its display, with an environment holding none of the server's secrets.
 * The executor calls it for the `run_command` and `bash` actions.
 */
import { randomBytes } from 'node:crypto'
import { chown, copyFile, mkdtemp, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { shellEnvironment } from './environment.ts'
import { runOnce, type CommandResult, type RunBounds } from './one-shot.ts'
import { startCommand } from './processes.ts'
import { BashSession, type SessionResult } from './session.ts'
import { shellUser, type ShellUser } from './user.ts'

export interface ShellLimits {
  /** A command's wall time when the call names none, and the most a call may name. */
  timeoutMs: number
  maxTimeoutMs: number
  /** Bytes kept of each of stdout and stderr per command. */
  maxOutputBytes: number
  /** Tasks a command may add to the desktop user's (RLIMIT_NPROC above what the user runs). */
  maxProcesses: number
  /** Persistent sessions at once. */
  maxSessions: number
}

export const DEFAULT_SHELL_LIMITS: ShellLimits = {
  timeoutMs: 30_000,
  maxTimeoutMs: 600_000,
  maxOutputBytes: 1024 * 1024,
  maxProcesses: 256,
  maxSessions: 8,
}

export interface ShellOptions {
  home: string
  limits: ShellLimits
  /** The desktop's X display, once known. */
  display: () => string | undefined
}

export class ShellService {
  readonly limits: ShellLimits
  readonly #home: string
  readonly #display: () => string | undefined
  readonly #sessions = new Map<string, BashSession>()
  #user: ShellUser | undefined
  /** The X cookie copied for a user the server changes to (the server's own file is private to it). */
  #xauthDir: string | undefined

  constructor (options: ShellOptions) {
    this.limits = options.limits
    this.#home = options.home
    this.#display = options.display
  }

  async #who (): Promise<ShellUser> {
    // Not kept when refused: the home may be made, or given to its user, later.
    this.#user ??= await shellUser(this.#home)
    return this.#user
  }

  async #environment (user: ShellUser): Promise<Record<string, string>> {
    let xauthority = process.env.XAUTHORITY
    if (xauthority && user.switches) {
      this.#xauthDir ??= await mkdtemp(join(tmpdir(), 'computer-gateway-shell-'))
      await chown(this.#xauthDir, user.uid, user.gid)
      const copy = join(this.#xauthDir, 'Xauthority')
      // Written aside and renamed over: a program starting now (one /setup/launch started) reads
      // the whole old file or the whole new one, never one being rewritten, which it would refuse.
      const next = `${copy}.${randomBytes(4).toString('hex')}`
      await copyFile(xauthority, next)
      await chown(next, user.uid, user.gid)
      await rename(next, copy)
      xauthority = copy
    }
    return shellEnvironment(user, { display: this.#display(), xauthority })
  }

  /** Refuses, before anything of a batch runs, when commands cannot run as the desktop's user (a home of root's, or none). */
  async check (): Promise<void> {
    await this.#who()
  }

  #bounds (timeoutMs: number): RunBounds {
    return { timeoutMs, maxOutputBytes: this.limits.maxOutputBytes, maxProcesses: this.limits.maxProcesses }
  }

  async runOnce (argv: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<CommandResult> {
    const user = await this.#who()
    return runOnce(argv, user, await this.#environment(user), this.#bounds(timeoutMs), signal)
  }

  /**
   * Starts a program that is to outlive the call (OSWorld's /setup/launch: an application to act
   * on): as the user, within RLIMIT_NPROC, its output discarded, in a process group of its own.
   * It is not swept as a finished command's leftovers are; it ends on its own or with the server
   * (setpriv's parent-death signal). Resolves once it has started, rejects if it could not be.
   */
  async launch (argv: readonly string[]): Promise<void> {
    const user = await this.#who()
    const { child } = await startCommand(argv, user, await this.#environment(user), this.limits.maxProcesses, 'ignore')
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve)
      child.once('error', reject)
    })
    child.unref()
  }

  /** Whether `name` may be used now: an open session, or room for one more. */
  sessionAllowed (name: string): boolean {
    return this.#sessions.has(name) || this.#sessions.size < this.limits.maxSessions
  }

  async session (name: string, command: string, timeoutMs: number, signal?: AbortSignal): Promise<SessionResult> {
    const user = await this.#who()
    let session = this.#sessions.get(name)
    if (!session) {
      const env = await this.#environment(user)
      session = new BashSession(user, () => env, this.#bounds(timeoutMs))
      this.#sessions.set(name, session)
    }
    return session.run(command, timeoutMs, signal)
  }

  /** Ends a session and what it started; the next command in it starts afresh. */
  async restart (name: string): Promise<void> {
    const session = this.#sessions.get(name)
    this.#sessions.delete(name)
    await session?.close()
  }

  async close (): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((name) => this.restart(name)))
    if (this.#xauthDir) await rm(this.#xauthDir, { recursive: true, force: true })
  }
}
