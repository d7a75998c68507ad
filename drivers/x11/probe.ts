/**
 * Asks whether an X server answers on a display, without loading any native X code: libnut
 * segfaults on a display that is not there, so nothing native may touch a display first.
 */
import { connect } from 'node:net'
import { InvalidConfig } from '../../src/errors.ts'

/** ':99' or ':99.0' → 99; anything remote (host:99) is not supported here. */
export function displayNumber (display: string): number {
  const match = /^:(\d+)(?:\.\d+)?$/.exec(display)
  if (!match) throw new InvalidConfig(`DISPLAY '${display}' is not a local display like ':0'`)
  return Number(match[1])
}

export const socketPath = (display: string) => `/tmp/.X11-unix/X${displayNumber(display)}`

/** Resolves when the display's socket accepts a connection; rejects with a clear message otherwise. */
export function probeDisplay (display: string, timeoutMs = 2000): Promise<void> {
  const path = socketPath(display)
  return new Promise((resolve, reject) => {
    const socket = connect(path)
    const fail = (why: string) => {
      socket.destroy()
      reject(new InvalidConfig(`DISPLAY ${display} does not answer (${why} at ${path}); unset DISPLAY to let computer-gateway start its own Xvfb`))
    }
    const timer = setTimeout(() => fail('no answer within ' + timeoutMs + ' ms'), timeoutMs)
    socket.once('connect', () => { clearTimeout(timer); socket.end(); resolve() })
    socket.once('error', (error: NodeJS.ErrnoException) => { clearTimeout(timer); fail(error.code === 'ENOENT' ? 'no X server' : error.code ?? error.message) })
  })
}
