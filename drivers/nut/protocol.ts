/**
 * The messages between NutDriver (in the server process) and nut-worker (the child process
 * that sends input and holds nut-js). Sent with `serialization: 'advanced'`, so Buffers cross as bytes.
 * Requests carry a numeric id; the worker answers each id exactly once, in order.
 */
import type { Point, RawImage, Rect, Size } from '../../src/driver/driver.ts'
import type { XInputStep } from '../x11/xtest-input.ts'

/** Every operation: its arguments and what it answers. */
export interface Calls {
  screenSize: { args: [], result: Size }
  cursorPosition: { args: [], result: Point }
  /** The key's X keysym name, e.g. 'Return', 'Control_L', 'KP_Enter'. */
  keyDown: { args: [string], result: void }
  keyUp: { args: [string], result: void }
  typeText: { args: [string], result: void }
  /**
   * A whole input plan in one message; answers the pointer position once X processed it. The
   * server sends plans without keys over its own XTest connection, and here only when that
   * one could not open.
   */
  input: { args: [XInputStep[]], result: Point }
  screenshot: { args: [Rect | undefined], result: RawImage }
}

export type Op = keyof Calls

/** Parent → worker. */
export interface Request<K extends Op = Op> {
  id: number
  op: K
  args: Calls[K]['args']
}

/**
 * Why a call failed. 'unsupported': the request cannot be done on this desktop (a key with
 * no keysym, a region off the screen) — the client's to fix. 'unavailable': the X server
 * went away or stopped answering (the worker exits right after). 'failure': anything else.
 */
export type FailureKind = 'unsupported' | 'unavailable' | 'failure'

/**
 * Parent → worker, besides requests: `connect` makes a loaded worker touch the display
 * (only after the parent probed it) and answer `ready`.
 */
export type Command = Request | { connect: true }

/**
 * Worker → parent. `loaded` comes once the worker's modules are imported — the slow part, done before any
 * display is touched, so a supervisor can load the next worker while X restarts. `ready` answers
 * `connect`; its notes say what the worker does differently on this desktop (for the log).
 */
export type Reply =
  | { id: number, ok: true, value: unknown }
  | { id: number, ok: false, kind: FailureKind, message: string }
  | { loaded: true }
  | { ready: true, notes: string[] }

/** An error the worker throws on purpose, carrying its kind across the process boundary. */
export class WorkerError extends Error {
  constructor (readonly kind: FailureKind, message: string) {
    super(message)
  }
}
