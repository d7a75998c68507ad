/**
 * The node-x11 requests the display reader and the focus ping use, and the pixel formats of
 * the handshake (merged into the module x11.d.ts declares).
 */
declare module 'x11' {
  export interface XClient {
    GetImage (format: number, drawable: number, x: number, y: number, width: number, height: number, planeMask: number,
      callback: (error: Error | null, image: { depth: number, visualId: number, data: Buffer }) => void): void
    QueryPointer (window: number, callback: (error: Error | null, reply: { rootX: number, rootY: number }) => void): void
    GetInputFocus (callback: (error: Error | null, reply: { focus: number }) => void): void
    QueryTree (window: number, callback: (error: Error | null, tree: { root: number, parent: number, children: number[] }) => void): void
    InternAtom (onlyIfExists: boolean, name: string, callback: (error: Error | null, atom: number) => void): void
    GetProperty (del: number, window: number, property: number, type: number, longOffset: number, longLength: number,
      callback: (error: Error | null, property: { type: number, format: number, bytesAfter: number, data: Buffer }) => void): void
    ChangeWindowAttributes (window: number, values: { eventMask?: number }): void
    SendClientMessage (destination: number, window: number, type: number, format: 8 | 16 | 32, data: number[], eventMask?: number): void
  }

  export interface Display {
    /** 0 = LSBFirst. */
    image_byte_order: number
    /** Pixmap formats by depth. */
    format?: Record<number, { bits_per_pixel: number, scanline_pad: number }>
  }
}
