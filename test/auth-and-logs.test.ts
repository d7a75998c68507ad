/**
 * Auth (SPEC §7): with a token, every route but GET /health needs it; the seed-compatible
 * route also takes x-api-key. Logs (SPEC §8): one line per action, never the token, never
 * typed text or image data unless the level is debug (text only).
 */
import t from 'tap'
import { build, post } from './helpers/build.ts'
import { loadConfig } from '../src/runtime/config.ts'
import { tokenMatches } from '../src/http/auth.ts'
import pino from 'pino'
import { Writable } from 'node:stream'
import { loggerOptions, redactUrl } from '../src/runtime/logger.ts'

const TOKEN = 's3cret-token-value'
const action = { action: 'get_cursor_position' }

t.test('a token guards every route but /health', async (t) => {
  const { app } = await build(t, { token: TOKEN })
  const missing = await post(app, '/computer', action)
  t.strictSame(missing.body, { statusCode: 401, code: 'ERR_UNAUTHORIZED', error: 'Unauthorized', message: 'this server needs an API token: send "Authorization: Bearer <token>"' })
  const wrong = await post(app, '/computer', action, { authorization: 'Bearer nope' })
  t.strictSame(wrong.body, { statusCode: 401, code: 'ERR_UNAUTHORIZED', error: 'Unauthorized', message: 'the API token is not valid' })
  const right = await post(app, '/computer', action, { authorization: `Bearer ${TOKEN}` })
  t.equal(right.status, 200)
  t.equal((await post(app, '/computer/batch', { actions: [action] }, { authorization: `Bearer ${TOKEN}` })).status, 200)
  t.equal((await post(app, '/computer/batch', { actions: [action] })).status, 401)
  t.equal((await app.inject({ url: '/health' })).statusCode, 200, '/health is public')
  t.equal((await app.inject({ url: '/openapi.json' })).statusCode, 401)
  t.equal((await app.inject({ url: '/openapi.json', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode, 200)
})

t.test('x-api-key works on the seed-compatible route only', async (t) => {
  const { app } = await build(t, { token: TOKEN })
  const compat = await post(app, '/v1/instance/any-id/computer', action, { 'x-api-key': TOKEN })
  t.equal(compat.status, 200)
  t.strictSame(compat.body, { output: 'cursor at (0, 0)', error: null, base64_image: null, cursor_position: [0, 0] })
  t.equal((await post(app, '/v1/instance/any-id/computer', action, { 'x-api-key': 'wrong' })).status, 401)
  t.equal((await post(app, '/computer', action, { 'x-api-key': TOKEN })).status, 401)
  // The seed's Python SDK sends each option it was not given as null: taken as absent there, refused on /computer.
  const nulls = { action: 'click_mouse', button: 'left', coordinates: [5, 6], hold_keys: null, screenshot: false }
  t.match(await post(app, '/v1/instance/any-id/computer', nulls, { 'x-api-key': TOKEN }), { status: 200, body: { error: null } }, 'null options on the seed route: absent')
  t.match(await post(app, '/computer', nulls, { authorization: `Bearer ${TOKEN}` }), { status: 400, body: { code: 'ERR_INVALID_ACTION' } }, 'and still refused on /computer')
})

t.test('without a token every route is open', async (t) => {
  const { app } = await build(t)
  t.equal((await post(app, '/computer', action)).status, 200)
  t.equal((await post(app, '/v1/instance/x/computer', action)).status, 200)
})

t.test('tokens compare by value', async (t) => {
  t.ok(tokenMatches('abc', 'abc'))
  t.notOk(tokenMatches('abc', 'abd'))
  t.notOk(tokenMatches('abc', 'abcd'))
})

t.test('refuses a non-loopback address without a token', async (t) => {
  t.throws(() => loadConfig(['--host', '0.0.0.0'], {}), { code: 'ERR_INVALID_CONFIG', message: /refusing to listen on 0\.0\.0\.0 without a token/ })
  t.equal(loadConfig(['--host', '0.0.0.0', '--allow-unauthenticated'], {}).host, '0.0.0.0')
  t.equal(loadConfig(['--host', '0.0.0.0'], { API_TOKEN: TOKEN }).token, TOKEN)
  t.equal(loadConfig([], {}).host, '127.0.0.1')
})

t.test('beyond loopback a token must be at least 16 characters', async (t) => {
  const short = '0123456789abcde'
  for (const host of ['0.0.0.0', '::', '10.0.0.5']) {
    t.throws(() => loadConfig(['--host', host, '--token', short], {}), {
      code: 'ERR_INVALID_CONFIG',
      message: `refusing to listen on ${host} with a 15-character token: anyone who reaches the port can try to guess it. ` +
        'Use at least 16 random characters (e.g. openssl rand -hex 32) in API_TOKEN (or --token-file).',
    }, host)
    t.equal(loadConfig(['--host', host], { API_TOKEN: `${short}f` }).token, `${short}f`, `${host}: 16 characters`)
  }
  for (const host of ['127.0.0.1', 'localhost', '::1']) t.equal(loadConfig(['--host', host, '--token', 'x'], {}).token, 'x', `${host}: loopback, any length`)
})

t.test('secrets in the query string are redacted from request lines', async (t) => {
  const cases: Array<[string, string]> = [
    ['/computer?token=abc', '/computer?token=[redacted]'],
    ['/computer?screenshot=true&access_token=abc', '/computer?screenshot=true&access_token=[redacted]'],
    ['/v1/instance/i/computer?api_key=abc&x-api-key=def', '/v1/instance/i/computer?api_key=[redacted]&x-api-key=[redacted]'],
    ['/computer?%74oken=abc', '/computer?%74oken=[redacted]'],
    ['/computer?Password=abc&sig=1&session=2', '/computer?Password=[redacted]&sig=[redacted]&session=[redacted]'],
    ['/computer?screenshot=true&display_width_px=800', '/computer?screenshot=true&display_width_px=800'],
    ['/computer?token', '/computer?token'],
    ['/computer', '/computer'],
  ]
  for (const [url, logged] of cases) t.equal(redactUrl(url), logged, url)

  const { app, lines, logs } = await build(t, { token: TOKEN })
  await app.inject({ url: `/health?token=${TOKEN}` })
  await app.inject({ method: 'POST', url: `/computer?api_key=${TOKEN}&screenshot=true`, payload: action, headers: { authorization: `Bearer ${TOKEN}`, 'x-api-key': TOKEN, cookie: `session=${TOKEN}` } })
  await app.inject({ url: `/nowhere?token=${TOKEN}` })
  t.notMatch(lines.join('\n'), TOKEN)
  // One line per request, on its answer, with the status: the arrival line is debug's.
  t.strictSame(logs.filter((line) => (line.req as object | undefined) !== undefined).map((line) => [line.msg, (line.req as { url: string }).url, (line.res as { statusCode: number }).statusCode]), [
    ['request completed', '/health?token=[redacted]', 200],
    ['request completed', '/computer?api_key=[redacted]&screenshot=true', 400],
    ['request completed', '/nowhere?token=[redacted]', 401],
  ])
  t.ok(logs.filter((line) => line.msg === 'request completed').every((line) => typeof line.responseTime === 'number'), 'each with its time')

  const debug = await build(t, { token: TOKEN, logLevel: 'debug' })
  await debug.app.inject({ url: `/health?token=${TOKEN}` })
  t.strictSame(debug.logs.filter((line) => line.req !== undefined).map((line) => [line.msg, (line.req as { url: string }).url]), [
    ['incoming request', '/health?token=[redacted]'], ['request completed', '/health?token=[redacted]'],
  ], 'at debug, the arrival too')
  t.notMatch(debug.lines.join('\n'), TOKEN)
})

t.test('logs: one line per action, no token, no typed text, no image', async (t) => {
  const { app, logs, lines } = await build(t, { token: TOKEN })
  const secretText = 'my password is hunter2'
  await post(app, '/computer', { action: 'type_text', text: secretText }, { authorization: `Bearer ${TOKEN}` })
  await post(app, '/computer?screenshot=true', { action: 'move_mouse', coordinates: [3, 3] }, { authorization: `Bearer ${TOKEN}` })
  await post(app, '/v1/instance/i/computer', action, { 'x-api-key': TOKEN })
  const actionLines = logs.filter((line) => line.msg === 'action')
  t.strictSame(actionLines.map((line) => [line.action, line.outcome]), [['type_text', 'ok'], ['move_mouse', 'ok'], ['get_cursor_position', 'ok']])
  t.ok(actionLines.every((line) => typeof line.ms === 'number'), 'each has a duration')
  const all = lines.join('\n')
  t.notMatch(all, TOKEN)
  t.notMatch(all, 'hunter2')
  t.notMatch(all, 'iVBORw0KGgo', 'no PNG data')
})

t.test('secrets a log line carries are censored: at the top, one level down, in headers and in errors', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done() } })
  const log = pino(loggerOptions('info'), stream).child({ component: 'test' })
  const failure = Object.assign(new Error('upload failed'), { token: TOKEN, code: 'ERR_X' })
  const result = { output: 'ok', base64_image: 'iVBORw0KGgoAAAANSUhEUg' }
  const plain = { action: 'move_mouse', ms: 0.2, outcome: 'ok', nested: { a: 1 } }
  log.info({ token: TOKEN, base64_image: 'iVBORw0KGgo' }, 'top')
  log.info({ result, config: { token: TOKEN, port: 1 } }, 'nested')
  log.info({ headers: { authorization: `Bearer ${TOKEN}`, 'x-api-key': TOKEN, cookie: 'a=b', 'content-type': 'application/json' } }, 'headers')
  log.error({ err: failure }, 'failed')
  log.info(plain, 'plain')
  t.notMatch(JSON.stringify(lines), TOKEN)
  t.notMatch(JSON.stringify(lines), 'iVBORw0KGgo')
  const [top, nested, headers, failed, written] = lines.map(({ level: _l, time: _t, pid: _p, hostname: _h, ...rest }) => rest)
  t.strictSame(top, { component: 'test', token: '[redacted]', base64_image: '[redacted]', msg: 'top' })
  t.strictSame(nested, { component: 'test', result: { output: 'ok', base64_image: '[redacted]' }, config: { token: '[redacted]', port: 1 }, msg: 'nested' })
  t.strictSame(headers, { component: 'test', headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', cookie: '[redacted]', 'content-type': 'application/json' }, msg: 'headers' })
  t.match(failed, { err: { type: 'Error', message: 'upload failed', token: '[redacted]', code: 'ERR_X', stack: /upload failed/ }, msg: 'failed' })
  t.strictSame(written, { component: 'test', ...plain, msg: 'plain' })
  t.equal(result.base64_image, 'iVBORw0KGgoAAAANSUhEUg', "the caller's object is left as it was")
  t.equal(failure.token, TOKEN)
})
