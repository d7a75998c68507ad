/**
 * The fleet's lifecycle beyond create/get/list/delete, over the in-memory backend: a create's
 * desktop profile and autostart apps (and their hostile values), the pool serving only its own
 * spec, reset (a fresh desktop under the same id, the old one ended, across a restart too), and
 * the live view with its WebSocket through the fleet. The same over Docker: test/docker/fleet.ts.
 */
import t from 'tap'
import WebSocket from 'ws'
import type { AddressInfo } from 'node:net'
import { errorBody } from './helpers/error-body.ts'
import { KEY, startFleet, until } from './helpers/fleet.ts'
import { liveCookie, MemoryBackend, NO_CONTROL, type Echo } from './helpers/memory-backend.ts'
import { warmUp } from '../fleet/warm-up.ts'

const invalid = (message: string) => errorBody(400, 'ERR_INVALID_DESKTOP_REQUEST', message)
const AUTOSTART_HINT = 'up to 8 applications the desktop opens at start, as the server\'s --autostart: {app, target?}, app one of the full desktop\'s (browser, terminal, editor, …), target a URL for the browser or a path under the home. A create with any is not served from the warm pool'
const APPS = 'browser, terminal, editor, files, pdf, calculator, writer, spreadsheet'
const TARGET_RULE = 'must be 1..1024 printable ASCII characters, without commas or surrounding spaces (percent-encode them in a URL)'

t.test('a create\'s profile and autostart apps: hostile values are a 400 naming the field; nothing is started', async (t) => {
  const { call, backend } = await startFleet(t)
  const cases: Array<[unknown, ReturnType<typeof errorBody>]> = [
    [{ desktop: 'gnome' }, invalid("desktop must be minimal (a window manager only) or full (an XFCE session with the applications autostart may name) (got 'gnome')")],
    [{ desktop: 'x'.repeat(17) }, invalid("desktop must NOT have more than 16 characters (the desktop profile, as the server's --desktop: minimal | full; default: the fleet's --desktop (a create with it is served from the warm pool))")],
    [{ browser: 'lynx' }, invalid("browser must be firefox or chromium (whose DevTools the fleet serves at /desktops/{id}/browser/cdp) (got 'lynx')")],
    [{ browser: 'x'.repeat(17) }, invalid("browser must NOT have more than 16 characters (the desktop's web browser, as the server's --browser: firefox | chromium (its DevTools at /desktops/{id}/browser/cdp); default: the fleet's --browser (a create with it is served from the warm pool))")],
    [{ desktop: 1 }, invalid("desktop must be string (the desktop profile, as the server's --desktop: minimal | full; default: the fleet's --desktop (a create with it is served from the warm pool))")],
    [{ autostart: 'browser' }, invalid(`autostart must be array (${AUTOSTART_HINT})`)],
    [{ autostart: Array.from({ length: 9 }, () => ({ app: 'browser' })) }, invalid(`autostart must NOT have more than 8 items (${AUTOSTART_HINT})`)],
    [{ autostart: [{ app: 'browser', extra: 1 }] }, invalid(`autostart[0] has an unknown field 'extra': an entry is {app, target?} (${AUTOSTART_HINT})`)],
    [{ autostart: [{ target: 'x' }] }, invalid(`autostart[0] must have required property 'app': an entry is {app, target?} (${AUTOSTART_HINT})`)],
    [{ autostart: [{ app: 'x'.repeat(33) }] }, invalid(`autostart[0].app must NOT have more than 32 characters: an entry is {app, target?} (${AUTOSTART_HINT})`)],
    [{ autostart: [{ app: 'steam' }] }, invalid(`autostart[0].app 'steam' is not an application the full desktop knows; known: ${APPS}`)],
    [{ desktop: 'minimal', autostart: [{ app: 'browser' }] }, invalid("autostart[0].app 'browser' is not an application the minimal desktop knows; the minimal desktop opens none (ask for desktop: full)")],
    [{ autostart: [{ app: 'browser', target: 'https://a.example/x,y' }] }, invalid(`autostart[0].target ${TARGET_RULE}`)],
    [{ autostart: [{ app: 'browser', target: ' https://a.example/' }] }, invalid(`autostart[0].target ${TARGET_RULE}`)],
    [{ autostart: [{ app: 'browser', target: 'https://a.example/\u0000' }] }, invalid(`autostart[0].target ${TARGET_RULE}`)],
    [{ autostart: [{ app: 'browser', target: '' }] }, invalid(`autostart[0].target ${TARGET_RULE}`)],
    [{ autostart: [{ app: 'browser', target: 'x'.repeat(1025) }] }, invalid(`autostart[0].target must NOT have more than 1024 characters: an entry is {app, target?} (${AUTOSTART_HINT})`)],
    [{ autostart: [{ app: 'browser', target: 'javascript:alert(1)' }] }, invalid("autostart[0].target: target of app 'browser' must be an http, https or file URL; javascript URLs are not opened")],
    [{ autostart: [{ app: 'browser', target: 'file:///etc/passwd' }] }, invalid("autostart[0].target: target \"/etc/passwd\" of app 'browser' is outside the desktop's home /home/node; only paths under it are opened")],
    [{ autostart: [{ app: 'editor', target: '../../etc/shadow' }] }, invalid("autostart[0].target: target \"../../etc/shadow\" of app 'editor' is outside the desktop's home /home/node; only paths under it are opened")],
    [{ autostart: [{ app: 'editor', target: '-e' }] }, invalid("autostart[0].target: target \"-e\" of app 'editor' begins with '-', which the program would read as an option; give a path or URL")],
    [{ autostart: [{ app: 'terminal' }, { app: 'browser', target: 'ftp://a.example/' }] }, invalid("autostart[1].target: target of app 'browser' must be an http, https or file URL; ftp URLs are not opened")],
  ]
  for (const [body, expected] of cases) {
    const response = await call('POST', '/desktops', body)
    t.strictSame([response.statusCode, response.json()], [400, expected], JSON.stringify(body).slice(0, 80))
  }
  t.strictSame(backend.calls, [], 'the engine was asked for nothing')
})

t.test('the pool serves only creates of its own spec; others start a desktop of their own with what they asked for', async (t) => {
  const { call, backend, fleet } = await startFleet(t, { warm: 1, max: 8, desktop: 'minimal' })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const [warm] = [...backend.held.keys()]
  t.strictSame(backend.held.get(warm!)!.facts.desktop, 'minimal', "the pool is of the fleet's --desktop")
  const cases: Array<[string, Record<string, unknown>, boolean, { desktop: string, autostart: unknown[], screen: string, browser: string }]> = [
    ['another profile', { desktop: 'full' }, false, { desktop: 'full', autostart: [], screen: '1280x800', browser: 'firefox' }],
    ['another browser', { browser: 'chromium' }, false, { desktop: 'minimal', autostart: [], screen: '1280x800', browser: 'chromium' }],
    ['autostart apps', { desktop: 'full', autostart: [{ app: 'browser', target: 'https://example.com/?q=a%2Cb' }, { app: 'terminal', target: 'work' }] }, false,
      { desktop: 'full', autostart: [{ app: 'browser', target: 'https://example.com/?q=a%2Cb' }, { app: 'terminal', target: 'work' }], screen: '1280x800', browser: 'firefox' }],
    ['another screen', { screen: '1024x768' }, false, { desktop: 'minimal', autostart: [], screen: '1024x768', browser: 'firefox' }],
    ["the pool's own, said", { desktop: 'minimal', screen: '1280x800', autostart: [], browser: 'firefox' }, true, { desktop: 'minimal', autostart: [], screen: '1280x800', browser: 'firefox' }],
  ]
  for (const [name, body, fromPool, expected] of cases) {
    const before = backend.calls.length
    const response = await call('POST', '/desktops', body)
    t.equal(response.statusCode, 201, name)
    const view = response.json()
    t.match(view, expected, `${name}: the view says what it is`)
    t.equal(backend.calls[before]!.split(' ')[0], fromPool ? 'claim' : 'create', `${name}: ${fromPool ? 'claimed from the pool' : 'started for it'}`)
    const facts = backend.held.get(view.id)!.facts
    t.strictSame({ desktop: facts.desktop, autostart: facts.autostart, screen: `${facts.screen.width}x${facts.screen.height}`, browser: facts.browser }, expected, `${name}: the engine was asked for it`)
    if (fromPool) t.equal(view.id, warm)
  }
})

t.test('reset: a fresh desktop under the same id, TTL and labels; the old one ended; its token and URL change', async (t) => {
  const { call, backend, fleet, clock } = await startFleet(t, { warm: 1, max: 3 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const desktop = (await call('POST', '/desktops', { labels: { run: '7' }, ttl_seconds: 600 })).json()
  await until(t, 'the pool is ready again', () => fleet.health().ready)
  const [fresh] = [...backend.held.values()].filter((h) => !h.claim).map((h) => h.facts.id)
  clock.now += 5_000

  const before = backend.calls.length
  const reset = await call('POST', `/desktops/${desktop.id}/reset`)
  t.equal(reset.statusCode, 200)
  const held = backend.held.get(fresh!)!
  const view = reset.json()
  t.strictSame(view, {
    id: desktop.id,
    status: 'running',
    screen: '1280x800',
    created_at: new Date(held.facts.createdAt).toISOString(),
    expires_at: desktop.expires_at,
    labels: { run: '7' },
    desktop: 'full',
    autostart: [],
    browser: 'firefox',
    url: held.url,
    token: held.facts.token,
  }, 'the same id, TTL and labels; the warm desktop\'s URL and token')
  t.strictSame(backend.calls.slice(before, before + 2), [`claim ${fresh}`, `remove ${desktop.id}`], 'the warm desktop claimed, then the old one removed')
  t.strictSame(held.claim, { claimedAt: clock.now, expiresAt: Date.parse(desktop.expires_at), labels: { run: '7' }, id: desktop.id }, 'the claim carries the client\'s id to the engine')
  t.notOk(backend.held.has(desktop.id), 'the old desktop is gone from the engine')
  t.not(view.token, desktop.token)
  t.strictSame((await call('GET', `/desktops/${desktop.id}`)).json(), view)
  t.strictSame((await call('GET', '/desktops')).json(), { desktops: [{ ...view, control: NO_CONTROL }] })
  const echo = (await call('GET', `/desktops/${desktop.id}/computer/anthropic`)).json() as Echo
  t.strictSame([echo.desktop, echo.authorization], [fresh, `Bearer ${view.token}`], 'its routes reach the fresh desktop with its token')
  await until(t, 'the pool refills', () => fleet.health().ready)

  // Reset again, twice at once: one reset, the same answer for both.
  const [a, b] = await Promise.all([call('POST', `/desktops/${desktop.id}/reset`), call('POST', `/desktops/${desktop.id}/reset`)])
  t.strictSame([a.statusCode, b.statusCode], [200, 200])
  t.strictSame(a.json(), b.json(), 'two resets at once are one')
  t.equal(a.json().id, desktop.id)
  t.notOk(backend.held.has(fresh!), 'the desktop the first reset gave is gone too')
  t.equal([...backend.held.values()].filter((h) => h.claim).length, 1, 'one desktop held for the client')

  // Deleting by the id ends the current desktop.
  t.equal((await call('DELETE', `/desktops/${desktop.id}`)).statusCode, 204)
  t.equal([...backend.held.values()].filter((h) => h.claim).length, 0)
  t.strictSame((await call('POST', `/desktops/${desktop.id}/reset`)).json(), errorBody(404, 'ERR_DESKTOP_NOT_FOUND', `no desktop ${desktop.id} in this fleet (GET /desktops lists them)`))
  t.strictSame((await call('POST', '/desktops/XYZ/reset')).json(), invalid('the desktop id in the path must be 16 lowercase hex digits, as POST /desktops answered it'))
})

t.test('reset without a warm desktop of its kind: the old one ends first (--max holds) and a fresh one starts', async (t) => {
  const backend = new MemoryBackend()
  const { call, fleet } = await startFleet(t, { backend, warm: 1, max: 2 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const desktop = (await call('POST', '/desktops', { screen: '800x600' })).json()
  backend.readyAtStart = false
  const before = backend.calls.length
  const reset = await call('POST', `/desktops/${desktop.id}/reset`)
  t.equal(reset.statusCode, 200)
  const view = reset.json()
  t.match(view, { id: desktop.id, status: 'starting', screen: '800x600' }, 'starting, with the same id and screen')
  const [created] = backend.calls.slice(before + 1)
  t.strictSame(backend.calls.slice(before), [`remove ${desktop.id}`, created], 'the old removed, then one created')
  const freshId = created!.split(' ')[1]!
  t.equal(fleet.health().desktops, 1)
  t.equal(backend.held.size, 2, 'never beyond --max')
  t.strictSame((await call('POST', `/desktops/${desktop.id}/computer`, {})).json(), errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', `desktop ${desktop.id} is starting; retry shortly (GET /desktops/${desktop.id} says when it is running)`))
  backend.setReady(freshId, true)
  await until(t, 'running', async () => (await call('GET', `/desktops/${desktop.id}`)).json().status === 'running')

  // An engine that cannot start the fresh one: the client's desktop is reported ended, and why.
  backend.failCreate = true
  t.strictSame((await call('POST', `/desktops/${desktop.id}/reset`)).json(), errorBody(503, 'ERR_DESKTOP_UNAVAILABLE', 'the engine could not start a desktop: the engine refused the create'))
  t.match((await call('GET', `/desktops/${desktop.id}`)).json(), { id: desktop.id, status: 'terminated', reason: 'its reset could not start a fresh desktop: the engine could not start a desktop: the engine refused the create' })
  t.equal((await call('POST', `/desktops/${desktop.id}/reset`)).statusCode, 410, 'an ended desktop is not reset')
})

t.test('a reset desktop is adopted under its id; a reset cut short by a crash keeps the newer desktop', async (t) => {
  const backend = new MemoryBackend()
  const first = await startFleet(t, { backend, warm: 1, max: 4 })
  await until(t, 'the pool is ready', () => first.fleet.health().ready)
  const desktop = (await first.call('POST', '/desktops', {})).json()
  await until(t, 'the pool is ready again', () => first.fleet.health().ready)
  first.clock.now += 1000
  const reset = (await first.call('POST', `/desktops/${desktop.id}/reset`)).json()
  await until(t, 'the pool is ready again', () => first.fleet.health().ready)
  // A crash between the claim and the removal: the old desktop still runs, claimed under the same id.
  const [spare] = [...backend.held.values()].filter((h) => !h.claim).map((h) => h.facts.id)
  await backend.claim(spare!, { claimedAt: first.clock.now - 500, expiresAt: Date.parse(reset.expires_at), labels: {}, id: desktop.id })
  await first.fleet.close(false)
  await first.app.close()

  const second = await startFleet(t, { backend, warm: 1, max: 4 })
  await until(t, 'adopted and running', async () => (await second.call('GET', `/desktops/${desktop.id}`)).json().status === 'running')
  t.strictSame((await second.call('GET', `/desktops/${desktop.id}`)).json(), reset, 'the newer claim under the id: the reset\'s desktop')
  t.notOk(backend.held.has(spare!), 'the older one under the same id is ended')
  t.strictSame((await second.call('GET', '/desktops')).json().desktops.map((d: { id: string }) => d.id), [desktop.id])
})

t.test('the live view through the fleet: the key traded for the desktop\'s cookie; page and WebSocket with the cookie alone', async (t) => {
  const { call, app, fleet } = await startFleet(t)
  const a = (await call('POST', '/desktops', {})).json()
  const b = (await call('POST', '/desktops', { screen: '1024x768' })).json()
  await until(t, 'both run', () => fleet.list().every((d) => d.status === 'running'))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `127.0.0.1:${(app.server.address() as AddressInfo).port}`

  const session = await fetch(`http://${base}/desktops/${a.id}/live/session`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } })
  t.equal(session.status, 204, 'the fleet\'s key opens a session')
  t.equal(session.headers.get('set-cookie'), `${liveCookie(a.id)}; HttpOnly; SameSite=Strict`, 'the desktop\'s cookie, no Path: the browser scopes it to /desktops/{id}/live')
  const refused = await fetch(`http://${base}/desktops/${a.id}/live/session`, { method: 'POST', headers: { authorization: `Bearer ${a.token}` } })
  t.equal(refused.status, 401, 'a desktop\'s token is not the fleet\'s key')

  const cookie = liveCookie(a.id)
  const page = await fetch(`http://${base}/desktops/${a.id}/live/state?x=1`, { headers: { cookie, origin: `http://${base}`, authorization: `Bearer ${KEY}` } })
  t.strictSame([page.status, await page.json()], [200, { method: 'GET', url: '/live/state?x=1', cookie, origin: new URL(a.url).origin, body: '', desktop: a.id }],
    'forwarded with the cookie, the Origin made the desktop\'s, and neither the key nor the desktop\'s token')
  for (const button of ['takeover', 'release']) {
    const body = JSON.stringify({ viewer: 'tab-0000-0001' })
    const pressed = await fetch(`http://${base}/desktops/${a.id}/live/${button}`, { method: 'POST', headers: { cookie, origin: `http://${base}`, 'content-type': 'application/json' }, body })
    t.strictSame([pressed.status, await pressed.json()], [200, { method: 'POST', url: `/live/${button}`, contentType: 'application/json', cookie, origin: new URL(a.url).origin, body, desktop: a.id }],
      `the live view's ${button} button reaches the desktop with the cookie alone`)
  }
  const bare = await fetch(`http://${base}/desktops/${a.id}/live`)
  t.strictSame([bare.status, await bare.json()], [401, { code: 'ERR_UNAUTHORIZED', desktop: a.id }], 'without the cookie the desktop refuses: the fleet adds no token')
  const other = await fetch(`http://${base}/desktops/${b.id}/live`, { headers: { cookie } })
  t.equal(other.status, 401, 'a\'s cookie opens nothing of b')
  const foreign = await fetch(`http://${base}/desktops/${a.id}/live`, { headers: { cookie, origin: 'https://evil.example' } })
  t.equal(foreign.status, 403, 'another site\'s page is refused by the fleet\'s guard')

  const plain = await fetch(`http://${base}/desktops/${a.id}/live/websockify`, { headers: { cookie } })
  t.strictSame([plain.status, await plain.json()], [404, errorBody(404, 'ERR_NOT_FOUND', `/desktops/${a.id}/live/websockify is the live view's WebSocket: open it with a WebSocket client (the page at …/live does)`)], 'a plain GET of the socket says what it is')

  const open = (id: string, headers: Record<string, string>) => new Promise<{ socket: WebSocket, first: unknown } | { refused: number } | { closed: [number, string] }>((resolve, reject) => {
    const socket = new WebSocket(`ws://${base}/desktops/${id}/live/websockify`, ['binary'], { headers })
    socket.once('message', (data) => resolve({ socket, first: JSON.parse(String(data)) }))
    socket.once('unexpected-response', (_request, response) => { resolve({ refused: response.statusCode ?? 0 }); socket.terminate() })
    socket.once('close', (code, reason) => resolve({ closed: [code, String(reason)] }))
    socket.once('error', reject)
    setTimeout(() => { reject(new Error('no answer within 10 s')); socket.terminate() }, 10_000).unref()
  })
  const opened = await open(a.id, { cookie, origin: `http://${base}` })
  if (!('socket' in opened)) { t.fail(`the socket did not open: ${JSON.stringify(opened)}`); return }
  t.teardown(() => opened.socket.terminate())
  t.strictSame(opened.first, { desktop: a.id, origin: new URL(a.url).origin, authorization: null, protocol: 'binary' }, "the desktop's socket, opened with the cookie, its own Origin and the subprotocol")
  const echoed = (data: Buffer | string, binary: boolean) => new Promise<[string, boolean]>((resolve) => {
    opened.socket.once('message', (reply, isBinary) => resolve([String(reply), isBinary]))
    opened.socket.send(data, { binary })
  })
  t.strictSame(await echoed(Buffer.from([1, 2, 3, 255]), true), [Buffer.from([1, 2, 3, 255]).toString(), true], 'binary both ways')
  t.strictSame(await echoed('text', false), ['text', false], 'text both ways')
  const closed = new Promise((resolve) => opened.socket.once('close', (code) => resolve(code)))
  await call('DELETE', `/desktops/${a.id}`)
  t.equal(await closed, 1000, 'the desktop ending closes the viewer\'s socket')

  t.strictSame(await open(b.id, { cookie }), { closed: [1008, 'the desktop answered 401: sign in at …/live'] }, "a's cookie at b's socket: closed, saying why")
  t.strictSame(await open(a.id, { cookie }), { refused: 404 }, 'an ended desktop: an HTTP answer, no socket')
  t.strictSame(await open('0123456789abcdef', { cookie }), { refused: 404 }, 'an unknown one too')
})

t.test('a pool desktop is warmed up (its first actions run) before it counts as ready; a claimed one is not; a failed warm-up is ignored', async (t) => {
  const warmed: string[] = []
  let fail = false
  const { call, backend, fleet } = await startFleet(t, {
    warm: 1,
    max: 3,
    warmUp: async (url, token) => {
      const held = [...backend.held.values()].find((h) => h.url === url)!
      t.equal(fleet.health().warm.ready, 0, 'not counted ready while it warms up')
      warmed.push(`${held.facts.id} ${token === held.facts.token}`)
      if (fail) throw new Error('the desktop did not answer')
      await warmUp(url, token)
    },
  })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const [first] = [...backend.held.keys()]
  t.strictSame(warmed, [`${first} true`], 'warmed with its own URL and token')
  t.strictSame(backend.served, [`${first} POST /computer {"action":"get_cursor_position"}`, `${first} POST /computer {"action":"take_screenshot"}`], 'two actions that change nothing')
  fail = true
  const claimed = (await call('POST', '/desktops', {})).json()
  t.equal(claimed.id, first)
  await until(t, 'the pool is ready again, its warm-up failed', () => fleet.health().ready)
  const [second] = [...backend.held.keys()].filter((id) => id !== first)
  t.strictSame(warmed, [`${first} true`, `${second} true`])
  const cold = (await call('POST', '/desktops', { screen: '800x600' })).json()
  await until(t, 'the cold one runs', async () => (await call('GET', `/desktops/${cold.id}`)).json().status === 'running')
  t.equal(warmed.length, 2, 'a desktop started for a create is the client\'s at once: not warmed up')
})

t.test('a desktop deleted while it is reset stays deleted; one that died meanwhile gets its fresh desktop', async (t) => {
  const { call, backend, fleet } = await startFleet(t, { warm: 1, max: 3 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const original = backend.claim.bind(backend)
  let release = () => {}
  let held = false
  backend.claim = async (id, claim) => {
    // A reset's claim (it carries the client's id) waits for the test.
    if (claim.id) {
      held = true
      await new Promise<void>((resolve) => { release = () => { held = false; resolve() } })
    }
    return original(id, claim)
  }
  const deleted = (await call('POST', '/desktops', {})).json()
  await until(t, 'the pool is ready again', () => fleet.health().ready)
  const resetting = call('POST', `/desktops/${deleted.id}/reset`)
  await until(t, 'the reset is recording its claim', () => held)
  t.equal((await call('DELETE', `/desktops/${deleted.id}`)).statusCode, 204)
  release()
  t.strictSame((await resetting).json(), errorBody(404, 'ERR_DESKTOP_NOT_FOUND', `desktop ${deleted.id} was deleted while it was reset`))
  t.equal((await call('GET', `/desktops/${deleted.id}`)).statusCode, 404, 'still deleted')
  t.strictSame([...backend.held.values()].filter((h) => h.claim), [], 'the fresh desktop ended too')

  await until(t, 'the pool is ready again', () => fleet.health().ready)
  const dying = (await call('POST', '/desktops', {})).json()
  await until(t, 'the pool is ready again', () => fleet.health().ready)
  const again = call('POST', `/desktops/${dying.id}/reset`)
  await until(t, 'the reset is recording its claim', () => held)
  await backend.kill(dying.id)
  await until(t, 'the death is seen', () => !backend.held.has(dying.id))
  release()
  const view = (await again).json()
  t.match(view, { id: dying.id, status: 'running' }, 'the fresh desktop under the id')
  t.equal((await call('GET', `/desktops/${dying.id}`)).json().status, 'running', 'no longer reported ended')
})
