/**
 * The browser's DevTools beside the desktop, for real: the server as a process with the full
 * desktop and --browser chromium (Debian's Chromium), a token, and Puppeteer (puppeteer-core,
 * which brings no browser of its own) connecting through /browser/cdp with it. It fills a form;
 * the next screenshot the model takes shows the page that form changed. launch_app's browser
 * opens in that same browser (Puppeteer sees its page); Playwright (playwright-core, no browser
 * either) connects after it through the discovery and finds the form as Puppeteer left it. Refused without the token, from a web
 * page, by a foreign Host, and while another client holds it; each session is listed and
 * logged, without the token or anything typed.
 */
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import puppeteer, { type Browser } from 'puppeteer-core'
import t from 'tap'
import { serverProcesses, startFullServer } from './helpers/full-desktop.ts'
import { decode } from './helpers/pixels.ts'
import { requireProgram } from './helpers/processes.ts'
import { errorBody } from './helpers/error-body.ts'
import { upgrade } from './helpers/ws-upgrade.ts'

for (const program of ['xfce4-session', 'xfwm4', 'dbus-run-session', 'chromium']) requireProgram(program, 'the full desktop with Chromium (npm run setup)')
t.setTimeout(240_000)

const run = promisify(execFile)
const TOKEN = 'cdp-e2e-token-0123456789abcdef'
const TYPED = 'hello from cdp'
/** The colour the page turns once the form is sent with TYPED in it. */
const DONE = [0, 200, 100]
const FORM = 'data:text/html,' + encodeURIComponent(`<!doctype html><title>cdp form</title>
<form id=f><input id=name autofocus><button id=send>Send</button></form>
<script>document.getElementById('f').onsubmit = (event) => {
  event.preventDefault()
  if (document.getElementById('name').value === ${JSON.stringify(TYPED)}) document.documentElement.style.background = 'rgb(${DONE.join(',')})'
}</script>`)

t.test('Puppeteer drives the browser the model sees, through /browser/cdp with the token', async (t) => {
  const server = await startFullServer(t, ['--browser', 'chromium'], { API_TOKEN: TOKEN })
  const port = new URL(server.url).port
  const bearer = { Authorization: `Bearer ${TOKEN}` }
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.url}${path}`, { ...init, headers: { ...bearer, 'content-type': 'application/json', ...init.headers } })
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  }
  const act = (payload: object) => call('/computer', { method: 'POST', body: JSON.stringify(payload) })

  const discovery = await call('/browser/cdp/json/version')
  t.equal(discovery.status, 200)
  t.match(discovery.body, { 'Browser': /^Chrome\/\d+/, 'Protocol-Version': '1.3', webSocketDebuggerUrl: `ws://127.0.0.1:${port}/browser/cdp` })
  const endpoint = discovery.body.webSocketDebuggerUrl as string

  await t.test('refused without the token, from a web page and by a foreign Host', async (t) => {
    const cases = [
      { name: 'no token', headers: {}, status: 401, code: 'ERR_UNAUTHORIZED', message: 'this server needs an API token: send "Authorization: Bearer <token>"' },
      { name: 'a web page', headers: { ...bearer, Origin: 'http://evil.example' }, status: 403, code: 'ERR_FORBIDDEN_ORIGIN', message: 'requests from web pages at http://evil.example are refused: a web page must not drive this desktop. To let this front-end call the server, start it with --allow-origin http://evil.example (or ALLOW_ORIGINS)' },
      { name: 'a foreign Host', headers: { ...bearer, Host: `evil.example:${port}` }, status: 403, code: 'ERR_FORBIDDEN_HOST', message: `the Host header 'evil.example:${port}' is not a name of this server (it answers to localhost, 127.0.0.1, [::1]); a web page whose DNS name was pointed at this address is refused. To reach the server by this name, start it with --allow-host evil.example (or ALLOW_HOSTS)` },
    ]
    for (const { name, headers, status, code, message } of cases) {
      t.strictSame(await upgrade(endpoint, headers), { status, body: errorBody(status, code, message) }, name)
    }
    await t.rejects(puppeteer.connect({ browserWSEndpoint: endpoint }), /401/, 'Puppeteer without the token is refused')
  })

  let browser: Browser | undefined
  t.teardown(() => browser?.disconnect())
  browser = await puppeteer.connect({ browserWSEndpoint: endpoint, headers: bearer, defaultViewport: null })
  t.match(await browser.version(), /^Chrome\//, 'connected')

  await t.test('one client at a time: a second is refused while the first holds it', async (t) => {
    t.strictSame(await upgrade(endpoint, bearer), {
      status: 409,
      body: errorBody(409, 'ERR_BROWSER_BUSY', "another client holds the browser's DevTools connection (session 1); one client at a time: close the other (browser.disconnect() / browser.close()) and connect again"),
    })
  })

  await t.test('a form filled through CDP shows in the model\'s next screenshot', async (t) => {
    const page = await browser!.newPage()
    await page.goto(FORM)
    await page.type('#name', TYPED)
    await page.click('#send')
    await page.waitForFunction(`getComputedStyle(document.documentElement).backgroundColor === 'rgb(${DONE.join(', ')})'`, { timeout: 10_000 })
    // The window is drawn by the X server a moment after the page changed.
    let share = 0
    for (const deadline = Date.now() + 15_000; share < 0.1 && Date.now() < deadline;) {
      const shot = await act({ action: 'take_screenshot' })
      t.equal(shot.status, 200)
      const image = await decode(shot.body.base64_image as string)
      let matching = 0
      for (let y = 0; y < image.height; y += 4) {
        for (let x = 0; x < image.width; x += 4) {
          if (image.at(x, y).every((value, i) => Math.abs(value - DONE[i]!) <= 2)) matching++
        }
      }
      share = matching / (Math.ceil(image.height / 4) * Math.ceil(image.width / 4))
    }
    t.ok(share >= 0.1, `the page the form turned green fills ${Math.round(share * 100)}% of the screenshot`)
  })

  await t.test('launch_app\'s browser opens in the same browser: Puppeteer sees its page', async (t) => {
    const file = join(server.home, 'from-launch-app.html')
    writeFileSync(file, '<title>from launch_app</title>opened by the model')
    const url = pathToFileURL(file).href
    const launched = await act({ action: 'launch_app', app: 'browser', target: url })
    t.equal(launched.status, 200, JSON.stringify(launched.body))
    t.match(launched.body, { window: { class: 'Chromium' } })
    const target = await browser!.waitForTarget((candidate) => candidate.url() === url, { timeout: 20_000 })
    t.equal(target.type(), 'page')
  })

  await t.test('Chromium is the session\'s default browser', async (t) => {
    const processes = [...serverProcesses(server.server.pid!)]
    t.ok(processes.some(([, command]) => command.includes('--remote-debugging-pipe')), 'the browser with the DevTools pipe is a process of the server\'s desktop')
    // The panel's environment is the session's (Chromium's own rewrites its process title over it).
    const panel = processes.find(([, command]) => command.startsWith('xfce4-panel'))?.[0]
    t.ok(panel, 'the session\'s panel runs')
    const environ = Object.fromEntries(readFileSync(`/proc/${panel}/environ`, 'utf8').split('\0').filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]))
    t.match(environ, { BROWSER: 'chromium', HOME: server.home, XDG_CONFIG_DIRS: /\/xfce\/chromium:.*\/xfce:\/etc\/xdg$/ }, 'the session\'s environment names it')
    const { stdout } = await run('xdg-mime', ['query', 'default', 'x-scheme-handler/https'], { env: environ })
    t.equal(stdout.trim(), 'chromium.desktop', 'a link opens in Chromium')
  })

  await browser.disconnect()
  browser = undefined
  await t.test('Playwright connects through the discovery, and finds the page Puppeteer filled', async (t) => {
    const other = await chromium.connectOverCDP(`${server.url}/browser/cdp`, { headers: bearer, timeout: 30_000 })
    t.teardown(() => other.close())
    const pages = other.contexts().flatMap((context) => context.pages())
    const form = pages.find((page) => page.url() === FORM)
    t.ok(form, 'the form\'s page is there')
    t.equal(await form!.inputValue('#name'), TYPED, 'with what Puppeteer typed')
    await other.close()
  })

  await t.test('each session is listed and logged, without the token or what was typed', async (t) => {
    // The client's close reaches the server a moment after disconnect() returned.
    let status = await call('/browser')
    for (const deadline = Date.now() + 5000; status.body.current !== null && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = await call('/browser')
    }
    t.equal(status.status, 200)
    t.match(status.body, { browser: 'chromium', devtools: true, current: null, recent: [{ id: 2 }, { id: 1, client: '127.0.0.1', close_reason: 'the client closed the connection', closed_at: String }] })
    const session = (status.body.recent as Array<Record<string, number>>)[1]!
    t.ok(session.messages_in! > 0 && session.messages_out! > 0 && session.bytes_in! > 0 && session.bytes_out! > 0, 'its traffic is counted')
    const lines = server.lines.filter((line) => line.includes('"CDP session'))
    t.match(lines.map((line) => JSON.parse(line) as Record<string, unknown>), [
      { msg: 'CDP session opened', session: 1, client: '127.0.0.1' },
      { msg: 'CDP session closed', session: 1, client: '127.0.0.1', reason: 'the client closed the connection' },
      { msg: 'CDP session opened', session: 2, client: '127.0.0.1' },
      { msg: 'CDP session closed', session: 2, client: '127.0.0.1', reason: 'the client closed the connection' },
    ])
    t.notOk(server.lines.some((line) => line.includes(TOKEN) || line.includes(TYPED)), 'no log line carries the token or the typed text')
  })
})
