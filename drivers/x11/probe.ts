/**
 * Asks whether an X server answers on a display, in plain JavaScript. libnut segfaults (or
 * Xlib calls exit()) on a display that is not there, so nothing native may touch a display
 * before this has said yes. It speaks the first step of the X protocol itself: a socket that
 * accepts connections is not enough (a stale socket file, or a server still starting up).
 */
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { connect, type Socket } from 'node:net'
import { InvalidConfig } from '../../src/errors/errors.ts'
import { COOKIE_NAME, cookieFor } from './authority.ts'
import { START_TIMEOUT_MS } from '../start-timeout.ts'

/** Where to reach a display: a local unix socket, or TCP for `host:N`. */
export type DisplayAddress =
  | { number: number, kind: 'unix', path: string }
  | { number: number, kind: 'tcp', host: string, port: number }

/** ':99', ':99.0', 'unix:99' → the local socket; 'host:99' → TCP port 6099. */
export function parseDisplay (display: string): DisplayAddress {
  const match = /^(.*):(\d+)(?:\.\d+)?$/.exec(display)
  if (!match) throw new InvalidConfig(`DISPLAY '${display}' is not an X display like ':0'`)
  const [, host = '', digits] = match
  const number = Number(digits)
  if (host === '' || host === 'unix') return { number, kind: 'unix', path: `/tmp/.X11-unix/X${number}` }
  return { number, kind: 'tcp', host: host.replace(/^\[(.*)\]$/, '$1'), port: 6000 + number }
}

/** ':99' → 99. */
export function displayNumber (display: string): number {
  return parseDisplay(display).number
}

/** ':99' → '/tmp/.X11-unix/X99'. */
export function socketPath (display: string): string {
  return `/tmp/.X11-unix/X${displayNumber(display)}`
}

/**
 * The X11 connection setup request, little-endian ('l'), protocol 11.0: with our cookie on a
 * display we started, else no authorization (a refusal then still says a server is there).
 */
function setupRequest (cookie: Buffer | undefined): Buffer {
  const header = Buffer.from([0x6c, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0])
  if (!cookie) return header
  header.writeUInt16LE(COOKIE_NAME.length, 6)
  header.writeUInt16LE(cookie.length, 8)
  const pad = (data: Buffer) => Buffer.concat([data, Buffer.alloc((4 - data.length % 4) % 4)])
  return Buffer.concat([header, pad(Buffer.from(COOKIE_NAME, 'latin1')), pad(cookie)])
}

/**
 * Resolves when an X server answers the X11 connection setup on `display` within
 * `timeoutMs`; otherwise rejects with InvalidConfig and a message saying what was found,
 * e.g. `DISPLAY :42 does not answer (no X server at /tmp/.X11-unix/X42); unset DISPLAY to
 * let computer-gateway start its own Xvfb`. Never loads native code, never throws
 * synchronously. The default wait is long because only a server that accepted the connection
 * uses it (no socket, or a refused one, fails at once): an Xvfb that is merely slow to answer
 * on a busy host (both cores taken by other desktops) is seen here taking over 2 s, and a
 * driver that gave up on it would fail a start that was about to succeed.
 */
export async function probeDisplay (display: string, timeoutMs = START_TIMEOUT_MS): Promise<void> {
  const address = parseDisplay(display)
  const where = address.kind === 'unix' ? address.path : `${address.host}:${address.port}`
  // A display this process started is not the operator's DISPLAY: telling them to unset it would be untrue.
  const ours = cookieFor(display) !== undefined
  const fail = (why: string) => new InvalidConfig(ours
    ? `the Xvfb computer-gateway started on ${display} does not answer (${why} at ${where})`
    : `DISPLAY ${display} does not answer (${why} at ${where}); unset DISPLAY to let computer-gateway start its own Xvfb`)
  const deadline = Date.now() + timeoutMs

  let answer: SetupAnswer
  try {
    answer = await handshake(address.kind === 'unix' ? { path: address.path } : { host: address.host, port: address.port }, timeoutMs, cookieFor(display))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // Some servers (another container's, say) listen only on Linux's abstract socket.
    if (address.kind === 'unix' && code === 'ENOENT') {
      answer = await handshake({ path: `\0${address.path}` }, Math.max(1, deadline - Date.now()), cookieFor(display))
        .catch(() => { throw fail('no X server') })
    } else {
      throw fail(describe(error as NodeJS.ErrnoException, timeoutMs))
    }
  }
  if (answer.status === 1) return
  // The server is there but refused a connection without credentials. Xlib will present the
  // cookie from XAUTHORITY (or ~/.Xauthority); without one, libnut could not connect either.
  const authority = process.env.XAUTHORITY || `${homedir()}/.Xauthority`
  if (existsSync(authority)) return
  throw new InvalidConfig(`the X server on ${display} refused the connection (${answer.reason || 'authorization required'}) and there is no ${authority}; set XAUTHORITY to its cookie file`)
}

interface SetupAnswer { status: number, reason: string }

/** Connects, sends the setup request, and reads the status byte (and the reason of a refusal). */
function handshake (target: { path: string } | { host: string, port: number }, timeoutMs: number, cookie?: Buffer): Promise<SetupAnswer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(target)
    let received = Buffer.alloc(0)
    const done = (error: Error | undefined, answer?: SetupAnswer) => {
      clearTimeout(timer)
      socket.destroy()
      if (error) reject(error)
      else resolve(answer!)
    }
    const timer = setTimeout(() => done(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), timeoutMs)
    socket.once('connect', () => socket.write(setupRequest(cookie)))
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      if (received.length < 8) return
      const status = received[0]!
      if (status !== 0) return done(undefined, { status, reason: '' })
      // A refusal: byte 1 is the reason's length, the reason follows the 8-byte header.
      const length = received[1]!
      if (received.length >= 8 + length) done(undefined, { status, reason: received.subarray(8, 8 + length).toString('latin1').trim() })
    })
    socket.once('end', () => done(Object.assign(new Error('closed'), { code: 'ECONNRESET' })))
    socket.once('error', (error) => done(error))
  })
}

function describe (error: NodeJS.ErrnoException, timeoutMs: number): string {
  switch (error.code) {
    case 'ENOENT': return 'no X server'
    case 'ECONNREFUSED': return 'connection refused: nothing listens there (a stale socket?)'
    case 'ETIMEDOUT': return `no answer within ${timeoutMs} ms`
    case 'ECONNRESET': return 'the server hung up during the X handshake'
    case 'EACCES': return 'permission denied'
    default: return error.code ?? error.message
  }
}
