/**
 * /browser/cdp's WebSocket over a listening app and an in-memory browser: a call goes through
 * and its answer comes back under the client's id; a binary frame ends the session (1007); a
 * client that stops reading is disconnected once MAX_BUFFERED_BYTES wait for it, and the
 * session says why; a person's takeover ends the agent's session and refuses a new one (423).
 */
import t from 'tap'
import WebSocket from 'ws'
import { MAX_BUFFERED_BYTES } from '../routes/browser.ts'
import { build } from './helpers/build.ts'
import { fakeSource } from './helpers/cdp-pipe.ts'
import { upgrade } from './helpers/ws-upgrade.ts'

const TOKEN = 'browser-socket-token-0123'

async function listening (t: Parameters<typeof build>[0]) {
  const source = fakeSource()
  const { app } = await build(t, { token: TOKEN, browser: { kind: 'chromium', devtools: source } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  const connect = async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/browser/cdp`, { headers: { authorization: `Bearer ${TOKEN}` } })
    t.teardown(() => socket.terminate())
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject) })
    return socket
  }
  const closed = (socket: WebSocket) => new Promise<[number, string]>((resolve) => socket.once('close', (code, reason) => resolve([code, String(reason)])))
  const status = async () => (await app.inject({ method: 'GET', url: '/browser', headers: { authorization: `Bearer ${TOKEN}` } })).json()
  /** Waits (at most 5 s) until the browser was sent `count` messages. */
  const sent = async (count: number) => {
    for (const deadline = Date.now() + 5000; (source.pipes.at(-1)?.sent.length ?? 0) < count && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 10))
    return source.current.sent
  }
  return { app, port, source, connect, closed, status, sent }
}

t.test('a call and its answer through the socket, under the client\'s id', async (t) => {
  const { source, connect, sent } = await listening(t)
  const socket = await connect()
  const answer = new Promise<unknown>((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))))
  socket.send(JSON.stringify({ id: 41, method: 'Browser.getVersion' }))
  t.strictSame(await sent(1), [{ id: 1, method: 'Browser.getVersion' }])
  source.current.emit({ id: 1, result: { product: 'Chrome/156' } })
  t.strictSame(await answer, { id: 41, result: { product: 'Chrome/156' } })
})

t.test('a binary frame is not a CDP call: the session ends with 1007', async (t) => {
  const { connect, closed, status } = await listening(t)
  const socket = await connect()
  const ended = closed(socket)
  socket.send(Buffer.from([1, 2, 3]))
  t.strictSame(await ended, [1007, 'not a CDP call: a JSON object with a numeric id and a method is expected'])
  t.match(await status(), { current: null, recent: [{ id: 1, close_reason: 'the client sent something that is not a CDP call' }] })
})

t.test(`a client that stops reading is disconnected once ${MAX_BUFFERED_BYTES >> 20} MiB wait for it`, async (t) => {
  const { source, connect, status, sent } = await listening(t)
  const socket = await connect()
  socket.send(JSON.stringify({ id: 1, method: 'Page.enable' }))
  await sent(1)
  // The client's side stops reading: the kernel's buffers fill, then the server's.
  ;(socket as unknown as { _socket: { pause: () => void } })._socket.pause()
  const chunk = 'x'.repeat(1 << 20)
  const why = `the client read too slowly: more than ${MAX_BUFFERED_BYTES >> 20} MiB of the browser's messages waited for it`
  let body: { current: unknown, recent: Array<{ close_reason?: string }> } = { current: {}, recent: [] }
  for (let i = 0; i < 2 * (MAX_BUFFERED_BYTES >> 20) && body.current !== null; i++) {
    source.current.emit({ method: 'Network.dataReceived', params: { data: chunk } })
    if (i % 8 === 7) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      body = await status()
    }
  }
  body = await status()
  t.equal(body.current, null, 'the session ended')
  t.equal(body.recent[0]?.close_reason, why)
})

t.test('a person taking the desktop over ends the open session (1013) and refuses a new one with 423 until the release', async (t) => {
  const { app, port, connect, closed } = await listening(t)
  const auth = { authorization: `Bearer ${TOKEN}` }
  const socket = await connect()
  const ended = closed(socket)
  const takeover = await app.inject({ method: 'POST', url: '/control/takeover', headers: auth, payload: { holder: 'alice' } })
  t.equal(takeover.statusCode, 200)
  t.strictSame(await ended, [1013, 'the desktop is taken over by "alice"'])
  const refused = await upgrade(`ws://127.0.0.1:${port}/browser/cdp`, auth)
  t.match(refused, { status: 423, body: { statusCode: 423, code: 'ERR_DESKTOP_TAKEN_OVER', error: 'Locked', message: /^the desktop is taken over by "alice" since / } })
  t.strictSame(Object.keys(refused.body as object).sort(), ['code', 'error', 'message', 'statusCode'])
  t.equal((await app.inject({ method: 'POST', url: '/control/release', headers: auth, payload: {} })).statusCode, 200)
  const again = await connect()
  t.equal(again.readyState, WebSocket.OPEN, 'after the release the agent connects again')
})
