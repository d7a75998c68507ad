/**
 * The live view behind a reverse proxy that serves it under a path prefix (/desk/): Chromium
 * opens /desk/live, signs in, and the page's relative URLs (its scripts, the session, the
 * state, the WebSocket) all go through the prefix; the session cookie is scoped to it.
 */
import http from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import t from 'tap'
import { liveServer, openViewer } from './helpers/live.ts'

const PREFIX = '/desk'

/** A minimal reverse proxy: PREFIX/… to the server's /…, Host kept (as proxies configured for it do), WebSockets included. */
async function prefixProxy (t: { teardown: (fn: () => unknown) => void }, upstreamPort: number) {
  const seen: string[] = []
  const strip = (url: string) => url.startsWith(`${PREFIX}/`) ? url.slice(PREFIX.length) : undefined
  const proxy = http.createServer((request, response) => {
    const path = strip(request.url!)
    seen.push(request.url!)
    if (!path) { response.writeHead(404).end(); return }
    const upstream = http.request({ host: '127.0.0.1', port: upstreamPort, path, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode!, answer.rawHeaders)
      answer.pipe(response)
    })
    upstream.on('error', () => response.destroy())
    request.pipe(upstream)
  })
  proxy.on('upgrade', (request: http.IncomingMessage, socket, head: Buffer) => {
    const path = strip(request.url!)
    seen.push(request.url!)
    if (!path) { socket.destroy(); return }
    const upstream = connect(upstreamPort, '127.0.0.1', () => {
      const lines = [`${request.method} ${path} HTTP/1.1`]
      for (let i = 0; i < request.rawHeaders.length; i += 2) lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`)
      upstream.write(lines.join('\r\n') + '\r\n\r\n')
      upstream.write(head)
      socket.pipe(upstream).pipe(socket)
    })
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
    t.teardown(() => { upstream.destroy(); socket.destroy() })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => { proxy.closeAllConnections(); proxy.close(resolve) }))
  return { base: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${PREFIX}`, seen }
}

t.test('the live view works behind a path prefix', async (t) => {
  const server = await liveServer(t)
  const proxy = await prefixProxy(t, Number(new URL(server.base).port))
  const viewer = await openViewer(t, proxy.base)
  t.match(await viewer.canvas(), { width: 1280, height: 800 }, 'the desktop shows through the proxy')
  for (const path of ['/live', '/live/session', '/live/novnc/core/rfb.js', '/live/websockify']) {
    // The socket's URL carries the tab's viewer id (?viewer=…).
    t.ok(proxy.seen.some((url) => url.split('?')[0] === PREFIX + path), `${PREFIX}${path} went through the proxy`)
  }
  t.ok(await viewer.page.evaluate<boolean>('fetch("live/state").then((r) => r.ok)'), 'the state too, with the cookie the prefixed path set')
  t.notOk(await viewer.page.evaluate<boolean>('document.cookie.includes("cg_live")'), 'the cookie is out of the page\'s reach (HttpOnly)')
})
