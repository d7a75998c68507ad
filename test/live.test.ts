/**
 * The live view's logic above the desktop: the RFB input filter (framing, view-only, what a
 * closed tab leaves held), the session store and cookie, the --live-control flag, and the
 * routes over the fake driver with a stand-in VNC server on a unix socket that records what
 * reaches it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Socket } from 'node:net'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import WebSocket from 'ws'
import { loadConfig } from '../src/runtime/config.ts'
import { RfbInputFilter, RfbProtocolError } from '../src/live/rfb-input.ts'
import { cookieValue, LiveSessions, sessionCookie } from '../src/live/sessions.ts'
import type { LiveSource } from '../src/live/source.ts'
import { build } from './helpers/build.ts'
import { until } from './helpers/desktop.ts'

const HANDSHAKE = Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([1]), Buffer.from([1])])
const setEncodings = () => Buffer.from([2, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1])
const updateRequest = () => Buffer.from([3, 1, 0, 0, 0, 0, 5, 0, 3, 32])
const key = (down: boolean, keysym: number) => { const b = Buffer.alloc(8); b[0] = 4; b[1] = down ? 1 : 0; b.writeUInt32BE(keysym, 4); return b }
const pointer = (mask: number, x: number, y: number) => { const b = Buffer.alloc(6); b[0] = 5; b[1] = mask; b.writeUInt16BE(x, 2); b.writeUInt16BE(y, 4); return b }
const cutText = (text: string) => { const b = Buffer.alloc(8); b[0] = 6; b.writeInt32BE(text.length, 4); return Buffer.concat([b, Buffer.from(text, 'latin1')]) }
const desktopSize = () => { const b = Buffer.alloc(8 + 16); b[0] = 251; b.writeUInt16BE(800, 2); b.writeUInt16BE(600, 4); b[6] = 1; return b }

/** Feeds `data` to the filter one byte at a time: framing must not depend on how the bytes arrive. */
const byteByByte = (filter: RfbInputFilter, data: Buffer) => Buffer.concat([...data].map((byte) => filter.push(Buffer.from([byte]))))

t.test('view-only: the handshake and screen requests pass, no input does', async (t) => {
  const filter = new RfbInputFilter(false)
  const stream = Buffer.concat([HANDSHAKE, setEncodings(), updateRequest(), key(true, 0x61), pointer(1, 10, 20), cutText('secret'), desktopSize(), updateRequest()])
  t.strictSame(byteByByte(filter, stream), Buffer.concat([HANDSHAKE, setEncodings(), updateRequest(), updateRequest()]))
  t.notOk(filter.holding)
  t.equal(filter.releases().length, 0, 'nothing to release: nothing went through')
})

t.test('control: input passes and is remembered; releases() lets go of exactly what is held', async (t) => {
  const filter = new RfbInputFilter(true)
  filter.push(HANDSHAKE)
  const input = Buffer.concat([key(true, 0xffe1), key(true, 0x61), key(false, 0x61), pointer(0, 5, 5), pointer(1, 300, 200), pointer(1, 310, 220), cutText('x')])
  t.strictSame(filter.push(input), input, 'keys, pointer and clipboard reach the VNC server')
  t.strictSame(filter.push(desktopSize()), Buffer.alloc(0), 'resizing the desktop never does')
  t.ok(filter.holding)
  t.strictSame(filter.releases(), Buffer.concat([key(false, 0xffe1), pointer(0, 310, 220)]), 'shift up, and the button up where the pointer is')
  t.notOk(filter.holding)
  t.equal(filter.releases().length, 0)
})

t.test('what cannot be framed ends the connection', async (t) => {
  const started = () => { const f = new RfbInputFilter(true); f.push(HANDSHAKE); return f }
  t.throws(() => new RfbInputFilter(false).push(Buffer.from('GET / HTTP/1.1\r\n')), RfbProtocolError)
  t.throws(() => new RfbInputFilter(false).push(Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([2])])), /security type 2/)
  t.throws(() => started().push(Buffer.from([99])), /unknown RFB client message type 99/)
  const huge = Buffer.alloc(8); huge[0] = 6; huge.writeInt32BE(64 << 20, 4)
  t.throws(() => started().push(huge), /over the/)
})

t.test('sessions end when idle, when too old, and when revoked', async (t) => {
  let now = 0
  const sessions = new LiveSessions({ idleMs: 1000, lifetimeMs: 5000, now: () => now })
  const a = sessions.issue()
  t.match(a, /^[A-Za-z0-9_-]{43}$/)
  t.ok(sessions.use(a))
  now = 900; t.ok(sessions.use(a), 'use renews it')
  now = 1800; t.ok(sessions.use(a))
  now = 2900; t.notOk(sessions.use(a), 'idle too long')
  const b = sessions.issue()
  for (now = 3000; now <= 7900; now += 700) t.ok(sessions.use(b), `in use at ${now}`)
  now = 8100; t.notOk(sessions.use(b), 'older than its lifetime, however used')
  const c = sessions.issue()
  sessions.revoke(c)
  t.notOk(sessions.use(c))
  t.notOk(sessions.use(undefined))
  t.notOk(sessions.use('made-up'))
  t.equal(cookieValue('a=1; cg_live=xyz; b=2', 'cg_live'), 'xyz')
  t.equal(cookieValue('cg_livex=1', 'cg_live'), undefined)
  t.equal(sessionCookie('id', 60, true), 'cg_live=id; Max-Age=60; HttpOnly; SameSite=Strict; Secure')
})

t.test('--live-control (LIVE_CONTROL) allows input; the default is view-only', async (t) => {
  t.equal(loadConfig([], {}).liveControl, false)
  t.equal(loadConfig(['--live-control'], {}).liveControl, true)
  t.equal(loadConfig([], { LIVE_CONTROL: 'true' }).liveControl, true)
})

/** A stand-in VNC server on a unix socket: greets like one and records what it receives. */
async function standInVnc (t: { teardown: (fn: () => unknown) => void }, control: boolean) {
  const directory = await mkdtemp(join(tmpdir(), 'cg-live-test-'))
  const path = join(directory, 'rfb.sock')
  let received = Buffer.alloc(0)
  let ended = 0
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.write('RFB 003.008\n')
    socket.on('data', (chunk) => { received = Buffer.concat([received, chunk]) })
    socket.on('end', () => { ended++; socket.end() })
  })
  await new Promise<void>((resolve) => server.listen(path, resolve))
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
    await rm(directory, { recursive: true, force: true })
  })
  const source: LiveSource = {
    control,
    connect: () => new Promise((resolve, reject) => { const s = connect(path, () => resolve(s)); s.once('error', reject) }),
    close: async () => {},
  }
  return { source, received: () => received, ended: () => ended }
}

async function openSocket (url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers })
  await new Promise((resolve, reject) => { socket.once('message', resolve); socket.once('error', reject) })
  return socket
}

t.test('the bridge: view-only drops input; with control and the lease a closed socket releases what it held, and the lease', async (t) => {
  for (const control of [false, true]) {
    await t.test(control ? 'control' : 'view-only', async (t) => {
      const vnc = await standInVnc(t, control)
      const { app } = await build(t, { live: vnc.source })
      await app.listen({ host: '127.0.0.1', port: 0 })
      const url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/live/websockify?viewer=tab-0000-0001`
      const socket = await openSocket(url)
      socket.send(HANDSHAKE)
      // With control, input passes only while this tab holds the lease (docs/takeover.md).
      const takeover = await app.inject({ method: 'POST', url: '/live/takeover', payload: { viewer: 'tab-0000-0001' } })
      t.equal(takeover.statusCode, control ? 200 : 403, control ? 'the tab takes the desktop over' : 'a view-only live view cannot take over')
      socket.send(Buffer.concat([updateRequest(), pointer(1, 40, 50), key(true, 0x61)]))
      socket.send(updateRequest())
      const expected = control
        ? Buffer.concat([HANDSHAKE, updateRequest(), pointer(1, 40, 50), key(true, 0x61), updateRequest()])
        : Buffer.concat([HANDSHAKE, updateRequest(), updateRequest()])
      t.ok(await until(() => vnc.received().length >= expected.length, 3000))
      t.strictSame(vnc.received(), expected, control ? 'input passed' : 'only the screen requests passed')
      socket.close()
      t.ok(await until(() => vnc.ended() === 1, 3000), 'the VNC connection ended with the socket')
      const releases = control ? Buffer.concat([key(false, 0x61), pointer(0, 40, 50)]) : Buffer.alloc(0)
      t.strictSame(vnc.received(), Buffer.concat([expected, releases]), control ? 'the held key and button were released first' : 'and nothing else')
      t.ok(await until(() => app.control.lease === null, 3000), 'the closed tab holds no lease')
    })
  }
})

t.test('without a token the live view is as open as the API, and still refuses other origins', async (t) => {
  const vnc = await standInVnc(t, false)
  const { app } = await build(t, { live: vnc.source })
  const page = await app.inject({ url: '/live' })
  t.equal(page.statusCode, 200)
  t.match(page.body, /live\/websockify/, 'the viewer, no sign-in')
  t.match(page.headers['content-security-policy'], /frame-ancestors 'none'/)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const own = await openSocket(`ws://${base}/live/websockify`, { origin: `http://${base}` })
  own.close()
  const refused = await new Promise<number>((resolve) => {
    const socket = new WebSocket(`ws://${base}/live/websockify`, { headers: { origin: 'http://evil.test' } })
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode!))
    socket.on('error', () => {})
  })
  t.equal(refused, 403)
})

t.test('the state panel: readiness, queue, held inputs and the last action (its name, never its text)', async (t) => {
  const vnc = await standInVnc(t, false)
  const { app } = await build(t, { live: vnc.source, token: 'a-token-of-24-characters' })
  const session = await app.inject({ method: 'POST', url: '/live/session', headers: { authorization: 'Bearer a-token-of-24-characters' } })
  const cookie = String(session.headers['set-cookie']).split(';')[0]!
  const before = await app.inject({ url: '/live/state', headers: { cookie } })
  t.match(before.json(), { ready: true, queue: 0, held: { keys: [], buttons: [] }, control: false, last_action: null })
  const typed = await app.inject({ method: 'POST', url: '/computer', headers: { authorization: 'Bearer a-token-of-24-characters' }, payload: { action: 'type_text', text: 'hunter2' } })
  t.equal(typed.statusCode, 200)
  const after = await app.inject({ url: '/live/state', headers: { cookie } })
  t.match(after.json().last_action, { route: '/computer', action: 'type_text', status: 200, ms: Number })
  t.notMatch(after.body, /hunter2/)
})

t.test('a server without an X desktop says why it has no live view', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/live' })
  t.equal(response.statusCode, 404)
  t.match(response.json(), { code: 'ERR_NOT_FOUND', message: /needs an X desktop/ })
})
