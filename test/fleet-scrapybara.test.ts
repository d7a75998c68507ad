/**
 * The Scrapybara v1 instance API on the fleet (fleet/scrapybara/) over the in-memory backend:
 * the `scrapybara` SDK from npm, unchanged, pointed at the fleet with its base URL and key,
 * starts, gets, lists, drives, screenshots, uploads to, pauses, resumes and stops instances and
 * parses every answer; what cannot be served answers 501 naming what is missing, and a bad
 * request a 422 (Scrapybara's validation error, which the SDK parses) that says what to change. The same on Docker: test/docker/fleet-scrapybara.ts.
 */
import t, { type Test } from 'tap'
import { BrowserInstance, Scrapybara, ScrapybaraClient, ScrapybaraError, UbuntuInstance } from 'scrapybara'
import { errorBody } from './helpers/error-body.ts'
import { KEY, startFleet, until } from './helpers/fleet.ts'
import { SHELL_OFF } from '../fleet/scrapybara/shell.ts'

const NOW = Date.UTC(2026, 10, 28, 12)
/** A request that does not fit: 422 with FastAPI's `detail` (what the SDKs parse) beside our fields. */
const invalid = (message: string, loc: Array<string | number> = ['body']) => ({ ...errorBody(422, 'ERR_INVALID_INSTANCE_REQUEST', message), detail: [{ loc, msg: message, type: 'value_error' }] })
const unserved = (message: string) => errorBody(501, 'ERR_NOT_IMPLEMENTED', message)
const shellOff = errorBody(403, 'ERR_TOOL_OFF', SHELL_OFF)

async function listening (t: Test, options: Parameters<typeof startFleet>[1] = {}) {
  const fleet = await startFleet(t, options)
  await fleet.app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(fleet.app.server.address() as { port: number }).port}`
  /** A request as the SDKs send it: the key in x-api-key. */
  const raw = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': KEY, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    return { status: response.status, headers: response.headers, body: await response.json() as any }
  }
  return { ...fleet, base, raw, client: new ScrapybaraClient({ apiKey: KEY, environment: base }) }
}

/** What the SDK threw: its status and the body it handed over. */
const thrown = async (call: Promise<unknown>) => {
  const error = await call.then(() => undefined, (e: unknown) => e)
  return error instanceof ScrapybaraError ? [error.statusCode, error.body] : error
}

t.test('the Scrapybara SDK, unchanged: start, get, list, computer, screenshot, stream URL, upload, pause, resume, stop', async (t) => {
  const { client, backend, fleet, raw, base } = await listening(t, { warm: 1, max: 3 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const [warmId] = [...backend.held.keys()]

  const instance = await client.startUbuntu({ timeoutHours: 0.5 })
  t.type(instance, UbuntuInstance, 'startUbuntu answers an Ubuntu instance')
  t.match(instance, { id: warmId, status: 'running' }, 'the warm desktop, claimed and running')
  const { id } = instance
  const held = backend.held.get(id)!
  const expected = { id, launch_time: new Date(held.facts.createdAt).toISOString(), instance_type: 'ubuntu', status: 'running', resolution: [1280, 800] }
  t.strictSame((await raw('GET', `/v1/instance/${id}`)).body, expected, 'GET /v1/instance/{id}, whole')
  t.equal(held.claim!.expiresAt, NOW + 1800_000, 'timeout_hours is its TTL')
  t.strictSame(held.claim!.labels, { 'scrapybara.instance-type': 'ubuntu' }, 'its instance type kept with its claim')

  await instance.computer({ action: 'click_mouse', button: 'left', coordinates: [5, 6] })
  t.strictSame(backend.received.at(-1), {
    method: 'POST', url: `/v1/instance/${id}/computer`, authorization: `Bearer ${held.facts.token}`, contentType: 'application/json', body: '{"action":"click_mouse","button":"left","coordinates":[5,6]}', desktop: id,
  }, "/computer reaches the desktop's own Scrapybara route with its token, the fleet's key left behind")
  t.strictSame(await instance.screenshot(), { base64Image: Buffer.from(`screen of ${id}`).toString('base64') }, 'screenshot')
  t.strictSame(await instance.getStreamUrl(), { streamUrl: `${base}/desktops/${id}/live` }, 'the live view through the fleet')
  t.strictSame(await instance.upload(new File(['hello'], 'note.txt', { type: 'text/plain' }), { path: '/home/node/Documents/' }), { filename: 'note.txt', path: '/home/node/Documents/note.txt', mediaType: 'text/plain' }, 'upload')
  t.match(backend.received.at(-1), { method: 'PUT', url: '/files/Documents/note.txt', body: 'hello', contentType: 'application/octet-stream' }, "written through the desktop's /files")

  t.strictSame(await instance.pause(), { status: 'paused' }, 'pause')
  t.strictSame(await instance.pause(), { status: 'paused' }, 'pause again: the same')
  t.strictSame((await raw('GET', `/v1/instance/${id}`)).body, { ...expected, status: 'paused' }, 'shown paused')
  const refusal = errorBody(409, 'ERR_DESKTOP_PAUSED', `desktop ${id} is paused: nothing reaches it until it is resumed (POST /v1/instance/${id}/resume)`)
  t.strictSame(await thrown(instance.computer({ action: 'get_cursor_position' }, { maxRetries: 0 })), [409, refusal], 'an action on a paused instance: 409 naming resume')
  t.strictSame(await thrown(instance.screenshot({ maxRetries: 0 })), [409, refusal], 'a screenshot too')
  t.strictSame(await instance.resume(), { id, launchTime: new Date(expected.launch_time), instanceType: 'ubuntu', status: 'running', resolution: [1280, 800] }, 'resume answers the instance, running')
  t.match(await instance.computer({ action: 'get_cursor_position' }), { url: `/v1/instance/${id}/computer` }, 'and it acts again')

  const browser = await client.startBrowser({ resolution: [1024, 768] })
  t.type(browser, BrowserInstance, 'startBrowser answers a browser instance')
  t.equal(browser.status, 'deploying', 'a screen unlike the pool\'s is a desktop of its own, deploying')
  await until(t, 'the browser instance runs', async () => (await client.get(browser.id)).status === 'running')
  t.match(await client.get(browser.id), { id: browser.id, status: 'running' })
  t.strictSame((await raw('GET', `/v1/instance/${browser.id}`)).body.resolution, [1024, 768], 'with its resolution')
  const listed = await client.getInstances()
  t.strictSame(listed.map((i) => [i.constructor.name, i.id, i.status]).sort(), [['BrowserInstance', browser.id, 'running'], ['UbuntuInstance', id, 'running']].sort(), 'getInstances')

  t.strictSame(await instance.stop(), { status: 'terminated' }, 'stop')
  t.notOk(backend.held.has(id), 'its desktop removed from the engine')
  t.strictSame(await instance.stop(), { status: 'terminated' }, 'stop again: the same')
  t.strictSame((await raw('GET', `/v1/instance/${id}`)).body, { ...expected, status: 'terminated' }, 'shown terminated')
  t.match((await raw('GET', `/desktops/${id}`, undefined, { authorization: `Bearer ${KEY}` })).body, { status: 'terminated', reason: 'stopped by its client' })
  t.strictSame((await client.getInstances()).map((i) => i.id), [browser.id], 'no longer listed')
  t.strictSame(await thrown(instance.computer({ action: 'get_cursor_position' }, { maxRetries: 0 })), [410, errorBody(410, 'ERR_DESKTOP_ENDED', `desktop ${id} ended (stopped by its client); create another with POST /desktops`)], 'never served again')
})

t.test('refusals: what is not served is a 501 naming it, a bad request a 422 naming the field, the key is required', async (t) => {
  const { client, raw, backend, base } = await listening(t, { max: 1 })
  const one = await client.startUbuntu()
  const id = one.id
  await until(t, 'it runs', async () => (await client.get(id)).status === 'running')
  const cases: Array<[string, string, unknown, ReturnType<typeof errorBody>]> = [
    ['POST', '/v1/start', { instance_type: 'windows' }, unserved('Windows instances are not served: this fleet runs Ubuntu desktops only (instance_type ubuntu or browser)')],
    ['POST', '/v1/start', { blocked_domains: ['example.com'] }, unserved('blocked_domains is not served: the fleet does not filter a desktop\'s network; start without it')],
    ['POST', '/v1/start', { instance_type: 'mac' }, invalid("instance_type must be 'ubuntu' or 'browser' (both a full desktop, browser's with Chromium and its DevTools; 'windows' is not served)", ['body', 'instance_type'])],
    ['POST', '/v1/start', { resolution: [10, 10] }, invalid('resolution must be [width, height] in pixels, width 320..3840, height 320..2160', ['body', 'resolution'])],
    ['POST', '/v1/start', { resolution: [1280, 800, 1] }, invalid('resolution must be [width, height] in pixels, width 320..3840, height 320..2160', ['body', 'resolution'])],
    ['POST', '/v1/start', { timeout_hours: 100 }, invalid('timeout_hours must be a number of hours, 1/60 to 24 (got 100)', ['body', 'timeout_hours'])],
    ['POST', '/v1/start', { timeout_hours: 0 }, invalid('timeout_hours must be a number of hours, 1/60 to 24 (got 0)', ['body', 'timeout_hours'])],
    ['POST', '/v1/start', { timeout_hours: '1' }, invalid('timeout_hours must be a number of hours, 1/60 to 24', ['body', 'timeout_hours'])],
    ['POST', '/v1/start', { snapshot: 'x' }, invalid("unknown field 'snapshot': POST /v1/start takes instance_type, timeout_hours, blocked_domains, resolution", ['body', 'snapshot'])],
    ['POST', '/v1/start', [1], invalid('the body must be a JSON object with the fields instance_type, timeout_hours, blocked_domains, resolution')],
    ['POST', '/v1/start', '{nope', invalid('the body is not valid JSON')],
    ['POST', '/v1/start', {}, errorBody(429, 'ERR_FLEET_FULL', 'the fleet holds its maximum of 1 desktops (--max); end one (DELETE /desktops/{id}) or retry in 5 s')],
    ['GET', '/v1/instance/NOPE', undefined, invalid('the instance id in the path must be 16 lowercase hex digits, as POST /v1/start answered it', ['path', 'instance_id'])],
    ['GET', '/v1/instance/0123456789abcdef', undefined, errorBody(404, 'ERR_DESKTOP_NOT_FOUND', 'no desktop 0123456789abcdef in this fleet (GET /desktops lists them)')],
    ['POST', '/v1/instance/0123456789abcdef/computer', { action: 'take_screenshot' }, errorBody(404, 'ERR_DESKTOP_NOT_FOUND', 'no desktop 0123456789abcdef in this fleet (GET /desktops lists them)')],
    ['POST', `/v1/instance/${id}/resume?timeout_hours=2`, undefined, unserved('timeout_hours on resume is not served: an instance\'s timeout is fixed when it starts; resume without it')],
    ['POST', `/v1/instance/${id}/bash`, { command: 'ls' }, shellOff],
    ['GET', `/v1/instance/${id}/env`, undefined, shellOff],
    ['POST', `/v1/instance/${id}/env`, { variables: { A: '1' } }, shellOff],
    ['POST', `/v1/instance/${id}/env/delete`, { keys: ['A'] }, shellOff],
    ['POST', `/v1/instance/${id}/code/execute`, { code: '1' }, errorBody(403, 'ERR_TOOL_OFF', "code.execute needs the fleet's shell: start the fleet with --shell (env FLEET_SHELL=1), which starts every desktop with the server's --shell (the code runs as the desktop's user in its home)")],
    ['POST', `/v1/instance/${id}/code/run`, { code: '1' }, unserved('only code/execute is served (Python in a python3 kernel kept per instance and kernel name; the fleet\'s --shell)')],
    ['GET', `/v1/instance/${id}/browser/cdp_url`, undefined, errorBody(409, 'ERR_BROWSER_NO_DEVTOOLS', `instance ${id} runs Firefox, whose DevTools this fleet does not serve: start one with instance_type 'browser' (start_browser), or run the fleet with --browser chromium`)],
    ['POST', `/v1/instance/${id}/browser/save_auth?name=a`, undefined, unserved('saved browser auth states (save_auth, modify_auth, authenticate) are not served: the browser\'s own profile in the instance\'s home keeps its sign-ins; browser start, cdp_url, current_url and stop are served')],
    ['POST', `/v1/instance/${id}/notebook/create`, { name: 'n' }, unserved('notebooks are not served: a desktop keeps python3 kernels for /v1/instance/{id}/code/execute, not notebooks (their cells, outputs and files); run code with code/execute')],
    ['GET', '/v1/auth_states', undefined, unserved('saved browser auth states are not served')],
  ]
  for (const [method, path, body, expected] of cases) {
    const response = await raw(method, path, body)
    t.strictSame([response.status, response.body], [expected.statusCode, expected], `${method} ${path} ${JSON.stringify(body) ?? ''}`)
  }
  t.equal((await raw('POST', '/v1/start', {})).headers.get('retry-after'), '5', 'the 429 says when to retry')
  // An empty body with a JSON content type, as the SDK posts /pause and /stop: no body.
  t.strictSame((await raw('POST', `/v1/instance/${id}/pause`, '')).body, { status: 'paused' }, 'an empty JSON body is no body')
  await raw('POST', `/v1/instance/${id}/resume`, '')

  t.strictSame(await thrown(client.startWindows({}, { maxRetries: 0 })), [501, unserved('Windows instances are not served: this fleet runs Ubuntu desktops only (instance_type ubuntu or browser)')], 'startWindows through the SDK: 501')
  t.strictSame(await thrown(one.bash({ command: 'ls' }, { maxRetries: 0 })), [403, shellOff], "bash through the SDK, without the fleet's --shell: 403 naming it")
  t.strictSame(await thrown(one.env.set({ variables: { A: '1' } }, { maxRetries: 0 })), [403, shellOff], 'env.set through the SDK: the same')
  // The SDK's own validation error: a 422 it parses into UnprocessableEntityError, `detail` and all.
  const unfit = await client.startUbuntu({ timeoutHours: 100 }, { maxRetries: 0 }).then(() => undefined, (e: unknown) => e)
  t.type(unfit, Scrapybara.UnprocessableEntityError, 'a request that does not fit: the SDK\'s UnprocessableEntityError')
  t.strictSame((unfit as Scrapybara.UnprocessableEntityError).body, { ...invalid('timeout_hours must be a number of hours, 1/60 to 24 (got 100)', ['body', 'timeout_hours']) }, 'its body parsed whole, our fields beside detail')

  const uploads: Array<[FormData | string, string | undefined, ReturnType<typeof errorBody>]> = [
    [form({ path: 'a.txt' }), undefined, invalid('an upload needs the form field file (the file\'s content)', ['body', 'file'])],
    [form({ file: 'x' }), undefined, invalid('an upload needs the form field path (where the file goes on the instance)', ['body', 'path'])],
    [form({ file: 'x', path: '/etc/passwd' }), undefined, invalid("path '/etc/passwd' is not a file in the instance's home: files go under /home/node/ (absolute, or relative to it)", ['body', 'path'])],
    [form({ file: 'x', path: '../../etc/passwd' }), undefined, invalid("path '../../etc/passwd' is not a file in the instance's home: files go under /home/node/ (absolute, or relative to it)", ['body', 'path'])],
    ['plain', 'text/plain', invalid('an upload is multipart/form-data with the fields file and path (as the Scrapybara SDKs send it)')],
  ]
  const before = backend.received.length
  for (const [body, type, expected] of uploads) {
    const response = await fetch(`${base}/v1/instance/${id}/upload`, { method: 'POST', headers: type ? { 'x-api-key': KEY, 'content-type': type } : { 'x-api-key': KEY }, body })
    t.strictSame([response.status, await response.json()], [expected.statusCode, expected], expected.message)
  }
  t.equal(backend.received.length, before, 'no refused upload reached the desktop')
  const relative = await fetch(`${base}/v1/instance/${id}/upload`, { method: 'POST', headers: { 'x-api-key': KEY }, body: form({ file: 'abc', path: 'notes/b.txt' }) })
  t.strictSame(await relative.json(), { filename: 'b.txt', path: '/home/node/notes/b.txt', media_type: 'text/plain' }, 'a relative path is under the home')

  for (const headers of [{}, { 'x-api-key': 'wrong' }] as Array<Record<string, string>>) {
    const response = await fetch(`${base}/v1/instances`, { headers })
    t.equal(response.status, 401, `no valid key: ${JSON.stringify(headers)}`)
  }
  t.equal((await fetch(`${base}/v1/instances`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200, 'Authorization: Bearer is taken too')
})

/** A multipart form with a file field `file` (text) and a text field `path`, either left out. */
function form ({ file, path }: { file?: string, path?: string }): FormData {
  const data = new FormData()
  if (file !== undefined) data.append('file', new File([file], 'f.txt', { type: 'text/plain' }))
  if (path !== undefined) data.append('path', path)
  return data
}
