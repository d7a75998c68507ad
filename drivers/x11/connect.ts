/**
 * Opens an X connection with an atom cache of its own, our cookie on a display we started,
 * and deadlines.
 *
 * The atom cache: node-x11 keeps one cache for every connection of the process
 * (lib/xcore.js: `this.atoms = stdatoms`, filled by each InternAtom reply), so an atom interned
 * on one X server is answered from that cache on another: after Xvfb restarts, or with two
 * displays in one process, a connection would use a number that names a different atom there
 * (_NET_WM_PING's number was WM_DELETE_WINDOW on a second display, and the focus ping closed
 * the window it pinged).
 *
 * The deadlines: node-x11 never calls back a request whose connection died, and an X server
 * that stops answering (SIGSTOP, a wedged server) leaves every request waiting. Whoever waited
 * — a screenshot, a pointer read, the typer's sync, a focus ping, an EWMH request — then
 * waited forever, and held the executor's queue with it. Here a connection that closes fails
 * every request still waiting, at once; one whose oldest request has waited `requestTimeoutMs`
 * is ended as hung (and fails them the same way); a setup that does not finish in time fails.
 */
import x11, { type Display, type XClient } from 'x11'
import type { Socket } from 'node:net'
import { COOKIE_NAME, cookieFor } from './authority.ts'

interface AtomCache { atoms: Record<string, number>, atom_names: Record<number, string> }
/** node-x11's internals used here: requests waiting for an answer, by sequence number, and the socket. */
interface Internals { replies?: Record<number, [unknown, (error: Error) => unknown, unknown]>, stream?: Socket }

export interface ConnectOptions {
  /** How long the X handshake may take (default 5 s). */
  setupTimeoutMs?: number
  /** How long any one request may wait for the server before the connection counts as hung (default 5 s). */
  requestTimeoutMs?: number
  /** node-x11's MIT-SHM segment provider for this connection (its own built-in one by default). */
  shm?: object
  /**
   * Requests without a reply wait in node-x11's buffer for the next that has one (or for the
   * event loop to go idle), and leave with it in one write: one system call, one wake-up of X.
   */
  bufferRequests?: boolean
}

const WATCH_INTERVAL_MS = 250

export function createClient (display: string, callback: (error: Error | null, info: Display) => void, options: ConnectOptions = {}): XClient {
  const cookie = cookieFor(display)
  let settled = false
  const setupTimeoutMs = options.setupTimeoutMs ?? 5000
  const setupTimer = setTimeout(() => {
    if (settled) return
    settled = true
    ;(client as unknown as Internals).stream?.destroy()
    callback(new Error(`the X server on ${display} did not finish the connection setup within ${setupTimeoutMs} ms`), undefined as unknown as Display)
  }, setupTimeoutMs)
  const client: XClient = x11.createClient({
    display,
    // An explicit cookie for our own Xvfb; otherwise node-x11 reads XAUTHORITY as Xlib does.
    ...(cookie && { auth: { name: COOKIE_NAME, data: cookie.toString('latin1') } }),
    ...(options.shm && { shm: options.shm }),
    ...(options.bufferRequests && { bufferRequests: true }),
  } as { display: string }, (error, info) => {
    if (settled) { if (!error) client.terminate(); return }
    settled = true
    clearTimeout(setupTimer)
    // The connection's setup (init) sets the shared cache; this runs before any request.
    if (!error) {
      const cache = client as unknown as AtomCache
      cache.atoms = { ...cache.atoms }
      cache.atom_names = { ...cache.atom_names }
      watch(client, display, options.requestTimeoutMs ?? 5000)
    }
    callback(error, info)
  })
  return client
}

/** Fails waiting requests when the socket closes, and ends the connection when one waits too long. */
function watch (client: XClient, display: string, requestTimeoutMs: number): void {
  const internals = client as unknown as Internals
  const stream = internals.stream
  if (!stream || !internals.replies) return
  let closed = false
  const failWaiting = (why: string) => {
    const replies = internals.replies!
    for (const key of Object.keys(replies)) {
      const handler = replies[Number(key)]
      delete replies[Number(key)]
      try { handler?.[1](new Error(why)) } catch { /* a callback's own throw must not stop the others */ }
    }
  }
  // Sequence number → when it was first seen waiting.
  const seen = new Map<number, number>()
  const timer = setInterval(() => {
    const now = Date.now()
    const waiting = Object.keys(internals.replies!).map(Number)
    for (const seq of seen.keys()) if (!waiting.includes(seq)) seen.delete(seq)
    for (const seq of waiting) if (!seen.has(seq)) seen.set(seq, now)
    const oldest = Math.min(...seen.values())
    if (now - oldest < requestTimeoutMs) return
    clearInterval(timer)
    const why = `the X server on ${display} did not answer within ${requestTimeoutMs} ms`
    // Ended as lost: owners see 'end' as for a server that went away.
    stream.destroy()
    failWaiting(why)
    if (!closed) { closed = true; client.emit('end') }
  }, WATCH_INTERVAL_MS)
  timer.unref()
  stream.once('close', () => {
    clearInterval(timer)
    failWaiting(`the X connection to ${display} closed`)
    // A reset socket reports 'error' or nothing, never 'end'; owners listen for 'end'.
    if (!closed) { closed = true; client.emit('end') }
  })
  client.once('end', () => { closed = true })
}
