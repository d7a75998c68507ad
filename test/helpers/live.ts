/**
 * The live view end to end: the server over the real nut driver on its own supervised Xvfb
 * (which the live view's x11vnc attaches to), listening on loopback with a token, and headless
 * Chromium signed in to GET /live through the page's own form. Pixels are read from a
 * screenshot of the Chromium page, inside noVNC's canvas.
 */
import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { promisify } from 'node:util'
import pino from 'pino'
import sharp from 'sharp'
import { buildApp } from '../../src/http/app.ts'
import { openDesktop } from '../../drivers/index.ts'
import type { SupervisedDesktop } from '../../drivers/supervised-desktop.ts'
import { xEnv } from '../../drivers/x11/authority.ts'
import { startBrowser, type Page } from './cdp.ts'
import { until } from './desktop.ts'

const run = promisify(execFile)

interface TestContext { teardown: (fn: () => unknown) => void }

export const TOKEN = 'live-view-token-of-32-characters'
export const SCREEN = { width: 1280, height: 800, depth: 24 }
/** The page's side panel is 280 px wide: a viewport this size shows the desktop at scale 1. */
export const VIEWPORT = { width: SCREEN.width + 280, height: SCREEN.height }

export async function liveServer (t: TestContext, options: { control?: boolean } = {}) {
  let logged = ''
  const log = pino({ level: 'info' }, new Writable({ write (chunk, _encoding, done) { logged += String(chunk); done() } }))
  const desktop = openDesktop('nut', { screen: SCREEN, log, liveControl: options.control === true })
  t.teardown(() => desktop.stop())
  const app = await buildApp({ driver: desktop.driver, live: desktop.live!, token: TOKEN, logger: log, desktop })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const display = desktop.display!
  const act = async (action: object) => {
    const response = await fetch(`${base}/computer`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(action),
    })
    return { status: response.status, body: await response.json() as any }
  }
  return { app, base, desktop, supervised: desktop.driver as SupervisedDesktop, display: () => desktop.display!, firstDisplay: display, act, logged: () => logged }
}

/** Paints the root window of `display` one colour. */
export async function paintRoot (display: string, colour: string): Promise<void> {
  await run('xsetroot', ['-solid', colour], { env: { ...process.env, ...xEnv(display) } })
}

export interface Viewer {
  page: Page
  /** The noVNC canvas in page pixels. */
  canvas: () => Promise<{ x: number, y: number, width: number, height: number }>
  /** The colour the page shows at desktop pixel (x, y). */
  pixel: (x: number, y: number) => Promise<[number, number, number]>
  /** Waits until the page shows `colour` (±tolerance) at (x, y); the ms it took, or undefined past the deadline. */
  untilPixel: (x: number, y: number, colour: [number, number, number], timeoutMs: number) => Promise<number | undefined>
  /** The viewport point showing desktop pixel (x, y). */
  at: (x: number, y: number) => Promise<[number, number]>
}

/** Opens GET /live in headless Chromium, signs in with the form, and waits for the desktop to show. */
export async function openViewer (t: TestContext, base: string): Promise<Viewer> {
  const browser = await startBrowser(t)
  const page = await browser.open(`${base}/live`, VIEWPORT)
  const signedIn = await until(() => page.evaluate<boolean>('!!document.getElementById("signin")').catch(() => false), 15_000)
  if (!signedIn) throw new Error('the sign-in form did not appear')
  await page.evaluate(`document.getElementById('token').value = ${JSON.stringify(TOKEN)}; document.getElementById('signin').requestSubmit()`)
  const connected = await until(() => page.evaluate<boolean>(
    'document.getElementById("connection")?.textContent === "connected" && !!document.querySelector("#screen canvas")').catch(() => false), 20_000)
  if (!connected) throw new Error(`the live view did not connect: ${await page.evaluate('document.body.innerText').catch(String)}`)
  const canvas = () => page.evaluate<{ x: number, y: number, width: number, height: number }>(
    '(() => { const r = document.querySelector("#screen canvas").getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height } })()')
  const at = async (x: number, y: number): Promise<[number, number]> => {
    const rect = await canvas()
    return [rect.x + (x + 0.5) * rect.width / SCREEN.width, rect.y + (y + 0.5) * rect.height / SCREEN.height]
  }
  const pixel = async (x: number, y: number): Promise<[number, number, number]> => {
    const [px, py] = await at(x, y)
    const png = await page.screenshot({ x: Math.floor(px), y: Math.floor(py), width: 1, height: 1 })
    const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    return [data[0]!, data[1]!, data[2]!]
  }
  const untilPixel = async (x: number, y: number, colour: [number, number, number], timeoutMs: number) => {
    const started = performance.now()
    const deadline = started + timeoutMs
    for (;;) {
      // While the view reconnects its canvas is replaced: no canvas for a moment is not yet.
      if (near(await pixel(x, y).catch(() => [-1, -1, -1]), colour)) return performance.now() - started
      if (performance.now() > deadline) return undefined
    }
  }
  return { page, canvas, pixel, untilPixel, at }
}

export const near = (a: readonly number[], b: readonly number[], tolerance = 12) => a.every((value, i) => Math.abs(value - b[i]!) <= tolerance)

export const hex = (colour: [number, number, number]) => `#${colour.map((c) => c.toString(16).padStart(2, '0')).join('')}`
