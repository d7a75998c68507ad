/**
 * One DevTools command to a desktop's browser, as a client of its own /browser/cdp (with the
 * desktop's token): what the Scrapybara browser routes need (the page's URL, closing the
 * browser) without a client's connection. The desktop hands its browser to one client at a time,
 * so while a client holds it this is the desktop's 409 ERR_BROWSER_BUSY, relayed as it came.
 */
import WebSocket from 'ws'
import { BrowserUnavailable } from '../src/errors/errors.ts'

/** How long the socket may take to open and the command to be answered. */
const CALL_TIMEOUT_MS = 30_000

/** The desktop refused the socket: its own status and error body, for the client. */
export class DesktopRefused extends Error {
  constructor (readonly statusCode: number, readonly code: string, message: string) {
    super(message)
  }
}

export interface CdpCallOptions {
  /** The browser may end before it answers (Browser.close): a socket closed after the command was sent is its answer. */
  closeAnswers?: boolean
}

export function cdpCall (desktopUrl: string, token: string, method: string, params: Record<string, unknown> = {}, options: CdpCallOptions = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${desktopUrl.replace(/^http/, 'ws')}/browser/cdp`, { headers: { authorization: `Bearer ${token}` }, handshakeTimeout: CALL_TIMEOUT_MS, perMessageDeflate: false })
    let sent = false
    let settled = false
    const finish = (outcome: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      outcome()
      socket.terminate()
    }
    const timer = setTimeout(() => finish(() => reject(new BrowserUnavailable(`the desktop's browser did not answer ${method} within ${CALL_TIMEOUT_MS / 1000} s`))), CALL_TIMEOUT_MS)
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        let body: { code?: string, message?: string } = {}
        try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch {}
        finish(() => reject(new DesktopRefused(response.statusCode ?? 502, body.code ?? 'ERR_DESKTOP_REFUSED', body.message ?? `the desktop refused its browser's DevTools (${response.statusCode})`)))
      })
    })
    socket.on('open', () => { socket.send(JSON.stringify({ id: 1, method, params })); sent = true })
    socket.on('message', (data) => {
      let message: { id?: number, result?: Record<string, unknown>, error?: { message?: string } }
      try { message = JSON.parse(String(data)) } catch { return }
      if (message.id !== 1) return
      if (message.error) finish(() => reject(new BrowserUnavailable(`the desktop's browser refused ${method}: ${message.error!.message ?? 'no reason given'}`)))
      else finish(() => resolve(message.result ?? {}))
    })
    socket.on('close', () => {
      if (sent && options.closeAnswers) finish(() => resolve({}))
      else finish(() => reject(new BrowserUnavailable(`the desktop's browser closed its DevTools before it answered ${method}`)))
    })
    socket.on('error', (error) => finish(() => reject(new BrowserUnavailable(`the desktop's browser DevTools are unreachable: ${error.message}`))))
  })
}
