/**
 * Browsers (SPEC §7): a web page must never reach the desktop. A foreign Origin or a Host that
 * is not the server's own is refused (403) before routing and before auth, and nothing is
 * sent to the desktop; an allowed origin gets CORS answers; clients without Origin (curl,
 * SDKs) pass as before.
 */
import t from 'tap'
import { build } from './helpers/build.ts'
import { errorBody } from './helpers/error-body.ts'

const TOKEN = 'a-token-of-24-characters'
const UITARS = "Action: click(start_box='(500,500)')"
const QWEN = '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [500, 500]}}\n</tool_call>'

const forbiddenOrigin = (origin: string) => (errorBody(403, 'ERR_FORBIDDEN_ORIGIN', `requests from web pages at ${origin} are refused: a web page must not drive this desktop. To let this front-end call the server, start it with --allow-origin ${origin} (or ALLOW_ORIGINS)`))
const forbiddenHost = (host: string, name: string, known = 'localhost, 127.0.0.1, [::1]') => ({
  statusCode: 403,
  code: 'ERR_FORBIDDEN_HOST',
  error: 'Forbidden',
  message: `the Host header '${host}' is not a name of this server (it answers to ${known}); a web page whose DNS name ` +
    `was pointed at this address is refused. To reach the server by this name, start it with --allow-host ${name} (or ALLOW_HOSTS)`,
})

type App = Awaited<ReturnType<typeof build>>['app']
async function send (app: App, method: 'GET' | 'POST' | 'OPTIONS', url: string, headers: Record<string, string>, payload?: string) {
  const response = await app.inject({ method, url, headers, ...(payload !== undefined && { payload }) })
  return { status: response.statusCode, headers: response.headers, body: response.body === '' ? '' : response.json() }
}

t.test('a web page posting model text (no preflight) cannot drive the desktop, token or not', async (t) => {
  const cases: Array<[string, string, string, Record<string, string>]> = [
    ['uitars, cross-site page', '/computer/uitars', UITARS, { origin: 'https://evil.example' }],
    ['qwen, cross-site page', '/computer/qwen', QWEN, { origin: 'https://evil.example' }],
    ['uitars, page on another local port', '/computer/uitars', UITARS, { origin: 'http://localhost:3000' }],
    ['qwen, page on another local port', '/computer/qwen', QWEN, { origin: 'http://127.0.0.1:8080' }],
  ]
  for (const token of [undefined, TOKEN]) {
    const { app, driver } = await build(t, token ? { token } : {})
    for (const [label, url, text, headers] of cases) {
      const answer = await send(app, 'POST', url, { 'content-type': 'text/plain', ...headers }, text)
      t.strictSame(answer, { status: 403, headers: answer.headers, body: forbiddenOrigin(headers.origin!) }, `${label}, ${token ? 'token' : 'no token'}`)
      t.equal(answer.headers['access-control-allow-origin'], undefined, 'no CORS answer for a refused origin')
    }
    t.strictSame(driver.calls, [], 'the desktop received no input')
  }
})

t.test('origins that can never be allowed: null, malformed, a browser request from another site without Origin', async (t) => {
  const { app, driver } = await build(t)
  const nullOrigin = await send(app, 'POST', '/computer/uitars', { 'content-type': 'text/plain', origin: 'null' }, UITARS)
  t.strictSame(nullOrigin.body, errorBody(403, 'ERR_FORBIDDEN_ORIGIN', "requests from a page with the origin 'null' (a sandboxed frame, a file or a malformed origin) are refused: serve the front-end from an http(s) origin and start the server with --allow-origin <that origin>"))
  const siteless = await send(app, 'GET', '/accessibility', { 'sec-fetch-site': 'cross-site' })
  t.strictSame(siteless.body, errorBody(403, 'ERR_FORBIDDEN_ORIGIN', 'a browser request from another site, without an Origin, is refused: a web page must not drive this desktop'))
  t.equal((await send(app, 'GET', '/health', { 'sec-fetch-site': 'same-site' })).status, 403)
  t.equal((await send(app, 'GET', '/health', { 'sec-fetch-site': 'none' })).status, 200, 'typed into the address bar')
  t.strictSame(driver.calls, [])
})

t.test('DNS rebinding: a Host that is not the server\'s own is refused, token or not, /health included', async (t) => {
  for (const token of [undefined, TOKEN]) {
    const { app, driver } = await build(t, token ? { token } : {})
    const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
    const hosts: Array<[string, string]> = [['evil.example:8000', 'evil.example'], ['evil.example', 'evil.example'], ['localhost.evil.example:8000', 'localhost.evil.example'], ['10.0.0.5:8000', '10.0.0.5']]
    for (const [host, name] of hosts) {
      for (const url of ['/computer/uitars', '/health']) {
        const answer = url === '/health'
          ? await send(app, 'GET', url, { host })
          : await send(app, 'POST', url, { host, 'content-type': 'text/plain', ...auth }, UITARS)
        t.strictSame(answer.body, forbiddenHost(host, name), `${host} ${url}`)
      }
    }
    // Rebinding makes the page same-origin with its own name: the Origin matches the Host.
    const sameName = await send(app, 'POST', '/computer/uitars', { host: 'evil.example:8000', origin: 'http://evil.example:8000', 'content-type': 'text/plain', ...auth }, UITARS)
    t.strictSame(sameName.body, forbiddenHost('evil.example:8000', 'evil.example'))
    t.strictSame(driver.calls, [], 'the desktop received no input')
  }
})

t.test('the server\'s own names pass, with any port; clients without Origin pass as before', async (t) => {
  const { app, driver } = await build(t)
  const hosts = ['localhost', 'localhost:8000', '127.0.0.1:1234', '127.1.2.3', '[::1]:8000', 'LOCALHOST:8000']
  for (const host of hosts) {
    const answer = await send(app, 'POST', '/computer', { host, 'content-type': 'application/json' }, '{"action":"move_mouse","coordinates":[5,5]}')
    t.strictSame(answer.body, { output: 'moved to (5, 5)', error: null, base64_image: null, cursor_position: [5, 5] }, host)
    t.equal(answer.headers['access-control-allow-origin'], undefined, 'no CORS headers without Origin')
  }
  t.equal(driver.calls.filter((call) => call.call === 'moveMouse').length, hosts.length)
  const curl = await send(app, 'POST', '/computer/uitars', { 'content-type': 'text/plain' }, UITARS)
  t.equal(curl.status, 200, 'text/plain without Origin: a script, not a page')
  t.ok(driver.calls.some((call) => call.call === 'buttonDown'), 'and it clicked')
})

t.test('an allowed origin gets CORS answers: preflight before auth, headers on every answer', async (t) => {
  const origin = 'http://localhost:3000'
  const { app, driver } = await build(t, { token: TOKEN, allowOrigins: [`${origin}/`] })
  const preflight = await send(app, 'OPTIONS', '/computer/uitars', {
    origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type',
  })
  t.equal(preflight.status, 204)
  t.match(preflight.headers, {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': 'Authorization, Content-Type, X-Api-Key, Mcp-Protocol-Version',
    'access-control-max-age': '600',
    vary: 'Origin',
  })
  const refusedPreflight = await send(app, 'OPTIONS', '/computer', { origin: 'https://evil.example', 'access-control-request-method': 'POST' })
  t.strictSame(refusedPreflight.body, forbiddenOrigin('https://evil.example'))

  const unauthorized = await send(app, 'POST', '/computer', { origin, 'content-type': 'application/json' }, '{"action":"get_cursor_position"}')
  t.equal(unauthorized.status, 401, 'the token still applies to an allowed origin')
  t.equal(unauthorized.headers['access-control-allow-origin'], origin, 'the front-end can read why')

  const clicked = await send(app, 'POST', '/computer/uitars', { origin, 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` }, UITARS)
  t.equal(clicked.status, 200, 'text/plain from an allowed origin')
  t.match(clicked.headers, { 'access-control-allow-origin': origin, 'access-control-expose-headers': 'Retry-After', vary: 'Origin' })
  t.ok(driver.calls.some((call) => call.call === 'buttonDown'), 'the allowed front-end clicked')
})

t.test('pages the server serves itself (/docs) may call it on a name it knows', async (t) => {
  const { app } = await build(t, { allowHosts: ['gateway.internal'] })
  for (const host of ['127.0.0.1:8000', 'localhost:8000', 'gateway.internal:8000']) {
    const answer = await send(app, 'POST', '/computer', { host, origin: `http://${host}`, 'content-type': 'application/json' }, '{"action":"get_cursor_position"}')
    t.equal(answer.status, 200, host)
  }
  const otherPort = await send(app, 'POST', '/computer', { host: 'localhost:8000', origin: 'http://localhost:8001', 'content-type': 'application/json' }, '{"action":"get_cursor_position"}')
  t.strictSame(otherPort.body, forbiddenOrigin('http://localhost:8001'), 'another port is another origin')
})

t.test('which Host headers pass depends on the bound address and the token', async (t) => {
  // [listenHost, token, allowHosts, Host header, passes]
  const cases: Array<[string, boolean, string[], string, boolean]> = [
    ['127.0.0.1', true, [], 'evil.example:8000', false],
    ['127.0.0.1', false, ['gateway.internal'], 'gateway.internal:8000', true],
    ['127.0.0.1', false, [], '192.168.1.5:8000', false],
    ['::1', false, [], '[::1]:8000', true],
    ['0.0.0.0', false, [], '192.168.1.5:8000', true],
    ['0.0.0.0', false, [], '[fd00::5]:8000', true],
    ['0.0.0.0', false, [], 'localhost:8000', true],
    ['0.0.0.0', false, [], 'gateway:8000', false],
    ['0.0.0.0', false, ['gateway'], 'gateway:8000', true],
    ['0.0.0.0', true, [], 'gateway:8000', true],
    ['0.0.0.0', true, [], 'evil.example:8000', true],
    ['0.0.0.0', true, ['gateway'], 'gateway:8000', true],
    ['0.0.0.0', true, ['gateway'], 'evil.example:8000', false],
    ['0.0.0.0', true, ['gateway'], '192.168.1.5:8000', true],
    ['10.0.0.5', false, [], '10.0.0.5:8000', true],
    ['10.0.0.5', false, [], 'box.lan:8000', false],
    ['10.0.0.5', true, [], 'box.lan:8000', true],
  ]
  for (const [listenHost, token, allowHosts, host, passes] of cases) {
    const { app } = await build(t, { listenHost, allowHosts, ...(token && { token: TOKEN }) })
    const answer = await send(app, 'GET', '/health', { host })
    t.equal(answer.status, passes ? 200 : 403, `bound to ${listenHost}${token ? ' with a token' : ''}${allowHosts.length ? ` allowing ${allowHosts.join(',')}` : ''}: Host ${host}`)
    await app.close()
  }
  const { app } = await build(t, { listenHost: '0.0.0.0', token: TOKEN, allowHosts: ['gateway'] })
  t.strictSame((await send(app, 'GET', '/health', { host: 'evil.example' })).body, forbiddenHost('evil.example', 'evil.example', 'localhost, 127.0.0.1, [::1], gateway, any IP address'))
})
