/** A keep-alive JSON client over node:http, the same for every server the bench measures. */
import { Agent, request } from 'node:http'

/** `headers` go with every request (a recording bench names its episode in each). */
export function client (port: number, connections = 1, headers: Record<string, string> = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const send = (method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number): Promise<{ status: number, body: string }> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const req = request({
        host: '127.0.0.1', port, path, method, agent,
        headers: { ...headers, ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
      }, (res) => {
        let data = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => { data += chunk })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }))
      })
      req.on('error', reject)
      if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
      req.end(payload)
    })
  /** The answer's bytes as they arrived: for timing an answer to its last byte, with no decoding in the clock. */
  const postBytes = (path: string, body: unknown): Promise<{ status: number, body: Buffer }> =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body)
      request({
        host: '127.0.0.1', port, path, method: 'POST', agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }))
      }).on('error', reject).end(payload)
    })
  return {
    post: (path: string, body: unknown, timeoutMs?: number) => send('POST', path, body, timeoutMs),
    postBytes,
    get: (path: string) => send('GET', path),
    close: () => agent.destroy(),
  }
}
