/**
 * The shell (--shell): one-shot commands and named persistent bash sessions, as the desktop's
 * user, in its home, on its display, with an environment holding none of the server's secrets.
 * The executor calls it for the `run_command` and `bash` actions; Scrapybara's code/execute
 * for its persistent python3 kernels.
 *
 * A session's key is its client's scope and its name (`<scope>/<name>`; an HTTP caller's names
 * have no scope, an MCP client's carry its session's), so two clients naming the same session
 * get a bash each; a kernel's key is `kernel:<name>`. Names never hold '/' or ':', so no key is
 * another's. Every kind counts against one limit, --shell-max-sessions.
 */
import { randomBytes } from 'node:crypto'
import { chown, copyFile, mkdtemp, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ShellSessionLimit } from '../errors/errors.ts'
import { shellEnvironment } from './environment.ts'
import { runOnce, type CommandResult, type RunBounds } from './one-shot.ts'
import { startCommand } from './processes.ts'
import { PYTHON_KERNEL } from './python-kernel.ts'
import { BashSession, type SessionDialect, type SessionResult } from './session.ts'
import { shellUser, type ShellUser } from './user.ts'

export interface ShellLimits {
  /** A command's wall time when the call names none, and the most a call may name. */
  timeoutMs: number
  maxTimeoutMs: number
  /** Bytes kept of each of stdout and stderr per command. */
  maxOutputBytes: number
  /** Tasks a command may add to the desktop user's (RLIMIT_NPROC above what the user runs). */
  maxProcesses: number
  /** Persistent sessions at once (bash sessions of every client, and python3 kernels). */
  maxSessions: number
  /** How long an MCP client's session sits idle before it may be ended to make room (default SCOPED_IDLE_MS). */
  scopedIdleMs?: number
}

/**
 * At the limit, a session of an MCP client's idle this long is ended to make room: a client
 * that went away without ending its MCP session does not hold its slots until the server ends.
 */
export const SCOPED_IDLE_MS = 10 * 60_000

export const DEFAULT_SHELL_LIMITS: ShellLimits = {
  timeoutMs: 30_000,
  maxTimeoutMs: 600_000,
  maxOutputBytes: 1024 * 1024,
  maxProcesses: 256,
  maxSessions: 8,
}

/**
 * The tasks a launched application may add to the user's: an application is large where a
 * command is not. Firefox on one page runs ~180 threads across its processes and a browser
 * grows by tens a tab, so a command's allowance (256) let a launched Firefox fail to start a
 * thread, and crash, once a few sites were open; a fork bomb launched still stops here.
 */
export const LAUNCHED_TASKS = 4096

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
  /** Each kernel's last call, which the next one waits for. */
  readonly #turns = new Map<string, Promise<void>>()
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
   * on): as the user, within RLIMIT_NPROC (LAUNCHED_TASKS above what the user runs, or the
   * commands' allowance if larger), its output discarded, in a process group of its own.
   * It is not swept as a finished command's leftovers are; it ends on its own or with the server
   * (setpriv's parent-death signal). Resolves once it has started, rejects if it could not be.
   */
  async launch (argv: readonly string[]): Promise<void> {
    const user = await this.#who()
    const { child } = await startCommand(argv, user, await this.#environment(user), Math.max(this.limits.maxProcesses, LAUNCHED_TASKS), 'ignore')
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve)
      child.once('error', reject)
    })
    child.unref()
  }

  /**
   * Whether the session `key` may be used now: an open session, or room for one more — made,
   * at the limit, by ending the MCP client's session idle the longest, past `scopedIdleMs`.
   */
  sessionAllowed (key: string): boolean {
    if (this.#sessions.has(key) || this.#sessions.size < this.limits.maxSessions) return true
    const idleMs = this.limits.scopedIdleMs ?? SCOPED_IDLE_MS
    const now = Date.now()
    const [stale] = [...this.#sessions]
      .filter(([name, session]) => name.includes('/') && !session.busy && now - session.lastUsed >= idleMs)
      .sort(([, a], [, b]) => a.lastUsed - b.lastUsed)
    if (!stale) return false
    this.#sessions.delete(stale[0])
    void stale[1].close()
    return true
  }

  async session (key: string, command: string, timeoutMs: number, signal?: AbortSignal, dialect?: SessionDialect): Promise<SessionResult> {
    const user = await this.#who()
    let session = this.#sessions.get(key)
    if (!session) {
      const env = await this.#environment(user)
      session = new BashSession(user, () => env, this.#bounds(timeoutMs), dialect)
      this.#sessions.set(key, session)
    }
    return session.run(command, timeoutMs, signal)
  }

  /**
   * Runs `code` in the persistent python3 kernel `name` (its key `kernel:<name>`), after the
   * calls before it on the same kernel (bash sessions are taken in turn by the executor's
   * queue; kernels are called beside it).
   */
  async kernel (name: string, code: string, timeoutMs: number, signal?: AbortSignal): Promise<SessionResult> {
    const key = `kernel:${name}`
    if (!this.sessionAllowed(key)) throw new ShellSessionLimit(`${this.limits.maxSessions} sessions are open (--shell-max-sessions): restart a bash session before starting the ${name} kernel`)
    const before = this.#turns.get(key) ?? Promise.resolve()
    const turn = before.then(() => this.session(key, code, timeoutMs, signal, PYTHON_KERNEL))
    const settled = turn.then(() => {}, () => {})
    this.#turns.set(key, settled)
    void settled.then(() => { if (this.#turns.get(key) === settled) this.#turns.delete(key) })
    return turn
  }

  /** Ends every session of one client's scope (an MCP session that ended), and what each started. */
  async endScope (scope: string): Promise<number> {
    const keys = [...this.#sessions.keys()].filter((key) => key.startsWith(`${scope}/`))
    await Promise.all(keys.map((key) => this.restart(key)))
    return keys.length
  }

  /** Ends a session and what it started; the next command in it starts afresh. */
  async restart (key: string): Promise<void> {
    const session = this.#sessions.get(key)
    this.#sessions.delete(key)
    await session?.close()
  }

  async close (): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((key) => this.restart(key)))
    if (this.#xauthDir) await rm(this.#xauthDir, { recursive: true, force: true })
  }
}
