/**
 * Settled screenshots on a real Xvfb through the nut driver. An xterm runs a script that, for
 * each line it reads, waits 300 ms and then flips the whole terminal to reverse video and back
 * (DECSCNM): the effect of pressing Return arrives well after the key. A screenshot taken at
 * once still shows the terminal as it was; a settled one shows it flipped. A key that changes
 * nothing on the screen returns after the quiet window, not the cap.
 */
import sharp from 'sharp'
import t from 'tap'
import { buildOnDisplay, startClient, startDesktop, until, waitForWindow } from './helpers/desktop.ts'

// Each line read: after 300 ms, reverse video on, then off for the next line, and so on.
const SCRIPT = 'stty -echo; while :; do read a; sleep 0.3; printf "\\033[?5h"; read b; sleep 0.3; printf "\\033[?5l"; done'
// Inside the terminal (80x24 at the top left corner), away from its text.
const PATCH = { left: 60, top: 80, width: 300, height: 160 }

let app: Awaited<ReturnType<typeof buildOnDisplay>>['app']
let driver: Awaited<ReturnType<typeof buildOnDisplay>>['driver']
let display: string
t.before(async () => {
  const xvfb = await startDesktop(t)
  display = xvfb.display
  ;({ app, driver } = await buildOnDisplay(t, xvfb.display))
  startClient(t, xvfb.display, 'xterm', ['-geometry', '80x24+0+0', '-bg', 'white', '-fg', 'black', '-e', 'sh', '-c', SCRIPT])
  await waitForWindow(xvfb.display, ['--class', 'xterm'])
  // No window manager: keys go to the window under the pointer.
  await act({ action: 'move_mouse', coordinates: [200, 150] })
})

async function act (body: object, query = '') {
  const started = performance.now()
  const response = await app.inject({ method: 'POST', url: `/computer${query}`, payload: body })
  const ms = performance.now() - started
  if (response.statusCode !== 200) throw new Error(`${response.statusCode}: ${response.body}`)
  return { body: response.json() as { base64_image: string | null }, ms }
}

/** Mean brightness (0–255) of the patch: white terminal ≈ 255, reversed ≈ 0. */
async function brightness (base64: string): Promise<number> {
  const pixels = await sharp(Buffer.from(base64, 'base64')).extract(PATCH).removeAlpha().raw().toBuffer()
  return pixels.reduce((sum, value) => sum + value, 0) / pixels.length
}

const isWhite = (b: number) => b > 200
const isDark = (b: number) => b < 60

async function screenBrightness (): Promise<number> {
  const { body } = await act({ action: 'take_screenshot' })
  return brightness(body.base64_image!)
}

t.test('the display reader watches the screen through XDamage', async (t) => {
  const settled = await driver.settle({ quietMs: 100, maxMs: 2000 })
  t.equal(settled.via, 'damage')
  t.equal(settled.quiet, true)
})

t.test('an immediate screenshot shows the terminal before the effect, a settled one after it', async (t) => {
  const start = await screenBrightness()
  t.ok(isWhite(start), `the terminal starts white (${Math.round(start)})`)

  const immediate = await act({ action: 'press_key', keys: ['Return'] }, '?screenshot=true')
  const before = await brightness(immediate.body.base64_image!)
  t.ok(isWhite(before), `taken at once: not flipped yet (${Math.round(before)})`)
  t.ok(await until(async () => isDark(await screenBrightness()), 5000), 'the flip did come, later')

  // The script flips back 300 ms after this Return; a quiet window longer than that delay.
  const settled = await act({ action: 'press_key', keys: ['Return'] }, '?screenshot=true&settle=true&settle_quiet_ms=600')
  t.ok(isWhite(await brightness(settled.body.base64_image!)), 'settled: flipped back')
  t.ok(settled.ms >= 300 + 600, `waited for the change and the quiet window after it (${Math.round(settled.ms)} ms)`)

  const again = await act({ action: 'press_key', keys: ['Return'] }, '?screenshot=true&settle=true&settle_quiet_ms=600')
  t.ok(isDark(await brightness(again.body.base64_image!)), 'settled: flipped again')
})

t.test('a settled screenshot after a key that changes nothing returns after the quiet window', async (t) => {
  // Shift alone draws nothing in a terminal.
  const quietMs = 200
  const { ms } = await act({ action: 'press_key', keys: ['shift'] }, `?screenshot=true&settle=true&settle_quiet_ms=${quietMs}&settle_max_ms=5000`)
  t.ok(ms >= quietMs, `waited the quiet window (${Math.round(ms)} ms)`)
  // The margin covers a grab, an encode and a busy machine; the cap (5 s) is far beyond it.
  t.ok(ms < quietMs + 1000, `returned soon after it (${Math.round(ms)} ms), not at the cap`)
})

t.test('the cap bounds a screen that keeps changing', async (t) => {
  // A second terminal that prints every 50 ms: the screen never stays quiet for 300 ms.
  startClient(t, display, 'xterm', ['-geometry', '40x10+600+0', '-name', 'churn', '-e', 'sh', '-c', 'while :; do date +%N; sleep 0.05; done'])
  await waitForWindow(display, ['--classname', 'churn'])
  const { ms, body } = await act({ action: 'press_key', keys: ['shift'] }, '?screenshot=true&settle=true&settle_quiet_ms=300&settle_max_ms=800')
  t.ok(ms >= 800, `waited the cap (${Math.round(ms)} ms)`)
  t.ok(ms < 800 + 1000, `and not much longer (${Math.round(ms)} ms)`)
  t.ok(body.base64_image, 'the screenshot is taken anyway')
})
