/**
 * Hostile request targets on the fleet (fleet/app.ts) over the in-memory backend: '..', percent-
 * encoded slashes, absolute URLs in the request line, a Host naming the Docker socket. Each is a
 * 4xx in the fleet's or the desktop's own error body, and nothing reaches any server but the
 * desktop the id names: a decoy server standing where an absolute URL points is never asked, and
 * the desktop's own log shows each request that did reach it. The same on Docker, with the
 * engine's socket: test/docker/fleet-isolation.ts.
 */
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { KEY, startFleet, until } from './helpers/fleet.ts'

function raw (port: number, path: string, headers: Record<string, string>): Promise<{ status: number, body: any }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method: 'GET', path, headers }, (response) => {
      let text = ''
      response.on('data', (chunk) => { text += chunk })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }))
    })
    request.on('error', reject)
    request.end()
  })
}

t.test('hostile paths, ids and Hosts: a 4xx each, and nothing asked of any server but the desktop named', async (t) => {
  const decoy: string[] = []
  const server = createServer((request, response) => { decoy.push(`${request.method} ${request.url}`); response.end('{}') })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  const decoyHost = `127.0.0.1:${(server.address() as AddressInfo).port}`

  const { call, app, backend } = await startFleet(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as AddressInfo).port
  const a = (await call('POST', '/desktops', {})).json()
  await until(t, 'it runs', async () => (await call('GET', `/desktops/${a.id}`)).json().status === 'running')

  const key = { authorization: `Bearer ${KEY}` }
  const absolute = "the request target must be a path starting with '/', not an absolute URL: the fleet forwards to its own desktops only"
  const badId = 'the desktop id in the path must be 16 lowercase hex digits, as POST /desktops answered it'
  // [target, headers, status, code, message (or undefined: a desktop's own answer, checked by its code), what the desktop saw]
  const cases: Array<[string, Record<string, string>, number, string, string | undefined]> = [
    [`/desktops/${a.id}/../../v1.41/containers/json`, key, 404, 'ERR_NOT_FOUND', `no route GET /desktops/${a.id}/../../v1.41/containers/json on this fleet (GET /openapi.json lists them)`],
    ['/desktops/..%2F..%2Fv1.41%2Fcontainers%2Fjson/computer', key, 400, 'ERR_INVALID_DESKTOP_REQUEST', badId],
    ['/desktops/unix:%2Fvar%2Frun%2Fdocker.sock/health', key, 400, 'ERR_INVALID_DESKTOP_REQUEST', badId],
    ['/v1.41/containers/json', key, 404, 'ERR_NOT_FOUND', 'no route GET /v1.41/containers/json on this fleet (GET /openapi.json lists them)'],
    [`http://${decoyHost}/desktops/${a.id}/files/x`, key, 400, 'ERR_INVALID_DESKTOP_REQUEST', absolute],
    [`http://${decoyHost}/v1.41/containers/json`, key, 400, 'ERR_INVALID_DESKTOP_REQUEST', absolute],
    ['http://unix:/var/run/docker.sock:/v1.41/containers/json', key, 400, 'ERR_INVALID_DESKTOP_REQUEST', absolute],
    ['/desktops', { ...key, host: 'unix:/var/run/docker.sock' }, 403, 'ERR_FORBIDDEN_HOST', undefined],
    [`/desktops/${a.id}/files/..%2F..%2Fetc%2Fpasswd`, key, 400, 'ERR_INVALID_DESKTOP_REQUEST', "the path /files/..%2F..%2Fetc%2Fpasswd has a '..' segment: the fleet forwards a desktop's own paths only"],
    [`/desktops/${a.id}/computer/../../../v1.41/info`, key, 400, 'ERR_INVALID_DESKTOP_REQUEST', "the path /computer/../../../v1.41/info has a '..' segment: the fleet forwards a desktop's own paths only"],
    [`/desktops/${a.id}/files/%2e%2e/x`, key, 400, 'ERR_INVALID_DESKTOP_REQUEST', "the path /files/%2e%2e/x has a '..' segment: the fleet forwards a desktop's own paths only"],
    [`/desktops/${a.id}/files/%E0%A4%A`, key, 400, 'FST_ERR_BAD_URL', undefined],
  ]
  for (const [target, headers, status, code, message] of cases) {
    const answer = await raw(port, target, headers)
    t.match(answer, { status, body: { statusCode: status, code, ...(message && { message }) } }, `${target} (Host ${headers.host ?? 'the fleet'})`)
  }
  t.strictSame(decoy, [], 'the decoy an absolute URL named was never asked')
  t.strictSame(backend.served, [], 'nor the desktop: every one was refused by the fleet')

  // Other paths after a real id go to that desktop alone, as written, whatever the Host says: its own server judges them.
  for (const [path, headers] of [['files//var/run/docker.sock', key], ['files/x', { ...key, host: decoyHost }]] as Array<[string, Record<string, string>]>) {
    const answer = await raw(port, `/desktops/${a.id}/${path}`, headers)
    t.match(answer, { status: 200, body: { desktop: a.id } }, `${path} (Host ${headers.host ?? 'the fleet'}): forwarded to that desktop (the memory desktop answers 200 to anything)`)
  }
  t.strictSame(backend.served.map((line) => line.split(' ').slice(0, 3).join(' ')), [`${a.id} GET /files//var/run/docker.sock`, `${a.id} GET /files/x`], "each reached the desktop's own server with the path as written, and nothing else")
  t.strictSame(decoy, [], 'the decoy was never asked')
})
