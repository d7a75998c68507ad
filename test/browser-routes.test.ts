/**
 * /browser and /browser/cdp over the fake driver: what a server without DevTools answers
 * (--browser firefox, or chromium on a desktop without X), the discovery a CDP client asks for
 * pointing back at the gateway, and the guard and the token in front of all of it. The
 * WebSocket itself, with a real Chromium, is test/e2e-browser-cdp.test.ts.
 */
import t from 'tap'
import { loadConfig } from '../src/runtime/config.ts'
import { build } from './helpers/build.ts'
import { fakeSource } from './helpers/cdp-pipe.ts'
import { errorBody } from './helpers/error-body.ts'

const FIREFOX = "the desktop's browser is Firefox, whose DevTools this server does not serve: start the server with --browser chromium (env DESKTOP_BROWSER=chromium) for /browser/cdp"
const NO_X = '--browser chromium serves its DevTools on an X desktop, and the fake driver has none: use --driver nut or xdotool'
const TOKEN = 'browser-routes-token-0123'

t.test('without DevTools every /browser/cdp path answers 409 saying what would serve it', async (t) => {
  const cases = [
    { name: 'the default browser (firefox)', options: {}, browser: 'firefox', message: FIREFOX },
    { name: '--browser firefox', options: { browser: { kind: 'firefox' as const } }, browser: 'firefox', message: FIREFOX },
    { name: '--browser chromium on the fake driver', options: { browser: { kind: 'chromium' as const } }, browser: 'chromium', message: NO_X },
  ]
  for (const { name, options, browser, message } of cases) {
    await t.test(name, async (t) => {
      const { app } = await build(t, options)
      const status = await app.inject({ method: 'GET', url: '/browser' })
      t.equal(status.statusCode, 200)
      t.strictSame(status.json(), { browser, devtools: false, current: null, recent: [] })
      for (const url of ['/browser/cdp', '/browser/cdp/json/version', '/browser/cdp/json/version/']) {
        const response = await app.inject({ method: 'GET', url, headers: { connection: 'Upgrade', upgrade: 'websocket' } })
        t.equal(response.statusCode, 409, url)
        t.strictSame(response.json(), errorBody(409, 'ERR_BROWSER_NO_DEVTOOLS', message), url)
      }
    })
  }
})

t.test('discovery: the browser\'s version, and its WebSocket at this server by the Host the client used', async (t) => {
  const source = fakeSource()
  const { app } = await build(t, { browser: { kind: 'chromium', devtools: source } })
  const answer = app.inject({ method: 'GET', url: '/browser/cdp/json/version/', headers: { host: '127.0.0.1:8123' } })
  while (!source.pipes.length || !source.current.sent.length) await new Promise((resolve) => setImmediate(resolve))
  const call = source.current.sent[0]!
  t.strictSame(call, { id: 1, method: 'Browser.getVersion' })
  source.current.emit({ id: call.id, result: { protocolVersion: '1.3', product: 'Chrome/156.0.8078.108', revision: '@730482', userAgent: 'Mozilla/5.0 Chrome/156', jsVersion: '15.6.75.63' } })
  const response = await answer
  t.equal(response.statusCode, 200)
  t.strictSame(response.json(), {
    'Browser': 'Chrome/156.0.8078.108',
    'Protocol-Version': '1.3',
    'User-Agent': 'Mozilla/5.0 Chrome/156',
    'V8-Version': '15.6.75.63',
    'WebKit-Version': '@730482',
    webSocketDebuggerUrl: 'ws://127.0.0.1:8123/browser/cdp',
  })
  t.strictSame((await app.inject({ method: 'GET', url: '/browser' })).json(), { browser: 'chromium', devtools: true, current: null, recent: [] }, 'discovery is no session')

  source.fail = Object.assign(new Error('the browser could not be started (chromium): spawn chromium ENOENT'), { statusCode: 503, code: 'ERR_BROWSER_UNAVAILABLE' })
  source.current.end('gone')
  const failed = await app.inject({ method: 'GET', url: '/browser/cdp/json/version' })
  t.equal(failed.statusCode, 503)
  t.strictSame(failed.json(), errorBody(503, 'ERR_BROWSER_UNAVAILABLE', 'the browser could not be started (chromium): spawn chromium ENOENT'))
})

t.test('the token, a foreign Origin and a foreign Host are refused before the browser is asked anything', async (t) => {
  const source = fakeSource()
  const { app } = await build(t, { token: TOKEN, browser: { kind: 'chromium', devtools: source } })
  const bearer = { authorization: `Bearer ${TOKEN}` }
  const cases = [
    { name: 'no token', headers: {}, status: 401, code: 'ERR_UNAUTHORIZED', message: 'this server needs an API token: send "Authorization: Bearer <token>"' },
    { name: 'a wrong token', headers: { authorization: 'Bearer nope' }, status: 401, code: 'ERR_UNAUTHORIZED', message: 'the API token is not valid' },
    {
      name: 'a web page',
      headers: { ...bearer, origin: 'http://evil.example' },
      status: 403,
      code: 'ERR_FORBIDDEN_ORIGIN',
      message: 'requests from web pages at http://evil.example are refused: a web page must not drive this desktop. To let this front-end call the server, start it with --allow-origin http://evil.example (or ALLOW_ORIGINS)',
    },
    {
      name: 'a rebinding name',
      headers: { ...bearer, host: 'evil.example:8000' },
      status: 403,
      code: 'ERR_FORBIDDEN_HOST',
      message: "the Host header 'evil.example:8000' is not a name of this server (it answers to localhost, 127.0.0.1, [::1]); a web page whose DNS name was pointed at this address is refused. To reach the server by this name, start it with --allow-host evil.example (or ALLOW_HOSTS)",
    },
  ]
  for (const { name, headers, status, code, message } of cases) {
    for (const url of ['/browser/cdp', '/browser/cdp/json/version', '/browser']) {
      const response = await app.inject({ method: 'GET', url, headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers } })
      t.equal(response.statusCode, status, `${name}: ${url}`)
      t.strictSame(response.json(), errorBody(status, code, message), `${name}: ${url}`)
    }
  }
  t.equal(source.pipes.length, 0, 'the browser was never started')
})

t.test('--browser: firefox by default; chromium is launch_app\'s browser on the full desktop', async (t) => {
  const cases = [
    { argv: [], env: {}, browser: 'firefox', argvOfBrowser: ['firefox-esr', '--new-window'] },
    { argv: ['--browser', 'chromium'], env: {}, browser: 'chromium', argvOfBrowser: ['chromium', '--new-window'] },
    { argv: [], env: { DESKTOP_BROWSER: 'chromium' }, browser: 'chromium', argvOfBrowser: ['chromium', '--new-window'] },
    { argv: ['--browser', 'firefox'], env: { DESKTOP_BROWSER: 'chromium' }, browser: 'firefox', argvOfBrowser: ['firefox-esr', '--new-window'] },
  ]
  for (const { argv, env, browser, argvOfBrowser } of cases) {
    const config = loadConfig(['--desktop', 'full', '--home', '/tmp/browser-home', ...argv], env)
    t.equal(config.browser, browser, argv.join(' ') || JSON.stringify(env))
    t.strictSame(config.apps.browser, argvOfBrowser)
    t.equal(config.appTargets.browser, 'url')
  }
  t.strictSame(loadConfig(['--browser', 'chromium'], {}).apps, {}, 'the minimal desktop still knows no application by name')
  t.throws(() => loadConfig(['--browser', 'chrome'], {}), { code: 'ERR_INVALID_CONFIG', message: "--browser must be one of firefox, chromium (got 'chrome')" })
})
