/** How a WebSocket upgrade is answered, for the tests of routes that upgrade (/browser/cdp). */
import WebSocket from 'ws'

/** How a WebSocket upgrade to `url` is answered when it is refused: the status and the body; 101 when it is accepted. */
export function upgrade (url: string, headers: Record<string, string>): Promise<{ status: number, body?: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.once('open', () => { socket.close(); resolve({ status: 101 }) })
    socket.once('unexpected-response', (_request, response) => {
      let text = ''
      response.on('data', (chunk: Buffer) => { text += chunk })
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }))
    })
    socket.once('error', (error) => { if (!/Unexpected server response/.test(error.message)) reject(error) })
  })
}
