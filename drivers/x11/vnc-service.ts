/**
 * The live view's VNC server, kept on the desktop of the moment: started when the first viewer
 * connects, started again once a restarted desktop is up (the old x11vnc died with its X
 * server), stopped with the desktop. Viewers reconnect on their own after a restart.
 */
import { connect as connectSocket } from 'node:net'
import type { Duplex } from 'node:stream'
import { DesktopUnavailable } from '../../src/errors/errors.ts'
import type { LiveSource } from '../../src/live/source.ts'
import type { Log } from '../../src/runtime/logger.ts'
import { startVnc, type VncServer } from './vnc.ts'

export interface VncServiceOptions {
  /** The display of the moment (undefined before the desktop has started). */
  display: () => string | undefined
  control: boolean
  log: Log
}

export class VncService implements LiveSource {
  readonly control: boolean
  readonly #options: VncServiceOptions
  #server?: VncServer
  #starting?: Promise<VncServer>
  #closed = false

  constructor (options: VncServiceOptions) {
    this.#options = options
    this.control = options.control
  }

  /** The running x11vnc's PID, if one runs. */
  get pid (): number | undefined { return this.#server?.alive() ? this.#server.pid : undefined }

  async connect (): Promise<Duplex> {
    const server = await this.#ensure()
    const socket = connectSocket(server.socket)
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', (error) => reject(new DesktopUnavailable(`the live view's VNC server on ${server.display} did not take the connection (${error.message}); retry shortly`)))
    })
    return socket
  }

  /** The desktop was replaced: a VNC server that ran is brought up on the new one at once. */
  desktopReplaced (): void {
    const old = this.#server
    if (!old || this.#closed) return
    if (old.alive()) return // only the driver was restarted; X and x11vnc kept running
    this.#server = undefined
    this.#ensure().catch((error: unknown) => this.#options.log.warn({ err: error }, 'could not restart the live view\'s VNC server; the next viewer tries again'))
  }

  #ensure (): Promise<VncServer> {
    if (this.#closed) return Promise.reject(new DesktopUnavailable('the desktop is closing'))
    const display = this.#options.display()
    if (!display) return Promise.reject(new DesktopUnavailable('the desktop has not started yet; retry shortly'))
    const server = this.#server
    if (server?.alive() && server.display === display) return Promise.resolve(server)
    this.#starting ??= (async () => {
      try {
        if (server) await server.stop()
        const started = await startVnc({ display, control: this.control, log: this.#options.log })
        if (this.#closed) {
          await started.stop()
          throw new DesktopUnavailable('the desktop is closing')
        }
        this.#server = started
        return started
      } catch (error) {
        if (error instanceof DesktopUnavailable) throw error
        throw new DesktopUnavailable(`the live view is not available: ${(error as Error).message}`)
      } finally {
        this.#starting = undefined
      }
    })()
    return this.#starting
  }

  async close (): Promise<void> {
    this.#closed = true
    await this.#starting?.catch(() => {})
    await this.#server?.stop()
  }
}
