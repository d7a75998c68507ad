/**
 * The Chromium event oracle: a local page that records every mouse, wheel, key and input
 * event it receives and posts them to a recorder here, shown full screen by Chromium on the
 * test's Xvfb. What the page records is what a real application saw.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as delay } from 'node:timers/promises'
import { chromiumBinary, spawnOwned } from './processes.ts'

interface TestContext { teardown: (fn: () => unknown) => void }

export interface OracleEvent {
  seq: number
  type: string
  [field: string]: unknown
}

const JWMRC = fileURLToPath(new URL('../../drivers/x11/jwmrc', import.meta.url))

export async function startOracle (t: TestContext, display: string, size = { width: 1280, height: 800 }) {
  const page = await readFile(new URL('../fixtures/oracle/page.html', import.meta.url), 'utf8')
  let events: OracleEvent[] = []
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/ev') {
      // Decoded as one stream: a character split between two chunks decoded chunk by chunk
      // would arrive as two U+FFFD (it did, in long textarea values).
      request.setEncoding('utf8')
      let body = ''
      request.on('data', (chunk: string) => { body += chunk })
      request.on('end', () => { events.push(...JSON.parse(body)); response.end('ok') })
      return
    }
    response.setHeader('content-type', 'text/html; charset=utf-8')
    response.end(page)
  })
  // Idle keep-alive connections closed under the page's fetch lose events (feasibility §5).
  server.keepAliveTimeout = 600_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  const { port } = server.address() as { port: number }

  // A window manager makes kiosk mode truly full screen (without one the viewport is 1279x799).
  // The server's own (jwm): openbox spends ~50 ms on every keymap change, and the typer makes
  // one per character the layout lacks, so it stopped mapping windows for seconds.
  spawnOwned(t, 'jwm', ['-f', JWMRC], { env: { ...process.env, DISPLAY: display }, stdio: 'ignore' })
  await delay(200)

  const binary = chromiumBinary()
  const profile = await mkdtemp(join(tmpdir(), 'cg-chromium-'))
  t.teardown(() => rm(profile, { recursive: true, force: true }))
  // Its own process group: the renderers, zygote and crash handlers go with it.
  spawnOwned(t, binary, [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--window-position=0,0',
    `--window-size=${size.width},${size.height}`, '--password-store=basic', '--disable-features=Translate,MediaRouter',
    '--noerrdialogs', '--disable-infobars', '--hide-crash-restore-bubble', '--kiosk', `http://127.0.0.1:${port}/`,
  ], { env: { ...process.env, DISPLAY: display }, stdio: 'ignore', group: true })

  const deadline = Date.now() + 20_000
  while (!events.some((e) => e.type === 'ready' && e.width === size.width && e.height === size.height)) {
    if (Date.now() > deadline) throw new Error(`Chromium did not show the oracle page at ${size.width}x${size.height}: ${JSON.stringify(events)}`)
    await delay(50)
  }
  await delay(300)
  events = []

  return {
    /** Forgets what was recorded so far. */
    clear: () => { events = [] },
    /** Waits until the page has recorded events matching `done`, then returns them all (without ready/resize noise). */
    async until (done: (events: OracleEvent[]) => boolean, timeoutMs = 3000): Promise<OracleEvent[]> {
      const end = Date.now() + timeoutMs
      while (!done(events.filter((e) => e.type !== 'ready')) && Date.now() < end) await delay(20)
      await delay(50)
      return events.filter((e) => e.type !== 'ready')
    },
  }
}
