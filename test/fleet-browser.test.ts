/**
 * A desktop's browser DevTools through the fleet (fleet/routes/browser.ts) and Scrapybara's
 * browser routes (fleet/scrapybara/browser.ts), over the in-memory backend whose Chromium
 * desktops serve a DevTools stand-in: the create option and the pool's --browser, the discovery
 * pointing through the fleet, the WebSocket piped with the desktop's token (the fleet's key left
 * behind), every refusal an HTTP answer before the upgrade, and the Scrapybara SDK's
 * browser.start / getCdpUrl / getCurrentUrl / stop. The same on Docker, with puppeteer-core and a
 * real Chromium: test/docker/fleet-isolation.ts.
 */
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { ScrapybaraClient, ScrapybaraError, type UbuntuInstance } from 'scrapybara'
import { errorBody } from './helpers/error-body.ts'
import { KEY, startFleet, until } from './helpers/fleet.ts'

async function listening (t: Test, options: Parameters<typeof startFleet>[1] = {}) {
  const fleet = await startFleet(t, options)
  await fleet.app.listen({ host: '127.0.0.1', port: 0 })
  const host = `127.0.0.1:${(fleet.app.server.address() as { port: number }).port}`
  const get = async (path: string, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) => {
    const response = await fetch(`http://${host}${path}`, { headers })
    return [response.status, await response.json()] as const
  }
  return { ...fleet, host, get }
}

/** Opens the fleet's socket, sends one command, and answers what came back (or how it ended). */
function command (url: string, headers: Record<string, string>, method = 'Browser.getVersion'): Promise<unknown> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers })
    const timer = setTimeout(() => { socket.terminate(); resolve('no answer within 5 s') }, 5000)
    socket.on('unexpected-response', (_request, response) => { clearTimeout(timer); resolve(`refused ${response.statusCode}`); socket.terminate() })
    socket.on('open', () => socket.send(JSON.stringify({ id: 7, method, params: { a: 1 } })))
    let answer: unknown
    // Settled once the socket is closed both ways, so the desktop holds no client after it.
    socket.on('message', (data) => { answer = JSON.parse(String(data)); socket.close() })
    socket.on('close', (code, reason) => { clearTimeout(timer); resolve(answer ?? `closed ${code} ${String(reason)}`) })
    socket.on('error', () => {})
  })
}

t.test("a Chromium desktop's DevTools through the fleet: discovery through the fleet, the socket with the desktop's token, refusals before the upgrade", async (t) => {
  const { call, backend, host, get } = await listening(t, { max: 4 })
  const chromium = (await call('POST', '/desktops', { browser: 'chromium' })).json()
  const firefox = (await call('POST', '/desktops', {})).json()
  t.match([chromium.browser, firefox.browser], ['chromium', 'firefox'], 'the view names each one\'s browser')
  t.strictSame([backend.held.get(chromium.id)!.facts.browser, backend.held.get(firefox.id)!.facts.browser], ['chromium', 'firefox'], 'the engine was asked for them')
  await until(t, 'both run', async () => (await call('GET', `/desktops/${chromium.id}`)).json().status === 'running' && (await call('GET', `/desktops/${firefox.id}`)).json().status === 'running')

  const version = { 'Browser': 'Chrome/0.0-memory', 'Protocol-Version': '1.3', 'User-Agent': 'memory', 'V8-Version': '0', 'WebKit-Version': '0', webSocketDebuggerUrl: `ws://${host}/desktops/${chromium.id}/browser/cdp` }
  t.strictSame(await get(`/desktops/${chromium.id}/browser/cdp/json/version`), [200, version], 'discovery, its WebSocket through the fleet')
  t.strictSame(await get(`/desktops/${chromium.id}/browser/cdp/json/version/`), [200, version], 'with a trailing slash too (as Playwright asks)')
  t.strictSame(await get(`/desktops/${chromium.id}/browser/cdp/json/version`, { 'x-api-key': KEY }), [200, version], 'the key as x-api-key (a Scrapybara program\'s header)')

  const held = backend.held.get(chromium.id)!
  const socket = `ws://${host}/desktops/${chromium.id}/browser/cdp`
  t.strictSame(await command(socket, { authorization: `Bearer ${KEY}` }), {
    id: 7, result: { desktop: chromium.id, method: 'Browser.getVersion', params: { a: 1 }, authorization: `Bearer ${held.facts.token}`, origin: null },
  }, "a command reaches that desktop's browser with its token, the fleet's key left behind")
  t.strictSame(await command(socket, { 'x-api-key': KEY }, 'Page.navigate'), {
    id: 7, result: { desktop: chromium.id, method: 'Page.navigate', params: { a: 1 }, authorization: `Bearer ${held.facts.token}`, origin: null },
  }, 'with x-api-key too')
  t.strictSame(backend.commands, [`${chromium.id} Browser.getVersion`, `${chromium.id} Page.navigate`], 'the desktop got each command once')

  // One client at a time, as the desktop's server holds it: a second is closed saying why.
  const holder = new WebSocket(socket, { headers: { authorization: `Bearer ${KEY}` } })
  await new Promise((resolve) => holder.once('open', resolve))
  await until(t, 'the first client reaches the desktop', () => [...backend.held.values()].some((h) => h.facts.id === chromium.id))
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(await command(socket, { authorization: `Bearer ${KEY}` }), 'closed 1008 the desktop answered 409', 'a second client while one holds the browser: closed with the desktop\'s 409')
  holder.close()
  await new Promise((resolve) => holder.once('close', resolve))

  const refusals: Array<[string, Record<string, string>, unknown]> = [
    [`/desktops/${chromium.id}/browser/cdp`, {}, errorBody(401, 'ERR_UNAUTHORIZED', 'this server needs an API token: send "Authorization: Bearer <token>"')],
    [`/desktops/${chromium.id}/browser/cdp`, { authorization: `Bearer ${held.facts.token}` }, errorBody(401, 'ERR_UNAUTHORIZED', 'the API token is not valid')],
    ['/desktops/0123456789abcdef/browser/cdp', { authorization: `Bearer ${KEY}` }, errorBody(404, 'ERR_DESKTOP_NOT_FOUND', 'no desktop 0123456789abcdef in this fleet (GET /desktops lists them)')],
    ['/desktops/..%2F..%2Fv1.41/browser/cdp', { authorization: `Bearer ${KEY}` }, errorBody(400, 'ERR_INVALID_DESKTOP_REQUEST', 'the desktop id in the path must be 16 lowercase hex digits, as POST /desktops answered it')],
  ]
  for (const [path, headers, expected] of refusals) {
    const upgrade = await new Promise<unknown>((resolve) => {
      const ws = new WebSocket(`ws://${host}${path}`, { headers })
      ws.on('unexpected-response', (_request, response) => {
        let text = ''
        response.on('data', (chunk: Buffer) => { text += chunk })
        response.on('end', () => { resolve(JSON.parse(text)); ws.terminate() })
      })
      ws.on('open', () => { resolve('opened'); ws.close() })
      ws.on('error', () => {})
    })
    t.strictSame(upgrade, expected, `upgrade of ${path} with ${Object.keys(headers).join(',') || 'no key'}: an HTTP answer, no socket`)
  }
  t.strictSame(await get(`/desktops/${firefox.id}/browser/cdp/json/version`), [409, { statusCode: 409, code: 'ERR_BROWSER_NO_DEVTOOLS', error: 'Conflict', message: "the desktop's browser is Firefox, whose DevTools this server does not serve" }], "a Firefox desktop's discovery: the desktop's own 409")
  // The key of the fleet in the wrong header name, and the desktop's own token: refused by the fleet (a desktop's token is no key to the fleet).
  t.match(await get(`/desktops/${chromium.id}/browser/cdp/json/version`, { authorization: `Bearer ${held.facts.token}` }), [401, { code: 'ERR_UNAUTHORIZED' }])

  t.strictSame((await call('POST', `/desktops/${chromium.id}/pause`)).statusCode, 200, 'paused')
  t.strictSame(await command(socket, { authorization: `Bearer ${KEY}` }), 'refused 409', "a paused desktop's socket: refused before the upgrade")
  t.match(await get(`/desktops/${chromium.id}/browser/cdp/json/version`), [409, { code: 'ERR_DESKTOP_PAUSED' }])
  await call('POST', `/desktops/${chromium.id}/resume`)
  t.match(await get(`/desktops/${chromium.id}/browser`), [200, { method: 'GET', url: '/browser', authorization: `Bearer ${held.facts.token}`, desktop: chromium.id }], 'GET …/browser forwarded with its token')
})

t.test("the pool's browser (--browser) is matched like its profile", async (t) => {
  const { call, backend, fleet } = await startFleet(t, { warm: 1, max: 3, browser: 'chromium' })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const [warm] = [...backend.held.keys()]
  t.equal(backend.held.get(warm!)!.facts.browser, 'chromium', "the pool is of the fleet's --browser")
  const claimed = (await call('POST', '/desktops', {})).json()
  t.match(claimed, { id: warm, browser: 'chromium' }, 'a create with no browser named: the pool\'s, claimed')
  await until(t, 'the pool refills', () => fleet.health().ready)
  const other = (await call('POST', '/desktops', { browser: 'firefox' })).json()
  t.not(other.id, [...backend.held.keys()].find((id) => id !== warm && id !== other.id), 'another browser: a desktop of its own')
  t.equal(backend.held.get(other.id)!.facts.browser, 'firefox')
  t.strictSame(backend.calls.map((c) => c.split(' ')[0]), ['create', 'claim', 'create', 'create'], 'claimed once; the Firefox one started for it')
})

t.test("Scrapybara's browser routes through the SDK, unchanged: start, cdp_url, current_url, stop; Firefox refused saying how", async (t) => {
  // A fleet whose pool runs Chromium: its Ubuntu instances have the browser API too.
  const { backend, host, call } = await listening(t, { max: 3, browser: 'chromium' })
  const client = new ScrapybaraClient({ apiKey: KEY, environment: `http://${host}` })
  const ubuntu = await client.startUbuntu()
  await until(t, 'it runs', async () => (await client.get(ubuntu.id)).status === 'running')
  const cdpUrl = `ws://${host}/desktops/${ubuntu.id}/browser/cdp`
  t.strictSame(await ubuntu.browser.start(), { cdpUrl }, 'browser.start: the CDP URL through the fleet')
  t.strictSame(await ubuntu.browser.getCdpUrl(), { cdpUrl }, 'browser.getCdpUrl')
  t.strictSame(await ubuntu.browser.getCurrentUrl(), { currentUrl: `https://example.com/${ubuntu.id}` }, 'browser.getCurrentUrl: the first page the browser lists')
  t.strictSame(await ubuntu.browser.stop(), { status: 'stopped' }, 'browser.stop')
  t.strictSame(backend.commands, [`${ubuntu.id} Target.getTargets`, `${ubuntu.id} Browser.close`], "the commands the routes sent the desktop's browser")

  // start_browser runs Chromium whatever the pool's browser; its instance has the same routes.
  const browser = await client.startBrowser()
  await until(t, 'it runs', async () => (await client.get(browser.id)).status === 'running')
  t.equal(backend.held.get(browser.id)!.facts.browser, 'chromium', 'start_browser runs Chromium')
  t.strictSame(await browser.getCdpUrl(), { cdpUrl: `ws://${host}/desktops/${browser.id}/browser/cdp` }, "a browser instance's getCdpUrl")
  t.strictSame(await browser.getCurrentUrl(), { currentUrl: `https://example.com/${browser.id}` }, "a browser instance's getCurrentUrl")
  const auth = await browser.saveAuth({ name: 'x' }, { maxRetries: 0 }).then(() => undefined, (e: unknown) => e)
  t.strictSame([(auth as ScrapybaraError).statusCode, ((auth as ScrapybaraError).body as { code: string }).code], [501, 'ERR_NOT_IMPLEMENTED'], 'auth states stay 501')

  const firefox = (await call('POST', '/desktops', { browser: 'firefox' })).json()
  await until(t, 'it runs', async () => (await client.get(firefox.id)).status === 'running')
  const instance = await client.get(firefox.id) as UbuntuInstance
  const refused = await instance.browser.start({ maxRetries: 0 }).then(() => undefined, (e: unknown) => e)
  t.type(refused, ScrapybaraError)
  t.strictSame([(refused as ScrapybaraError).statusCode, (refused as ScrapybaraError).body], [409, errorBody(409, 'ERR_BROWSER_NO_DEVTOOLS',
    `instance ${firefox.id} runs Firefox, whose DevTools this fleet does not serve: start one with instance_type 'browser' (start_browser), or run the fleet with --browser chromium`)], 'a Firefox desktop: 409 saying how to get DevTools')
})
