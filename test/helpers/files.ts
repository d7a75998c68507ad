/**
 * /files over real sockets: requests sent at once really run at once (the server's threads
 * and event loop interleave them), each with a deadline, so a request left hanging fails the
 * test instead of stalling it.
 */
import { request } from 'node:http'
import { readdirSync } from 'node:fs'

export interface Answer {
  status: number
  body: Buffer
}

/** Sends one request to the server on `port`; a request not answered within `timeoutMs` is a failure. */
export function send (port: number, method: string, path: string, options: { token?: string, body?: Buffer | string, timeoutMs?: number } = {}): Promise<Answer> {
  const { token, body, timeoutMs = 10_000 } = options
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      method,
      path,
      headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-length': Buffer.byteLength(body) }) },
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path} was not answered within ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end(body)
  })
}

/** Every entry under `dir`, recursively, as relative paths, links not followed: what a test compares before and after. */
export function tree (dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: false }).map(String).sort()
}
