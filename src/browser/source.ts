/**
 * The desktop's browser as a DevTools endpoint (--browser chromium): a Chromium the server
 * starts itself with `--remote-debugging-pipe`, so the protocol travels over two pipes only the
 * server's process holds — no port, no socket file another local user could open. The gateway
 * proxies it at /browser/cdp with the token (routes/browser.ts); drivers/x11/chromium-devtools.ts
 * starts the process.
 */

/** One open DevTools pipe: messages are CDP's JSON texts, one per call and event. */
export interface CdpPipe {
  send: (message: string) => void
  /** Each message the browser sends, in order. */
  onMessage: (listener: (message: string) => void) => void
  /** Called once when the pipe closes (the browser exited). */
  onClose: (listener: (reason: string) => void) => void
  readonly closed: boolean
}

export interface DevtoolsSource {
  /** The browser's pipe, starting the browser first when it does not run; rejects with the reason it cannot. */
  pipe: () => Promise<CdpPipe>
  /** Ends the browser this source started. */
  close: () => Promise<void>
}
