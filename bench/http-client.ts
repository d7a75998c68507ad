/** A keep-alive JSON client over node:http, the same for every server the bench measures. */
import { Agent, request } from 'node:http'

/** `headers` go with every request (a recording bench names its episode in each). */
export function client (port: number, connections = 1, headers: Record<string, string> = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  /** The answer's bytes as they arrived: decoding is left to the caller, outside a timed answer's clock. */
  const sendBytes = (method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number): Promise<{ status: number, body: Buffer }> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body)
      const req = request({
        host: '127.0.0.1', port, path, method, agent,
        headers: { ...headers, ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
      }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }))
      })
      req.on('error', reject)
      if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
      req.end(payload)
    })
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number): Promise<{ status: number, body: string }> => {
    const answer = await sendBytes(method, path, body, timeoutMs)
    return { status: answer.status, body: answer.body.toString('utf8') }
  }
  return {
    post: (path: string, body: unknown, timeoutMs?: number) => send('POST', path, body, timeoutMs),
    postBytes: (path: string, body: unknown) => sendBytes('POST', path, body),
    get: (path: string) => send('GET', path),
    close: () => agent.destroy(),
  }
}
