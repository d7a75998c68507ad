/**
 * Every process a test (or the bench) starts goes through here, so that none outlives it:
 *
 * - The program is looked up on PATH first: a missing one fails with one line that names it
 *   and `npm run setup`, before anything is spawned (a spawn ENOENT is an 'error' event,
 *   which unhandled ends the test file before its teardowns run).
 * - Its teardown is registered before the spawn, so a failure anywhere after still ends it.
 * - It runs under `setpriv --pdeathsig SIGKILL` (util-linux, on every Debian): the kernel kills
 *   it when this process dies, however it dies — an uncaught exception, tap's timeout, SIGKILL.
 * - A last net: on this process' exit every process still running is killed by PID (and by
 *   process group where it has one), synchronously.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { existsSync } from 'node:fs'
import { which } from '../../drivers/x11/which.ts'

export { which }

interface TestContext { teardown: (fn: () => unknown) => void }

const STOP_GRACE_MS = 1000

/** The program's path, or an error that says what is missing and how to get it. */
export function requireProgram (command: string, purpose?: string): string {
  const path = which(command)
  if (path) return path
  throw new Error(`${command} is not installed${purpose ? ` (${purpose})` : ''}: run npm run setup`)
}

/**
 * Debian's Chromium: the binary itself, not the /usr/bin wrapper script (which adds flags of
 * its own), found through the wrapper on PATH so that a machine without it says so.
 */
export function chromiumBinary (): string {
  const onPath = which('chromium') ?? which('chromium-browser')
  if (!onPath) throw new Error('chromium is not installed (the tests\' event oracle and accessibility pages run in it): run npm run setup')
  return existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : onPath
}

const SETPRIV = which('setpriv')
/** Processes started here and still running, with whether they lead a process group. */
const running = new Map<ChildProcess, boolean>()

process.once('exit', () => {
  for (const [child, group] of running) kill(child, group, 'SIGKILL')
})

function kill (child: ChildProcess, group: boolean, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    if (group) process.kill(-child.pid, signal)
    else child.kill(signal)
  } catch { /* already gone */ }
}

export interface OwnedOptions extends SpawnOptions {
  /** Kill its whole process group (it is started detached, as its own group's leader): Chromium's helpers go with it. */
  group?: boolean
  /** What the program is needed for, in the message when it is missing. */
  purpose?: string
}

/** Ends `child` (SIGTERM, SIGKILL after a grace) and waits for its exit. */
export async function stopOwned (child: ChildProcess, group = false, graceMs = STOP_GRACE_MS): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  kill(child, group, 'SIGTERM')
  const timer = setTimeout(() => kill(child, group, 'SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/**
 * Spawns `command` owned by the test `t` (or by nobody but this process, without one): ended
 * at teardown, and with this process at the latest. `command` may be a name on PATH or a path.
 */
export function spawnOwned (t: TestContext | undefined, command: string, args: readonly string[], options: OwnedOptions = {}): ChildProcess {
  const { group = false, purpose, ...spawnOptions } = options
  const path = requireProgram(command, purpose)
  let child: ChildProcess | undefined
  t?.teardown(async () => { if (child) await stopOwned(child, group) })
  const [file, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', path, ...args]] : [path, [...args]]
  child = spawn(file, argv, { ...spawnOptions, ...(group && { detached: true }) })
  running.set(child, group)
  child.once('exit', () => running.delete(child!))
  // Reported by whoever waits for the program; unhandled it would end this process.
  child.on('error', () => running.delete(child!))
  return child
}
