/**
 * The accessibility bus's address on the X server's root window (AT_SPI_BUS), where toolkits
 * look for the bus when their environment names none. at-spi-bus-launcher writes it once, at
 * start; the bus outlives an X server that dies, and the property dies with that server, so
 * after X restarts on the display it is written again here. Which X server runs a local
 * display is told by the PID in its lock file (/tmp/.X<n>-lock), which every X server writes.
 */
import type { XClient } from 'x11'
import { createClient } from '../x11/connect.ts'
import { lockOwner } from '../x11/free-display.ts'
import { parseDisplay } from '../x11/probe.ts'

/** X11 predefined atom STRING; PropModeReplace. */
const STRING = 31
const REPLACE = 0
const TIMEOUT_MS = 2000

declare module 'x11' {
  interface XClient {
    ChangeProperty (mode: number, window: number, property: number, type: number, format: 8 | 16 | 32, data: Buffer): void
  }
}

/** The PID of the X server that holds a local display now; undefined when none does, or the display is not local. */
export function xServerPid (display: string): number | undefined {
  let address: ReturnType<typeof parseDisplay>
  try {
    address = parseDisplay(display)
  } catch {
    return undefined
  }
  return address.kind === 'unix' ? lockOwner(address.number) : undefined
}

/** Writes `address` as AT_SPI_BUS on the display's root window, as at-spi-bus-launcher does. */
export function publishBusAddress (display: string, address: string): Promise<void> {
  return onRootProperty(display, (client, root, atom, finish) => {
    client.ChangeProperty(REPLACE, root, atom, STRING, 8, Buffer.from(address, 'latin1'))
    // A round trip: once answered, the server has carried out the change before it.
    client.GetInputFocus((error) => { finish(error ?? undefined); return true })
  })
}

/** The accessibility bus's address as the display's root window names it (AT_SPI_BUS); undefined when it names none. */
export async function readBusAddress (display: string): Promise<string | undefined> {
  let address: string | undefined
  await onRootProperty(display, (client, root, atom, finish) => {
    client.GetProperty(0, root, atom, STRING, 0, 1024, (error, reply) => {
      if (!error && reply.type === STRING && reply.data.length > 0) address = reply.data.toString('latin1')
      finish(error ?? undefined)
      return true
    })
  })
  return address
}

type Finish = (error?: Error) => void

/** One short X connection: AT_SPI_BUS interned on the display, then `use` until it calls finish. */
function onRootProperty (display: string, use: (client: XClient, root: number, atom: number, finish: Finish) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false
    const finish: Finish = (error) => {
      if (done) return
      done = true
      clearTimeout(timer)
      client.terminate()
      if (error) reject(error)
      else resolve()
    }
    const timer = setTimeout(() => finish(new Error(`${display} did not answer in ${TIMEOUT_MS} ms`)), TIMEOUT_MS)
    const client = createClient(display, (error, info) => {
      if (error) { finish(error); return }
      client.InternAtom(false, 'AT_SPI_BUS', (atomError, atom) => {
        if (atomError) finish(atomError)
        else use(client, info.screen[0]!.root, atom, finish)
        return true
      })
    })
    client.on('error', (error: Error) => finish(error))
  })
}
