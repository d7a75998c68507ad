/** node-x11's GetImage, QueryPointer and the pixel formats of its handshake (merged into x11.d.ts's module). */
declare module 'x11' {
  export interface XClient {
    GetImage (format: number, drawable: number, x: number, y: number, width: number, height: number, planeMask: number,
      callback: (error: Error | null, image: { depth: number, visualId: number, data: Buffer }) => void): void
    QueryPointer (window: number, callback: (error: Error | null, reply: { rootX: number, rootY: number }) => void): void
  }

  export interface Display {
    /** 0 = LSBFirst. */
    image_byte_order: number
    /** Pixmap formats by depth. */
    format?: Record<number, { bits_per_pixel: number, scanline_pad: number }>
  }
}
