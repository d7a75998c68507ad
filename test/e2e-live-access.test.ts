/**
 * Who reaches the live view. Without the session cookie (which only the token buys) the page
 * shows nothing but the sign-in form, and its scripts, state and WebSocket answer 401; a page
 * of another origin is refused the WebSocket even with the cookie; the VNC server listens on
 * no TCP port, only on a unix socket in a directory of ours alone.
 */
import { execFile } from 'node:child_process'
import { statSync } from 'node:fs'
import { dirname } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import WebSocket from 'ws'
import type { VncService } from '../drivers/x11/vnc-service.ts'
import { liveServer, TOKEN } from './helpers/live.ts'

const run = promisify(execFile)

/** The status a WebSocket upgrade gets (101 when it opens). */
function upgrade (url: string, headers: Record<string, string>): Promise<{ status: number, first?: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers })
    socket.on('unexpected-response', (_request, response) => { resolve({ status: response.statusCode! }); socket.terminate() })
    socket.on('message', (data) => { resolve({ status: 101, first: String(data) }); socket.close() })
    socket.on('error', () => resolve({ status: 0 }))
  })
}

t.test('without the token nothing of the live view is reachable; with it, only from this server\'s own pages', async (t) => {
  const server = await liveServer(t)
  const { base } = server
  const ws = base.replace('http:', 'ws:') + '/live/websockify'

  const page = await fetch(`${base}/live`)
  const html = await page.text()
  t.equal(page.status, 401, 'the page without a session: 401')
  t.match(html, /id="signin"/, 'with the sign-in form')
  t.notMatch(html, /novnc|websockify/, 'and nothing of the viewer')
  t.equal(page.headers.get('x-frame-options'), 'DENY', 'it may not be framed')
  for (const path of ['/live/novnc/core/rfb.js', '/live/state']) {
    const response = await fetch(base + path)
    t.equal(response.status, 401, `${path} without a session: 401`)
    t.match(await response.json(), { code: 'ERR_UNAUTHORIZED', message: /POST \/live\/session/ })
  }
  t.equal((await upgrade(ws, {})).status, 401, 'the WebSocket without a session: 401')
  t.equal((await upgrade(ws, { cookie: 'cg_live=forged' })).status, 401, 'nor with a made-up session')

  t.equal((await fetch(`${base}/live/session`, { method: 'POST' })).status, 401, 'a session without the token: 401')
  t.equal((await fetch(`${base}/live/session`, { method: 'POST', headers: { authorization: 'Bearer wrong' } })).status, 401, 'nor with a wrong one')
  t.equal((await fetch(`${base}/live/session?token=${TOKEN}`, { method: 'POST' })).status, 401, 'and never from the URL')
  const issued = await fetch(`${base}/live/session`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(issued.status, 204)
  const setCookie = issued.headers.get('set-cookie')!
  t.match(setCookie, /^cg_live=[A-Za-z0-9_-]{43}; Max-Age=\d+; HttpOnly; SameSite=Strict$/, 'an HttpOnly, SameSite=Strict session cookie scoped to the live path')
  const cookie = setCookie.split(';')[0]!

  t.equal((await fetch(`${base}/live`, { headers: { cookie } })).status, 200, 'the session opens the page')
  t.equal((await fetch(`${base}/live/novnc/core/rfb.js`, { headers: { cookie } })).status, 200, 'and noVNC, from the npm package')
  for (const path of ['%2e%2e/package.json', 'core/..%2f..%2fpackage.json', 'core/%2e%2e/%2e%2e/package.json']) {
    const response = await fetch(`${base}/live/novnc/${path}`, { headers: { cookie } })
    t.ok(response.status === 404 || response.status === 401, `nothing beside noVNC's files: ${path} answers ${response.status}`)
  }
  t.equal((await fetch(`${base}/computer`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{"action":"cursor_position"}' })).status, 401,
    'the cookie is no token for the API')

  const foreign = await upgrade(ws, { cookie, origin: 'http://evil.test' })
  t.equal(foreign.status, 403, 'a page of another origin is refused the WebSocket, session or not')
  const rebound = await upgrade(ws.replace('127.0.0.1', 'localhost'), { cookie, host: 'evil.test' })
  t.equal(rebound.status, 403, 'and so is a rebound host name')
  const own = await upgrade(ws, { cookie, origin: base })
  t.same(own, { status: 101, first: 'RFB 003.008\n' }, 'this server\'s own page gets the desktop')
  const handshake = new WebSocket(ws, { headers: { cookie, origin: base } })
  const security = await new Promise<Buffer>((resolve, reject) => {
    handshake.once('message', () => {
      handshake.send(Buffer.from('RFB 003.008\n'))
      handshake.once('message', (data) => resolve(data as Buffer))
    })
    handshake.once('close', () => reject(new Error('the VNC server closed during the handshake')))
  })
  handshake.close()
  t.strictSame([...security], [1, 1], 'and the VNC server offers it no security but the bridge (one type: None)')

  t.equal((await fetch(`${base}/live/session`, { method: 'DELETE', headers: { cookie } })).status, 204, 'signing out')
  t.equal((await upgrade(ws, { cookie, origin: base })).status, 401, 'ends the session')

  const vnc = server.desktop.live as VncService
  t.ok(vnc.pid, 'x11vnc runs')
  const { stdout: inet } = await run('ss', ['-ltunpH'])
  t.strictSame(inet.split('\n').filter((l) => l.includes(`pid=${vnc.pid},`)), [], 'x11vnc listens on no TCP or UDP port, loopback or other')
  const { stdout: unix } = await run('ss', ['-lxpH'])
  const line = unix.split('\n').find((l) => l.includes(`pid=${vnc.pid},`))
  const socketPath = /\s(\/\S+)\s/.exec(line ?? '')?.[1]
  t.ok(socketPath, `x11vnc listens on a unix socket (${socketPath})`)
  const directory = statSync(dirname(socketPath!))
  t.equal(directory.mode & 0o777, 0o700, 'in a directory only this user may enter')
  t.equal(directory.uid, process.getuid!())
})
