/**
 * An Xvfb of our own: started on a free display number (or a given one), awaited until it
 * answers the X protocol, keyboard layout pinned to US, stopped by PID. Several may start at
 * once (test files run in parallel): when Xvfb says the number is taken, the next is tried.
 */
import { execFile, spawn } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import { InvalidConfig } from '../../src/errors/errors.ts'
import { addCookie } from './authority.ts'
import { diesWithUs } from './orphan.ts'
import { claimFreeDisplayNumber, lockOwner, releaseDisplayNumber } from './free-display.ts'
import { displayNumber, probeDisplay } from './probe.ts'
import { START_TIMEOUT_MS } from '../start-timeout.ts'
import type { Log } from '../../src/runtime/logger.ts'
import { stopChild } from '../stop-child.ts'

const run = promisify(execFile)

export interface XvfbOptions {
  /** WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH, e.g. '1280x800x24'. */
  screen: string
  /** Exactly this display (e.g. ':99'); fails if it is taken. Default: a free one. */
  display?: string
  /** With no `display`: the first number to try (default 99). */
  from?: number
  /** How long Xvfb may take to answer (default START_TIMEOUT_MS). */
  timeoutMs?: number
  log?: Log
}

/** How the Xvfb process ended. */
export interface XvfbExit {
  code: number | null
  signal: NodeJS.Signals | null
  /** The tail of Xvfb's stderr, for messages. */
  stderr: string
}

export interface Xvfb {
  /** ':N' */
  display: string
  pid: number
  /** The Xauthority file with its cookie (XAUTHORITY for a client of our own). */
  authority: string
  /** Resolves when the process exits, for whatever reason (stop(), a crash, a kill). */
  exited: Promise<XvfbExit>
  /** True until the process has exited. */
  alive: () => boolean
  /** Calls `listener` once when the process exits (at once if it already has). */
  onExit: (listener: (exit: XvfbExit) => void) => void
  /** SIGTERM, SIGKILL after a grace period; resolves once the process has exited. Safe twice. */
  stop: () => Promise<void>
}

const SCREEN = /^\d+x\d+(x\d+)?$/
const MAX_ATTEMPTS = 20
const STOP_GRACE_MS = 2000

/** Marks an Xvfb that failed because its display number is in use, so the next may be tried. */
class DisplayTaken extends Error {}

/**
 * Starts Xvfb and resolves once it answers; rejects with InvalidConfig (and Xvfb's stderr)
 * if it is not installed, exits, or does not answer within the timeout.
 */
export async function startXvfb (options: XvfbOptions): Promise<Xvfb> {
  if (!SCREEN.test(options.screen)) throw new InvalidConfig(`screen '${options.screen}' is not WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH, e.g. 1280x800x24`)
  if (options.display) {
    return startOn(displayNumber(options.display), options).catch((error: unknown) => {
      if (error instanceof DisplayTaken) throw new InvalidConfig(`display ${options.display} is taken by another X server: ${error.message}`)
      throw error
    })
  }
  let from = options.from ?? 99
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const number = claimFreeDisplayNumber(from)
    try {
      return await startOn(number, options)
    } catch (error) {
      releaseDisplayNumber(number)
      if (!(error instanceof DisplayTaken)) throw error
      options.log?.info({ display: `:${number}` }, 'display number taken meanwhile; trying the next')
      from = number + 1
    }
  }
  throw new InvalidConfig(`could not start Xvfb: ${MAX_ATTEMPTS} display numbers from :${options.from ?? 99} were taken one after another`)
}

async function startOn (number: number, options: XvfbOptions): Promise<Xvfb> {
  const display = `:${number}`
  const screen = /x\d+x\d+$/.test(options.screen) ? options.screen : `${options.screen}x24`
  // -noreset: without it the server resets whenever its last client disconnects, which
  // throws away the keyboard layout pinned below (and anything else set on it).
  // -nolisten local: no abstract socket (-nolisten unix-abstract leaves it open on this
  // Xvfb), only the socket file, the one thing the probe and the free-number search look at.
  // -auth: the socket file is world-writable; only a client with our cookie gets in.
  const authority = addCookie(number)
  const [command, args] = diesWithUs('Xvfb', [display, '-screen', '0', screen, '-auth', authority.path,
    '-nolisten', 'tcp', '-nolisten', 'local', '-noreset'])
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-4000) })
  let exit: XvfbExit | undefined
  let settle: (exit: XvfbExit) => void
  const exited = new Promise<XvfbExit>((resolve) => { settle = resolve })
  const ended = (code: number | null, signal: NodeJS.Signals | null) => {
    if (exit) return
    exit = { code, signal, get stderr () { return stderr.trim() } }
    releaseDisplayNumber(number)
    settle(exit)
  }
  child.once('exit', ended)
  let spawnFailure: Error | undefined
  child.once('error', (error: NodeJS.ErrnoException) => {
    spawnFailure = new InvalidConfig(error.code === 'ENOENT'
      ? 'Xvfb is not installed: run `npm run setup` (or apt-get install xvfb)'
      : `could not start Xvfb: ${error.message}`)
    ended(null, null)
  })

  const kill = async () => {
    if (!exit) await stopChild({ signal: (name) => child.kill(name), exited }, STOP_GRACE_MS)
  }

  try {
    await untilAnswers(display, child.pid!, options.timeoutMs ?? START_TIMEOUT_MS, () => spawnFailure, () => exit, () => stderr)
  } catch (error) {
    await kill()
    throw error
  }

  // Key names and typed characters must mean the same on every machine.
  await run('setxkbmap', ['-display', display, 'us'], { timeout: 5000 }).catch((error: Error) =>
    options.log?.warn({ err: error, display }, 'setxkbmap failed; keeping the X server default layout'))

  return {
    display,
    authority: authority.path,
    pid: child.pid!,
    exited,
    alive: () => !exit,
    onExit: (listener) => { void exited.then(listener) },
    stop: kill,
  }
}

/**
 * Polls the X handshake until our Xvfb answers; fails at once if it exits or cannot be
 * spawned. An answer alone is not enough: when another process started an X server on the
 * same number a moment earlier, that server answers while ours is still on its way to
 * failing. The lock file says whose server it is.
 */
async function untilAnswers (display: string, pid: number, timeoutMs: number, spawnFailure: () => Error | undefined,
  exit: () => XvfbExit | undefined, stderr: () => string): Promise<void> {
  const number = displayNumber(display)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const failure = spawnFailure()
    if (failure) throw failure
    if (exit()) {
      await delay(50) // the last words on stderr may still be on their way
      const tail = stderr().trim().split('\n').filter(Boolean).slice(-3).join(' / ')
      // Xvfb's words when the lock file or the socket belongs to a live server.
      if (/already active|already running|Cannot establish any listening sockets|Address already in use/i.test(stderr())) throw new DisplayTaken(tail)
      throw new InvalidConfig(`Xvfb ${display} exited at start (${exit()!.signal ?? `code ${exit()!.code}`}): ${tail}`)
    }
    const answered = await probeDisplay(display, 500).then(() => true, () => false)
    if (answered && lockOwner(number) === pid) return
    // Not answering yet, or someone else's server answering: ours is then about to give up,
    // and the exit branch above reports it.
    if (exit()) continue
    if (Date.now() > deadline) throw new InvalidConfig(`Xvfb ${display} did not answer within ${timeoutMs} ms${stderr() ? `: ${stderr().trim()}` : ''}`)
    await delay(20)
  }
}
