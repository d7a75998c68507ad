/** The part of node-x11 (npm `x11`, pure JavaScript) the drivers use. */
declare module 'x11' {
  import type { EventEmitter } from 'node:events'

  export interface XTest {
    KeyPress: number
    KeyRelease: number
    ButtonPress: number
    ButtonRelease: number
    MotionNotify: number
    FakeInput (type: number, detail: number, time: number, window: number, x: number, y: number): void
  }

  /** A reply callback returns true when it handled an X error (else the client emits 'error'). */
  type Reply<T> = (error: Error | null, reply: T) => boolean | void

  export interface GetPropertyReply {
    type: number
    format: number
    bytesAfter: number
    data: Buffer
  }

  export interface XClient extends EventEmitter {
    /** Interned atoms by name, and names by atom (node-x11's cache). */
    atoms: Record<string, number>
    atom_names: Record<number, string>
    InternAtom (onlyIfExists: boolean, name: string, callback: Reply<number>): void
    GetProperty (del: number, window: number, property: number, type: number, longOffset: number, longLength: number, callback: Reply<GetPropertyReply>): void
    SendClientMessage (destination: number, window: number, messageType: number, format: 8 | 16 | 32, data: number[], callback: Reply<void>): void
    /** mode 0: replace; `format` is the bits of each of `data`'s values. */
    ChangeProperty (mode: number, window: number, property: number, type: number, format: 8 | 16 | 32, data: number[] | Buffer): void
    DeleteProperty (window: number, property: number): void
    /** An event in the shape node-x11's parsers produce (packed by its packEvent); the callback answers a void request's error. */
    SendEvent (destination: number, propagate: number, eventMask: number, event: object, callback: Reply<void>): void
    TranslateCoordinates (source: number, destination: number, x: number, y: number, callback: Reply<{ sameScreen: number, child: number, destX: number, destY: number }>): void
    GetGeometry (drawable: number, callback: Reply<{ windowid: number, xPos: number, yPos: number, width: number, height: number, borderWidth: number }>): void
    GetInputFocus (callback: Reply<{ focus: number, revertTo: number }>): void
    QueryTree (window: number, callback: Reply<{ root: number, parent: number, children: number[] }>): void
    GetKeyboardMapping (first: number, count: number, callback: (error: Error | null, rows: number[][]) => void): void
    ChangeKeyboardMapping (first: number, keysymsPerKeycode: number, keysyms: number[]): void
    require (extension: 'xtest', callback: (error: Error | null, ext: XTest) => void): void
    sync (): Promise<void>
    terminate (): void
  }

  export interface Display {
    client: XClient
    min_keycode: number
    max_keycode: number
    screen: Array<{ root: number, pixel_width: number, pixel_height: number, white_pixel: number, black_pixel: number }>
  }

  export function createClient (options: { display?: string }, callback: (error: Error | null, display: Display) => void): XClient

  const x11: { createClient: typeof createClient }
  export default x11
}

declare module 'x11/lib/keysyms.js' {
  const keysyms: Record<string, { code: number, description?: string }>
  export default keysyms
}
