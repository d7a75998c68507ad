/**
 * The DevTools broker over an in-memory pipe: one client at a time, its ids renumbered and
 * given back, late answers dropped, the connection undone when it leaves, each session kept
 * and logged without its content.
 */
import { Writable } from 'node:stream'
import pino from 'pino'
import t from 'tap'
import { CdpBroker, SESSION_HISTORY, type CdpCallRecord, type CdpClient } from '../src/browser/cdp-broker.ts'
import { fakeSource } from './helpers/cdp-pipe.ts'

function logged () {
  const lines: Array<Record<string, unknown>> = []
  const log = pino({ level: 'info' }, new Writable({ write (chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done() } }))
  return { log, lines }
}

function client () {
  const got = { sent: [] as Array<Record<string, unknown>>, closes: [] as Array<[number, string]> }
  const side: CdpClient = { send: (text) => { got.sent.push(JSON.parse(text)) }, close: (code, reason) => { got.closes.push([code, reason]) } }
  return { side, got }
}

const fields = (lines: Array<Record<string, unknown>>) => lines.map(({ msg, session, client, reason }) => ({ msg, session, client, ...(reason !== undefined && { reason }) }))

t.test('a session: calls renumbered, answers given back with the client\'s ids, events passed, the connection undone after', async (t) => {
  const source = fakeSource()
  const { log, lines } = logged()
  const broker = new CdpBroker(source, log)
  const { side, got } = client()
  const session = await broker.open(side, '127.0.0.1')
  session.received(JSON.stringify({ id: 7, method: 'Target.setAutoAttach', params: { autoAttach: true, flatten: true } }))
  session.received(JSON.stringify({ id: 8, method: 'Runtime.evaluate', sessionId: 'S1', params: { expression: 'secret page text' } }))
  const pipe = source.current
  t.same(pipe.sent, [
    { id: 1, method: 'Target.setAutoAttach', params: { autoAttach: true, flatten: true } },
    { id: 2, method: 'Runtime.evaluate', sessionId: 'S1', params: { expression: 'secret page text' } },
  ], 'the browser gets the calls with ids of the broker\'s own')
  pipe.emit({ method: 'Target.attachedToTarget', params: { sessionId: 'S1', targetInfo: { targetId: 'T1' } } })
  pipe.emit({ method: 'Target.attachedToTarget', params: { sessionId: 'S2', targetInfo: { targetId: 'T2' } } })
  pipe.emit({ id: 2, sessionId: 'S1', result: { result: { value: 42 } } })
  pipe.emit({ id: 1, result: {} })
  pipe.emit({ method: 'Target.detachedFromTarget', params: { sessionId: 'S2' } })
  t.same(got.sent, [
    { method: 'Target.attachedToTarget', params: { sessionId: 'S1', targetInfo: { targetId: 'T1' } } },
    { method: 'Target.attachedToTarget', params: { sessionId: 'S2', targetInfo: { targetId: 'T2' } } },
    { id: 8, sessionId: 'S1', result: { result: { value: 42 } } },
    { id: 7, result: {} },
    { method: 'Target.detachedFromTarget', params: { sessionId: 'S2' } },
  ], 'the client gets the events and its answers, under its own ids')
  t.match(broker.sessions(), { current: { id: 1, client: '127.0.0.1', messages_in: 2, messages_out: 5 }, recent: [] })

  session.received(JSON.stringify({ id: 9, method: 'Page.navigate', sessionId: 'S1', params: { url: 'https://example.com' } }))
  session.closed()
  pipe.emit({ id: 3, sessionId: 'S1', result: { frameId: 'F' } })
  t.equal(got.sent.length, 5, 'an answer arriving after the client left goes nowhere')
  t.same(pipe.sent.slice(3), [
    { id: 4, method: 'Target.setAutoAttach', params: { autoAttach: false, waitForDebuggerOnStart: false, flatten: true } },
    { id: 5, method: 'Target.setDiscoverTargets', params: { discover: false } },
    { id: 6, method: 'Target.detachFromTarget', params: { sessionId: 'S1' } },
  ], 'what the client set on the connection is undone, and the session still attached detached')
  pipe.emit({ id: 4, result: {} })
  const { current, recent } = broker.sessions()
  t.equal(current, null)
  t.match(recent, [{ id: 1, client: '127.0.0.1', messages_in: 3, messages_out: 5, close_reason: 'the client closed the connection', closed_at: String }])
  t.same(fields(lines), [
    { msg: 'CDP session opened', session: 1, client: '127.0.0.1' },
    { msg: 'CDP session closed', session: 1, client: '127.0.0.1', reason: 'the client closed the connection' },
  ], 'open and close are logged')
  t.notOk(JSON.stringify(lines).includes('secret page text') || JSON.stringify(lines).includes('example.com'), 'no message content in the log')

  const next = client()
  const again = await broker.open(next.side, '127.0.0.1')
  again.received(JSON.stringify({ id: 1, method: 'Browser.getVersion' }))
  pipe.emit({ id: 7, result: { product: 'Chrome/1' } })
  t.same(next.got.sent, [{ id: 1, result: { product: 'Chrome/1' } }], 'the next client starts afresh on the same browser, its ids its own')
})

t.test('refusals and endings', async (t) => {
  const cases: Array<{ name: string, run: (broker: CdpBroker, source: ReturnType<typeof fakeSource>) => Promise<unknown>, expect: unknown }> = [
    {
      name: 'a second client while one is connected: 409 once the wait is over',
      run: async (broker) => {
        await broker.open(client().side, 'a')
        return broker.admit(50).then(() => 'admitted', (error: Error & { code: string, statusCode: number }) => ({ code: error.code, statusCode: error.statusCode, message: error.message }))
      },
      expect: { code: 'ERR_BROWSER_BUSY', statusCode: 409, message: "another client holds the browser's DevTools connection (session 1); one client at a time: close the other (browser.disconnect() / browser.close()) and connect again" },
    },
    {
      name: 'a client that comes back while its close is in flight is let in',
      run: async (broker) => {
        const first = await broker.open(client().side, 'a')
        setTimeout(() => first.closed(), 20)
        return broker.admit(2000).then(() => 'admitted')
      },
      expect: 'admitted',
    },
    {
      name: 'a message that is not a CDP call ends the session with 1007',
      run: async (broker) => {
        const { side, got } = client()
        const session = await broker.open(side, 'a')
        session.received('{"method":"Page.enable"}')
        return { closes: got.closes, current: broker.sessions().current, reason: broker.sessions().recent[0]?.close_reason }
      },
      expect: { closes: [[1007, 'not a CDP call: a JSON object with a numeric id and a method is expected']], current: null, reason: 'the client sent something that is not a CDP call' },
    },
    {
      name: 'the browser exits: the client is closed with 1011 and why',
      run: async (broker, source) => {
        const { side, got } = client()
        await broker.open(side, 'a')
        source.current.end('the browser closed its DevTools pipe (it exited)')
        return { closes: got.closes, reason: broker.sessions().recent[0]?.close_reason }
      },
      expect: { closes: [[1011, 'the browser closed its DevTools pipe (it exited)']], reason: 'the browser closed its DevTools pipe (it exited)' },
    },
    {
      name: 'the browser cannot start: the error, and the next client is not refused as busy',
      run: async (broker, source) => {
        source.fail = new Error('no chromium')
        const failed = await broker.open(client().side, 'a').then(() => 'opened', (error: Error) => error.message)
        source.fail = undefined
        await broker.admit(0)
        return failed
      },
      expect: 'no chromium',
    },
    {
      name: 'the server stops: the client is closed with 1001',
      run: async (broker) => {
        const { side, got } = client()
        await broker.open(side, 'a')
        broker.close()
        return got.closes
      },
      expect: [[1001, 'the server is stopping']],
    },
  ]
  for (const { name, run, expect } of cases) {
    await t.test(name, async (t) => {
      const source = fakeSource()
      t.same(await run(new CdpBroker(source, logged().log), source), expect)
    })
  }
})

t.test('the server\'s own call (discovery) is answered beside a client\'s session and never reaches the client', async (t) => {
  const source = fakeSource()
  const broker = new CdpBroker(source, logged().log)
  const { side, got } = client()
  await broker.open(side, 'a')
  const version = broker.call('Browser.getVersion')
  await new Promise((resolve) => setImmediate(resolve))
  const call = source.current.sent.at(-1)!
  t.same(call, { id: 1, method: 'Browser.getVersion' })
  source.current.emit({ id: call.id, result: { product: 'Chrome/156' } })
  t.same(await version, { product: 'Chrome/156' })
  t.same(got.sent, [], 'the client saw nothing of it')
  const refused = broker.call('Browser.getVersion')
  await new Promise((resolve) => setImmediate(resolve))
  source.current.emit({ id: 2, error: { code: -32601, message: 'no' } })
  await t.rejects(refused, { code: 'ERR_BROWSER_UNAVAILABLE', message: 'the browser refused Browser.getVersion: {"code":-32601,"message":"no"}' })
  await t.rejects(broker.call('Browser.getVersion', 20), { code: 'ERR_BROWSER_UNAVAILABLE', message: 'the browser did not answer Browser.getVersion within 0.02 s' })
})

t.test(`GET /browser keeps the last ${SESSION_HISTORY} sessions, newest first`, async (t) => {
  const broker = new CdpBroker(fakeSource(), logged().log)
  for (let i = 0; i < SESSION_HISTORY + 3; i++) (await broker.open(client().side, `client-${i}`)).closed()
  const { recent } = broker.sessions()
  t.equal(recent.length, SESSION_HISTORY)
  t.same([recent[0]!.id, recent.at(-1)!.id], [SESSION_HISTORY + 3, 4])
})

t.test('onCall: each call of the client as it ended (answered, refused, left unanswered), never its parameters or result', async (t) => {
  const source = fakeSource()
  const broker = new CdpBroker(source, logged().log)
  const calls: CdpCallRecord[] = []
  const { side } = client()
  const session = await broker.open(side, '127.0.0.1', (call) => calls.push(call))
  const sent = [
    { id: 7, method: 'Target.attachToTarget', params: { targetId: 'T1', flatten: true } },
    { id: 8, method: 'Runtime.evaluate', sessionId: 'S1', params: { expression: 'secret page text' } },
    { id: 9, method: 'Page.navigate', sessionId: 'S1', params: { url: 'https://example.com' } },
  ]
  for (const call of sent) session.received(JSON.stringify(call))
  const pipe = source.current
  pipe.emit({ id: 2, sessionId: 'S1', result: { result: { value: 'secret result' } } })
  pipe.emit({ id: 1, error: { code: -32602, message: 'No target with given id found', data: 'more' } })
  session.closed()
  const size = (value: object) => Buffer.byteLength(JSON.stringify(value))
  const common = { session: 1, started_at: Number, ms: Number }
  t.match(calls, [
    { ...common, id: 8, method: 'Runtime.evaluate', session_id: 'S1', target_id: null, bytes_in: size(sent[1]!), bytes_out: size({ id: 8, sessionId: 'S1', result: { result: { value: 'secret result' } } }), error: null, unanswered: null },
    { ...common, id: 7, method: 'Target.attachToTarget', session_id: null, target_id: 'T1', bytes_in: size(sent[0]!), bytes_out: size({ id: 7, error: { code: -32602, message: 'No target with given id found', data: 'more' } }), error: { code: -32602, message: 'No target with given id found' }, unanswered: null },
    { ...common, id: 9, method: 'Page.navigate', session_id: 'S1', target_id: null, bytes_in: size(sent[2]!), bytes_out: null, error: null, unanswered: 'the client closed the connection' },
  ], 'in the order they ended')
  t.strictSame(calls.map((call) => Object.keys(call).sort()), calls.map(() => ['bytes_in', 'bytes_out', 'error', 'id', 'method', 'ms', 'session', 'session_id', 'started_at', 'target_id', 'unanswered']), 'no other field')
  t.notOk(JSON.stringify(calls).includes('secret') || JSON.stringify(calls).includes('example.com'), 'no parameter or result')
})
