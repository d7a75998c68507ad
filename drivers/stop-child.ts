/**
 * How every process the desktop starts (Xvfb, the window manager, launched applications, the
 * accessibility bus, the nut worker) is ended: asked first, so it can clean up after itself
 * (Xvfb its lock file, a launcher its children), killed if it has not gone after a grace period.
 */
import type { ChildProcess } from 'node:child_process'

export interface Stoppable {
  /** Sends a signal to the process (or to its process group). */
  signal: (name: NodeJS.Signals) => void
  /** Resolves once the process has exited. */
  exited: Promise<unknown>
}

/** SIGTERM, then SIGKILL after `graceMs` if still running; resolves once the process has exited. */
export async function stopChild ({ signal, exited }: Stoppable, graceMs: number): Promise<void> {
  signal('SIGTERM')
  const timer = setTimeout(() => signal('SIGKILL'), graceMs)
  try {
    await exited
  } finally {
    clearTimeout(timer)
  }
}

/** Signals a process group by its leader's PID (a child spawned `detached`); the process alone when it leads none. */
export function signalGroup (pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    try { process.kill(pid, signal) } catch { /* already gone */ }
  }
}

export interface ChildExit { code: number | null, signal: string | null }

/** A child's exit: `exited` resolves with it; `exit()` is it once it has happened, undefined while the child runs. */
export function watchExit (child: ChildProcess): { exited: Promise<ChildExit>, exit: () => ChildExit | undefined } {
  let exit: ChildExit | undefined
  const exited = new Promise<ChildExit>((resolve) => child.once('exit', (code, signal) => {
    exit = { code, signal }
    resolve(exit)
  }))
  return { exited, exit: () => exit }
}
