/**
 * One command to its end: argv as given, or a line through `bash -c`. It ends when its first
 * process exits (what it left running in its group is ended then), or at its timeout, when
 * everything it started is killed and the result says so.
 */
import { Capped, endAll, startCommand } from './processes.ts'
import type { ShellUser } from './user.ts'

export interface CommandResult {
  exit_code: number | null
  /** The signal that ended the command, when one did. */
  signal: string | null
  stdout: string
  stderr: string
  /** Bytes the command wrote to each stream, kept or not. */
  stdout_bytes: number
  stderr_bytes: number
  /** A stream wrote more than the cap: what is shown is its start. */
  truncated: boolean
  timed_out: boolean
}

export interface RunBounds { timeoutMs: number, maxOutputBytes: number, maxProcesses: number }

/** How long the streams may stay open once the command's processes are ended. */
const DRAIN_MS = 2000

export async function runOnce (argv: readonly string[], user: ShellUser, env: Record<string, string>, bounds: RunBounds, signal?: AbortSignal): Promise<CommandResult> {
  const started = await startCommand(argv, user, env, bounds.maxProcesses)
  const { child } = started
  child.stdin!.end()
  const out = new Capped(bounds.maxOutputBytes)
  const err = new Capped(bounds.maxOutputBytes)
  child.stdout!.on('data', (chunk: Buffer) => out.add(chunk))
  child.stderr!.on('data', (chunk: Buffer) => err.add(chunk))
  let timedOut = false
  const exited = new Promise<{ code: number | null, signal: string | null }>((resolve) => {
    child.once('exit', (code, sig) => resolve({ code, signal: sig }))
    child.once('error', () => resolve({ code: 127, signal: null }))
  })
  const streamsClosed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const timer = setTimeout(() => {
    timedOut = true
    void endAll(started)
  }, bounds.timeoutMs)
  const abort = () => { void endAll(started) }
  signal?.addEventListener('abort', abort, { once: true })
  try {
    const end = await exited
    // What it left behind in its group goes with it (a GUI program to keep: `setsid prog &`).
    await endAll(started)
    await Promise.race([streamsClosed, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))])
    child.stdout!.destroy()
    child.stderr!.destroy()
    return {
      exit_code: end.code,
      signal: end.signal,
      stdout: out.text(),
      stderr: err.text(),
      stdout_bytes: out.total,
      stderr_bytes: err.total,
      truncated: out.truncated || err.truncated,
      timed_out: timedOut,
    }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', abort)
  }
}
