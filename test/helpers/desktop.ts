/**
 * End-to-end helpers: a real Xvfb per test file on a free display, the app over the real
 * nut driver on it, X clients started on it, and every process ended by PID at teardown.
 */
import { execFile } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import pino from 'pino'
import { buildApp, type AppOptions } from '../../src/http/app.ts'
import { NutDriver } from '../../drivers/nut/nut-driver.ts'
import type { XDriver } from '../../src/driver/driver.ts'
import { startXvfb, type Xvfb } from '../../drivers/x11/xvfb.ts'
import { xEnv } from '../../drivers/x11/authority.ts'
import { lockFile } from '../../drivers/x11/free-display.ts'
import { spawnOwned } from './processes.ts'
import { startOracle } from './oracle.ts'

type Oracle = Awaited<ReturnType<typeof startOracle>>

const run = promisify(execFile)

interface TestContext { teardown: (fn: () => unknown) => void }

export interface DesktopOptions {
  /** WIDTHxHEIGHTxDEPTH, default 1280x800x24. */
  screen?: string
}

/**
 * Starts an Xvfb of this test file's own on a free display (layout pinned to US) and stops it
 * by PID at teardown. It takes only clients with its cookie: X programs started here get
 * XAUTHORITY (`xEnv`; startXvfb also sets it in this process' environment). Returns its
 * display, pid and Xauthority file, plus `exited`/`alive` to watch it.
 */
export async function startDesktop (t: TestContext, options: DesktopOptions | string = {}): Promise<Xvfb> {
  const screen = typeof options === 'string' ? options : options.screen ?? '1280x800x24'
  const xvfb = await startXvfb({ screen })
  t.teardown(() => xvfb.stop())
  return xvfb
}

/** The app over the real nut driver on `display` (with `options` added), closed at teardown. */
export async function buildOnDisplay (t: TestContext, display: string, options: Partial<AppOptions> = {}) {
  const driver = new NutDriver({ display })
  const app = await buildApp({ driver, logger: pino({ level: 'silent' }), desktop: { display }, ...options })
  t.teardown(() => app.close())
  await app.ready()
  return { app, driver }
}

/**
 * A driver started on a 640x480 Xvfb of its own, for a test that kills that X server: the
 * reasons the driver gives for losing it are collected in `exits`. Both end at teardown.
 */
export async function doomedDriver<D extends XDriver> (t: TestContext & { strictSame: (found: unknown, wanted: unknown) => unknown }, make: (display: string) => D) {
  const own = await startDesktop(t, { screen: '640x480x24' })
  const doomed = make(own.display)
  t.teardown(() => doomed.close())
  const exits: string[] = []
  doomed.onExit((reason) => exits.push(reason))
  await doomed.start()
  t.strictSame(await doomed.screenSize(), { width: 640, height: 480 })
  return { own, doomed, exits }
}

/** Where X says a window's content is: xwininfo's absolute corner and size. */
export async function xwininfo (display: string, id: string): Promise<{ x: number, y: number, width: number, height: number }> {
  const { stdout } = await run('xwininfo', ['-id', id], { env: { ...process.env, DISPLAY: display } })
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(-?\\d+)`).exec(stdout)![1])
  return { x: field('Absolute upper-left X'), y: field('Absolute upper-left Y'), width: field('Width'), height: field('Height') }
}

/** Runs xdotool on `display`; resolves with its trimmed stdout. */
export async function xdotool (display: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('xdotool', args, { env: { ...process.env, ...xEnv(display) } })
  return stdout.trim()
}

/** Where X says the pointer is, from `xdotool getmouselocation`, as [x, y]. */
export async function cursorFromX (display: string): Promise<[number, number]> {
  const out = await xdotool(display, 'getmouselocation')
  const match = /x:(\d+) y:(\d+)/.exec(out)
  return [Number(match![1]), Number(match![2])]
}

/** Starts an X client on the display; its stdout is collected; ended by PID at teardown (see processes.ts). */
export function startClient (t: TestContext, display: string, command: string, args: string[]) {
  const child = spawnOwned(t, command, args, { env: { ...process.env, ...xEnv(display) }, stdio: ['ignore', 'pipe', 'ignore'] })
  let output = ''
  child.stdout!.on('data', (chunk) => { output += chunk })
  return { child, output: () => output, clear: () => { output = '' } }
}

/** Waits until a window matching the xdotool search (e.g. ['--class', 'xterm']) is mapped; returns its id. */
export async function waitForWindow (display: string, search: string[]): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const ids = await xdotool(display, 'search', '--onlyvisible', ...search).catch(() => '')
    if (ids) return ids.split('\n')[0]!
    await delay(50)
  }
  throw new Error(`no window ${search.join(' ')} appeared`)
}

/** Keys and buttons X reports as down on the XTest devices (what the server presses). */
export async function heldOnX (display: string): Promise<string[]> {
  const env = { ...process.env, ...xEnv(display) }
  const states = await Promise.all(['Virtual core XTEST keyboard', 'Virtual core XTEST pointer'].map((device) =>
    run('xinput', ['query-state', device], { env }).then(({ stdout }) => stdout)))
  return states.join('\n').split('\n').filter((line) => /=down/.test(line)).map((line) => line.trim())
}

/**
 * Keeps `display` reserved while its X server is down, as that server's lock file did: a
 * lock file naming a live process (this one) makes every other process' free-number search
 * skip it, so a parallel test file cannot start its Xvfb there meanwhile. Returns the release,
 * to call just before starting X on the display again (also run at teardown).
 */
export function holdDisplay (t: TestContext, display: string): () => void {
  const file = lockFile(Number(display.slice(1)))
  let held = true
  const release = () => {
    if (!held) return
    held = false
    rmSync(file, { force: true })
  }
  t.teardown(release)
  writeFileSync(file, `${String(process.pid).padStart(10)}\n`)
  return release
}

export async function until (check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await delay(25)
  }
  return check()
}

/**
 * A test file's desktop: a real Xvfb, the app over the real nut driver on it, and the oracle
 * page (test/helpers/oracle.ts) in Chromium on it. Set up in `t.before`, so that a failure
 * there still runs every teardown; read the fields inside the tests.
 */
export function oracleDesktop (t: TestContext & { before: (fn: () => Promise<void>) => unknown }) {
  const desktop = {} as { app: Awaited<ReturnType<typeof buildOnDisplay>>['app'], oracle: Oracle, display: string }
  t.before(async () => {
    const xvfb = await startDesktop(t)
    desktop.display = xvfb.display
    desktop.app = (await buildOnDisplay(t, xvfb.display)).app
    desktop.oracle = await startOracle(t, xvfb.display)
  })
  return desktop
}
