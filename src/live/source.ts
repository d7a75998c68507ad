/**
 * Where the live view's pixels come from: a VNC (RFB) server on the desktop, reached only
 * from inside this process. The driver side (drivers/x11/vnc-service.ts) provides it; routes
 * bridge a browser's WebSocket to one connection of it.
 */
import type { Duplex } from 'node:stream'

export interface LiveSource {
  /** Whether x11vnc takes input from viewers (--live-control); otherwise it is view-only. */
  readonly control: boolean
  /** A new connection to the VNC server of the desktop of the moment (started on first need). */
  connect: () => Promise<Duplex>
  /** Stops the VNC server; connect() refuses from then on. Safe twice. */
  close: () => Promise<void>
}
