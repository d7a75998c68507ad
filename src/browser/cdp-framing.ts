/**
 * CDP over --remote-debugging-pipe: each message is a JSON text ended by a NUL byte, on the
 * browser's fd 3 (to it) and fd 4 (from it). Chunks arrive cut anywhere, a multi-byte character
 * included: bytes are kept until their NUL, then decoded whole.
 */
import type { Readable, Writable } from 'node:stream'
import type { CdpPipe } from './source.ts'

export function framedPipe (toBrowser: Writable, fromBrowser: Readable): CdpPipe {
  const messageListeners: Array<(message: string) => void> = []
  const closeListeners: Array<(reason: string) => void> = []
  let pending: Buffer[] = []
  let closed = false
  const close = (reason: string) => {
    if (closed) return
    closed = true
    for (const listener of closeListeners) listener(reason)
  }
  fromBrowser.on('data', (chunk: Buffer) => {
    let start = 0
    for (let end = chunk.indexOf(0); end >= 0; end = chunk.indexOf(0, start)) {
      pending.push(chunk.subarray(start, end))
      const message = Buffer.concat(pending).toString('utf8')
      pending = []
      start = end + 1
      for (const listener of messageListeners) listener(message)
    }
    if (start < chunk.length) pending.push(chunk.subarray(start))
  })
  fromBrowser.on('error', (error) => close(`the browser's DevTools pipe failed: ${error.message}`))
  fromBrowser.on('close', () => close('the browser closed its DevTools pipe (it exited)'))
  // A write after the browser exited fails with EPIPE; the close above says so already.
  toBrowser.on('error', () => close('the browser stopped reading its DevTools pipe (it exited)'))
  return {
    send: (message) => { if (!closed) toBrowser.write(`${message}\0`) },
    onMessage: (listener) => { messageListeners.push(listener) },
    onClose: (listener) => { closeListeners.push(listener) },
    get closed () { return closed },
  }
}
