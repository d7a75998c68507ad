// screenshot-desktop ships no types; the xdotool driver and the bench use only these calls.
declare module 'screenshot-desktop' {
  interface Screenshot {
    (options?: { format?: 'png' | 'jpg', screen?: string | number }): Promise<Buffer>
    /** The displays xrandr lists (Linux). */
    listDisplays (): Promise<Array<{ id: string | number, name: string, width: number, height: number }>>
  }
  const screenshot: Screenshot
  export default screenshot
}
