/**
 * A VNC server (x11vnc) on one of our displays, for the live view. It listens on a unix socket
 * in a private 0700 directory and on no TCP port at all (`-rfbport 0`), so only this process
 * reaches it; the live view's WebSocket bridge is the one way in from outside, behind the
 * token. View-only unless the server was started with control allowed: then x11vnc injects
 * the browser's input itself (through XTEST, like the drivers).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import type { Log } from '../../src/runtime/logger.ts'
import { stopChild } from '../stop-child.ts'
import { xEnv } from './authority.ts'
import { diesWithUs } from './orphan.ts'

const STOP_GRACE_MS = 2000
const START_TIMEOUT_MS = 10_000

export interface VncServer {
  display: string
  pid: number
  /** The unix socket x11vnc listens on. */
  socket: string
  /** Resolves when x11vnc exits, for whatever reason (its X server died, stop()). */
  exited: Promise<{ code: number | null, signal: string | null }>
  alive: () => boolean
  /** SIGTERM, SIGKILL after a grace period; removes the socket's directory. Safe twice. */
  stop: () => Promise<void>
}

export interface VncOptions {
  display: string
  /** The browser may send input (mouse and keyboard); default false: x11vnc drops all of it. */
  control?: boolean
  log: Log
}

/** Starts x11vnc on `display`; resolves once it answers on its socket, rejects saying why not. */
export async function startVnc (options: VncOptions): Promise<VncServer> {
  const { display, log } = options
  const directory = mkdtempSync(join(tmpdir(), 'computer-gateway-vnc-'))
  const socket = join(directory, 'rfb.sock')
  const env = xEnv(display)
  const args = [
    '-display', display, ...(env.XAUTHORITY ? ['-auth', env.XAUTHORITY] : []),
    // No TCP listener at all, only the socket (-rfbport 0 alone still listened on [::]:5900;
    // -rfbportv6 -1 closes that); no password: the socket's directory is ours alone.
    '-rfbport', '0', '-rfbportv6', '-1', '-unixsock', socket, '-nopw', '-noipv6', '-nolookup',
    // Several tabs may watch at once, and the server keeps running after the last one leaves.
    '-shared', '-forever',
    // No naps when the screen is idle, and short waits between polls: a change (a window an
    // action moved) shows within a fraction of a second rather than after x11vnc wakes up.
    '-nonap', '-wait', '10', '-defer', '10', '-nowf', '-cursor', 'arrow',
    ...(options.control ? [] : ['-viewonly']),
  ]
  const [command, argv] = diesWithUs('x11vnc', args)
  const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-4000) })
  let exit: { code: number | null, signal: string | null } | undefined
  const exited = new Promise<{ code: number | null, signal: string | null }>((resolve) => child.once('exit', (code, signal) => {
    exit = { code, signal }
    rmSync(directory, { recursive: true, force: true })
    resolve(exit)
  }))
  let spawnFailure: Error | undefined
  child.once('error', (error: NodeJS.ErrnoException) => {
    spawnFailure = new Error(error.code === 'ENOENT'
      ? 'x11vnc is not installed: run `npm run setup` (or apt-get install x11vnc)'
      : `could not start x11vnc: ${error.message}`)
    rmSync(directory, { recursive: true, force: true })
  })
  const stop = async () => {
    if (!exit && child.pid !== undefined) await stopChild({ signal: (name) => child.kill(name), exited }, STOP_GRACE_MS)
    rmSync(directory, { recursive: true, force: true })
  }
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (spawnFailure) throw spawnFailure
    if (exit) {
      await delay(20) // its last words may still be on their way
      const tail = stderr.trim().split('\n').filter(Boolean).slice(-3).join(' / ')
      throw new Error(`x11vnc on ${display} exited at start (${exit.signal ?? `code ${exit.code}`})${tail ? `: ${tail}` : ''}`)
    }
    if (await answers(socket)) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`x11vnc on ${display} did not answer within ${START_TIMEOUT_MS} ms`)
    }
    await delay(50)
  }
  log.info({ display, pid: child.pid, control: options.control === true }, 'started the VNC server for the live view')
  return { display, pid: child.pid!, socket, exited, alive: () => !exit, stop }
}

/** True once the socket takes a connection and greets with an RFB version. */
function answers (socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = connect(socket)
    const done = (result: boolean) => { connection.destroy(); resolve(result) }
    connection.setTimeout(1000, () => done(false))
    connection.once('error', () => done(false))
    connection.once('data', (chunk) => done(chunk.toString('latin1').startsWith('RFB ')))
  })
}
