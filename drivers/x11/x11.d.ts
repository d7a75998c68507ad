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

  export interface XClient extends EventEmitter {
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
    screen: Array<{ root: number, pixel_width: number, pixel_height: number }>
  }

  export function createClient (options: { display?: string }, callback: (error: Error | null, display: Display) => void): XClient

  const x11: { createClient: typeof createClient }
  export default x11
}

declare module 'x11/lib/keysyms.js' {
  const keysyms: Record<string, { code: number, description?: string }>
  export default keysyms
}
