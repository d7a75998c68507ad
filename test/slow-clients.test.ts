/**
 * Slow and idle clients (SPEC §7): headers or a body that do not arrive in time are cut off
 * with 408, while time the server spends on an action (a wait) does not count; connections
 * beyond the cap are closed at once. A real listening server and raw sockets, since
 * app.inject() has no connection to be slow on.
 */
import net from 'node:net'
import t from 'tap'
import { build } from './helpers/build.ts'
import { errorBody } from './helpers/error-body.ts'

type App = Awaited<ReturnType<typeof build>>['app']

async function listen (app: App): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return (app.server.address() as net.AddressInfo).port
}

interface Exchange { response: string, ms: number }

/**
 * Sends the chunks one every `every` ms (stopping once the server closes) and reads until it
 * does, or gives up after 5 s (a server that never cuts the client off fails the test quickly).
 */
function exchange (port: number, chunks: string[], every: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1')
    socket.setTimeout(5000, () => socket.destroy())
    let response = ''
    let timer: NodeJS.Timeout | undefined
    const next = (i: number) => {
      if (i >= chunks.length || socket.destroyed) return
      socket.write(chunks[i]!)
      timer = setTimeout(() => next(i + 1), every)
    }
    socket.on('connect', () => next(0))
    socket.on('data', (data) => { response += data })
    socket.on('error', (error: NodeJS.ErrnoException) => { if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error) })
    socket.on('close', () => { clearTimeout(timer); resolve({ response, ms: Date.now() - started }) })
  })
}

/** Status and parsed JSON body of a raw HTTP/1.1 response. */
function parse (response: string) {
  const [head = '', body = ''] = response.split('\r\n\r\n')
  return { status: Number(head.split(' ')[1]), body: body === '' ? null : JSON.parse(body) }
}

const requestTimeout = (headers: number, request: number) => (errorBody(408, 'ERR_REQUEST_TIMEOUT', `the request did not arrive in time: headers must arrive within ${headers} s and the whole request within ${request} s (see --headers-timeout and --request-timeout)`))

const head = (length: number) => `POST /computer HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${length}\r\n\r\n`

t.test('a client too slow with its headers or body gets 408; a long action is not upload time', async (t) => {
  const { app, driver, logs } = await build(t, { headersTimeoutMs: 500, requestTimeoutMs: 1000 })
  const port = await listen(app)
  const click = JSON.stringify({ action: 'click_mouse', coordinates: [5, 5] })
  const wait = JSON.stringify({ action: 'wait', duration: 1.5 })
  // [label, chunks, interval ms, status, body, cut off after at least … ms]
  const cases: Array<[string, string[], number, number, unknown, number]> = [
    ['connects and sends nothing', [], 0, 408, requestTimeout(0.5, 1), 500],
    ['headers at 10 bytes/s', [...'POST /computer HTTP/1.1\r\nHost: localhost\r\n'], 100, 408, requestTimeout(0.5, 1), 500],
    ['body at 5 bytes/s', [head(click.length), ...click], 200, 408, requestTimeout(0.5, 1), 1000],
    ['a 1.5 s wait, sent at once', [head(wait.length) + wait], 0, 200, { output: 'waited 1.5 s', error: null, base64_image: null, cursor_position: [0, 0] }, 1500],
  ]
  const answers = await Promise.all(cases.map(([, chunks, every]) => exchange(port, chunks, every)))
  cases.forEach(([label, , , status, body, after], i) => {
    const { response, ms } = answers[i]!
    t.strictSame(parse(response), { status, body }, label)
    t.ok(ms >= after - 50 && ms < after + 2500, `${label}: answered after ${ms} ms`)
  })
  t.notOk(driver.calls.some((call) => call.call === 'buttonDown'), 'the trickled click never ran')
  t.equal(logs.filter((line) => line.msg === 'connection refused' && line.code === 'ERR_REQUEST_TIMEOUT').length, 3, 'each cut-off is logged')
})

t.test('connections beyond the cap are closed at once; a freed slot takes the next', async (t) => {
  const { app } = await build(t, { maxConnections: 2, headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 })
  const port = await listen(app)
  const held = [net.connect(port, '127.0.0.1'), net.connect(port, '127.0.0.1')]
  await Promise.all(held.map((socket) => new Promise((resolve) => socket.on('connect', resolve))))
  // The server counts a connection once it accepts it; give it the moment to.
  await new Promise((resolve) => setTimeout(resolve, 100))
  const body = JSON.stringify({ action: 'get_cursor_position' })
  const over = await exchange(port, [head(body.length) + body], 0)
  t.strictSame(over.response, '', 'the third connection is closed without an answer')
  t.ok(over.ms < 1000, `closed at once (${over.ms} ms)`)

  held[0]!.destroy()
  await new Promise((resolve) => setTimeout(resolve, 100))
  const freed = await exchange(port, [head(body.length) + body], 0)
  t.strictSame(parse(freed.response), { status: 200, body: { output: 'cursor at (0, 0)', error: null, base64_image: null, cursor_position: [0, 0] } })
  held[1]!.destroy()
})
