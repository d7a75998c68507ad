// screenshot-desktop ships no types; the xdotool driver and the bench use only this call.
declare module 'screenshot-desktop' {
  export default function screenshot (options?: { format?: 'png' | 'jpg', screen?: string | number }): Promise<Buffer>
}
