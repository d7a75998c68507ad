/**
 * Starts allowed applications on a display: argv as given (never a shell), DISPLAY and the
 * accessibility bus's addresses set, no stdin, stdout/stderr to the log at debug. Every
 * process is remembered by PID and ended (its process group: what it started goes with it)
 * when the launcher stops.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { diesWithUs } from './orphan.ts'
import { yieldToServer } from './app-priority.ts'
import type { LaunchedApp } from '../../src/driver/driver.ts'
import type { Log } from '../../src/runtime/logger.ts'
import { signalGroup, stopChild } from '../stop-child.ts'

const STOP_GRACE_MS = 2000

/** The process group of `pid` (/proc/PID/stat's fifth field), undefined when it is gone. */
function processGroup (pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
  } catch {
    return undefined
  }
}

export class Launcher {
  readonly #log: Log
  readonly #running = new Map<number, { child: ChildProcess, exited: Promise<void> }>()

  constructor (log: Log) {
    this.#log = log
  }

  /** PIDs of the launched processes still running. */
  get pids (): number[] { return [...this.#running.keys()] }

  /**
   * Spawns argv on `display` with `env` added to the server's environment (the accessibility
   * bus's addresses); resolves once it runs, rejects when it cannot be started (e.g. not installed).
   */
  launch (argv: readonly string[], display: string, env: Readonly<Record<string, string>> = {}, cwd?: string): Promise<LaunchedApp> {
    const [command, ...args] = argv
    // Its own process group, so that stop() ends what it started too.
    const [file, fileArgs] = diesWithUs(command!, args)
    const child = spawn(file, fileArgs, { env: { ...process.env, ...env, DISPLAY: display }, stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...(cwd !== undefined && { cwd }) })
    // At once: the child has only just been forked, before it can start processes of its own.
    if (child.pid !== undefined) yieldToServer(child.pid)
    let exit: { code: number | null, signal: string | null } | undefined
    const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
      exit = { code, signal }
      this.#running.delete(child.pid!)
      this.#log.info({ pid: child.pid, command, code, signal }, 'launched app exited')
      resolve()
    }))
    for (const [stream, name] of [[child.stdout!, 'stdout'], [child.stderr!, 'stderr']] as const) {
      createInterface({ input: stream }).on('line', (line) => this.#log.debug({ pid: child.pid, command, [name]: line }, 'launched app output'))
    }
    return new Promise((resolve, reject) => {
      child.once('error', (error) => reject(error))
      child.once('spawn', () => {
        this.#running.set(child.pid!, { child, exited })
        this.#log.info({ pid: child.pid, argv, display }, 'launched app')
        resolve({ pid: child.pid!, exit: () => exit, owns: (pid) => processGroup(pid) === child.pid })
      })
    })
  }

  /** Ends every launched process still running: SIGTERM to its group, SIGKILL after a grace period. */
  async stop (): Promise<void> {
    await Promise.all([...this.#running.entries()].map(([pid, { exited }]) =>
      stopChild({ signal: (name) => signalGroup(pid, name), exited }, STOP_GRACE_MS)))
  }
}
