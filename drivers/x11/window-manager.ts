/**
 * The window manager on our own Xvfb: jwm (small, EWMH-compliant, needs no session), with
 * our configuration (./jwmrc), started once X answers, awaited until it announces itself on
 * the root window, stopped by PID. On a DISPLAY the user gave, the user's desktop has its own
 * and none is started.
 *
 * Not openbox: it spends ~50 ms on every keymap change (it regrabs its key bindings), and the
 * text typer changes the keymap for every character the layout lacks — 200 such changes kept
 * openbox from mapping a window for 11 s, jwm for 49 ms (measured here).
 */
import { spawn } from 'node:child_process'
import { diesWithUs } from './orphan.ts'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import type { Log } from '../../src/runtime/logger.ts'
import { stopChild, watchExit } from '../stop-child.ts'

export const WINDOW_MANAGER = 'jwm'
const CONFIG = fileURLToPath(new URL('./jwmrc', import.meta.url))
const STOP_GRACE_MS = 2000

export interface WindowManagerOptions {
  display: string
  /** The program (default jwm, given our configuration); another takes no arguments. */
  command?: string
  log: Log
  /** True once a window manager announces itself (Ewmh.managed). */
  managed: () => Promise<boolean>
  /** How long it may take to announce itself (default 5 s). */
  timeoutMs?: number
}

export interface WindowManager {
  pid: number
  /** Resolves when the process exits, for whatever reason. */
  exited: Promise<{ code: number | null, signal: string | null }>
  /** SIGTERM, SIGKILL after a grace period; resolves once it has exited. Safe twice. */
  stop: () => Promise<void>
}

/** Starts jwm on `display`; rejects with the reason when it is not installed, exits, or never announces itself. */
export async function startWindowManager (options: WindowManagerOptions): Promise<WindowManager> {
  const { display, log, command = WINDOW_MANAGER } = options
  const [file, args] = diesWithUs(command, command === WINDOW_MANAGER ? ['-f', CONFIG] : [])
  const child = spawn(file, args, { env: { ...process.env, DISPLAY: display }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000)
    log.debug({ display, stderr: chunk.trim() }, 'window manager output')
  })
  const { exited, exit } = watchExit(child)
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve)
    child.once('error', (error: NodeJS.ErrnoException) => reject(new Error(error.code === 'ENOENT'
      ? `${command} is not installed: run \`npm run setup\` (or apt-get install ${command})`
      : `could not start ${command}: ${error.message}`)))
  })
  await spawned
  const stop = async () => {
    if (!exit()) await stopChild({ signal: (name) => child.kill(name), exited }, STOP_GRACE_MS)
  }
  const deadline = Date.now() + (options.timeoutMs ?? 5000)
  for (;;) {
    const ended = exit()
    if (ended) {
      await delay(20) // its last words may still be on their way
      const tail = stderr.trim().split('\n').filter(Boolean).slice(-2).join(' / ')
      throw new Error(`${command} exited at start (${ended.signal ?? `code ${ended.code}`})${tail ? `: ${tail}` : ''}`)
    }
    if (await options.managed().catch(() => false)) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`${command} did not take over ${display} within ${options.timeoutMs ?? 5000} ms`)
    }
    await delay(25)
  }
  log.info({ display, pid: child.pid }, 'started the window manager')
  return { pid: child.pid!, exited, stop }
}
