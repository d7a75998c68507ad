/**
 * The web-page case in a real browser (SPEC §7): headless Chromium opens a page that posts
 * UI-TARS text to the server as text/plain (no preflight: the request is sent, only the
 * answer is opaque), a page of an allowed origin calls it with its token (preflight, then
 * the call), and a name resolved to 127.0.0.1 (what DNS rebinding achieves) is refused. The
 * fake driver records what reached the desktop.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build } from './helpers/build.ts'

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser']
const TOKEN = 'a-token-of-24-characters'

interface Test { teardown: (fn: () => unknown) => void }

/** A server answering every request with one HTML page that runs `page.script` and prints its log. */
async function pageServer (t: Test): Promise<{ port: number, script: string }> {
  const page = { port: 0, script: '' }
  const server = http.createServer((_request, response) => response.setHeader('content-type', 'text/html').end(`<!doctype html><body><pre id="out"></pre><script>
const lines = []; const log = (line) => { lines.push(line); document.getElementById('out').textContent = lines.join('\\n') };
(async () => { ${page.script} })().catch((error) => log('error ' + error)).finally(() => log('done'))
</script></body>`))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  page.port = (server.address() as AddressInfo).port
  return page
}

/** Loads `url` in headless Chromium and returns the page's log (the text of #out). */
async function visit (t: Test, url: string): Promise<string> {
  const profile = await mkdtemp(join(tmpdir(), 'cg-origin-chromium-'))
  t.teardown(() => rm(profile, { recursive: true, force: true }))
  const binary = CHROMIUM.find((path) => existsSync(path)) ?? 'chromium'
  const chromium = spawn(binary, [
    '--headless=new', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`, '--no-first-run',
    '--host-resolver-rules=MAP evil.test 127.0.0.1', '--virtual-time-budget=5000', '--dump-dom', url,
  ], { stdio: ['ignore', 'pipe', 'ignore'], detached: true })
  t.teardown(() => { if (chromium.exitCode === null && chromium.signalCode === null) process.kill(-chromium.pid!, 'SIGKILL') })
  let dom = ''
  chromium.stdout.on('data', (chunk) => { dom += chunk })
  await new Promise((resolve) => chromium.once('exit', resolve))
  const out = /<pre id="out">([\s\S]*?)<\/pre>/.exec(dom)
  return out ? out[1]!.replaceAll('&amp;', '&').replaceAll('&quot;', '"') : dom.replace(/<[^>]+>/g, '').trim()
}

type App = Awaited<ReturnType<typeof build>>['app']
async function listen (app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

t.test('in the default set-up (loopback, no token) a page in a browser cannot click, nor reach it by a rebound name', async (t) => {
  const evil = await pageServer(t)
  const { app, driver } = await build(t)
  const target = await listen(app)
  evil.script = `
    const sent = await fetch('${target}/computer/uitars', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: "Action: click(start_box='(500,500)')" })
    log('no-cors post: ' + sent.type)
    await fetch('${target}/health').then((r) => log('read health: ' + r.status), () => log('read health: refused'))`
  t.equal(await visit(t, `http://127.0.0.1:${evil.port}/`), 'no-cors post: opaque\nread health: refused\ndone')
  t.strictSame(driver.calls, [], 'the page\'s click never reached the desktop')

  const port = new URL(target).port
  t.strictSame(JSON.parse(await visit(t, `http://evil.test:${port}/health`)), {
    statusCode: 403,
    code: 'ERR_FORBIDDEN_HOST',
    error: 'Forbidden',
    message: `the Host header 'evil.test:${port}' is not a name of this server (it answers to localhost, 127.0.0.1, [::1]); a web page whose DNS name ` +
      'was pointed at this address is refused. To reach the server by this name, start it with --allow-host evil.test (or ALLOW_HOSTS)',
  })
})

t.test('an allowed front-end calls with its token: the preflight passes without it, the call needs it', async (t) => {
  const front = await pageServer(t)
  const { app, driver } = await build(t, { token: TOKEN, allowOrigins: [`http://localhost:${front.port}`] })
  const target = await listen(app)
  const click = (token: string) => `fetch('${target}/computer/uitars', { method: 'POST', headers: { 'content-type': 'text/plain', authorization: 'Bearer ${token}' }, body: "Action: click(start_box='(10,10)')" })`
  front.script = `
    const wrong = await ${click('wrong')}
    log('wrong token: ' + wrong.status + ' ' + (await wrong.json()).code)
    const right = await ${click(TOKEN)}
    log('click: ' + right.status + ' ' + (await right.json()).calls[0].status)`
  t.equal(await visit(t, `http://localhost:${front.port}/`), 'wrong token: 401 ERR_UNAUTHORIZED\nclick: 200 done\ndone')
  t.ok(driver.calls.some((call) => call.call === 'buttonDown'), 'the allowed front-end clicked')
})
