/**
 * /files over real sockets: requests sent at once really run at once (the server's threads
 * and event loop interleave them), each with a deadline, so a request left hanging fails the
 * test instead of stalling it.
 */
import { request } from 'node:http'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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

/**
 * A tmpfs of `size` (e.g. '1m') mounted on a fresh directory (root only): a disk that fills
 * up. Unmounted and removed at teardown and, should the test never get there, when this
 * process exits.
 */
export function smallDisk (t: { teardown: (fn: () => unknown) => void }, size: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'files-small-disk-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir])
  let mounted = true
  const unmount = () => {
    if (!mounted) return
    mounted = false
    execFileSync('umount', ['--lazy', dir])
    rmdirSync(dir)
  }
  process.once('exit', unmount)
  t.teardown(() => {
    process.removeListener('exit', unmount)
    unmount()
  })
  return dir
}

/**
 * A second local user made for the test (root only), with its own group and no home:
 * removed at teardown and, should the test never get there, when this process exits.
 */
export function secondUser (t: { teardown: (fn: () => unknown) => void }): { name: string, uid: number, gid: number } {
  const name = `cgh${randomBytes(4).toString('hex')}`
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', name])
  let present = true
  const remove = () => {
    if (!present) return
    present = false
    execFileSync('userdel', [name])
  }
  process.once('exit', remove)
  t.teardown(() => {
    process.removeListener('exit', remove)
    remove()
  })
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }))
  return { name, uid: id('-u'), gid: id('-g') }
}
