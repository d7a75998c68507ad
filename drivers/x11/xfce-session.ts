/**
 * The full desktop (--desktop full): an XFCE session on our own Xvfb — window manager (xfwm4),
 * panel, wallpaper (xfdesktop), settings daemon — on a D-Bus session bus of its own, with the
 * session's home, our defaults first in XDG_CONFIG_DIRS (./xfce: no screensaver, locker, power
 * saving, notifications or session saving; a panel with launchers; the default applications),
 * and the accessibility bus's address, so that the panel and every application it or
 * launch_app starts appear in the accessibility tree.
 *
 * It takes the window manager's place in the supervised desktop: started once X answers,
 * ready when xfwm4 announces itself, brought back when X dies. Stopping it ends every process
 * of it: its process group first, then any process that left the group (a D-Bus activated
 * service, an application started from the panel that made a session of its own) found by
 * the marker every process of the session inherits in its environment.
 */
import { spawn, execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import type { Log } from '../../src/runtime/logger.ts'
import type { BrowserKind } from '../../src/runtime/desktop-apps.ts'
import { signalGroup, stopChild, watchExit } from '../stop-child.ts'
import { groupDiesWithUs } from './orphan.ts'
import { yieldingGroup, yielding } from './app-priority.ts'
import type { WindowManager } from './window-manager.ts'

export const SESSION = 'xfce4-session'
/** The first of the session's XDG_CONFIG_DIRS: our defaults, before Debian's. */
const CONFIG_DIR = fileURLToPath(new URL('./xfce', import.meta.url))
/** The environment variable that marks every process of one session. */
export const SESSION_MARKER = 'COMPUTER_GATEWAY_SESSION'
const STOP_GRACE_MS = 3000
/** What the server's own environment must not hand the session: another session's buses and settings places. */
const NOT_INHERITED = ['DBUS_SESSION_BUS_ADDRESS', 'AT_SPI_BUS_ADDRESS', 'SESSION_MANAGER', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR', 'XDG_SESSION_ID', 'WAYLAND_DISPLAY', 'NO_AT_BRIDGE']

let sessions = 0

/** How long the panel may take to reserve its strip once the window manager is up. */
const PANEL_TIMEOUT_MS = 20_000

export interface XfceSessionOptions {
  display: string
  /** The session's home; made when missing. */
  home: string
  /** The accessibility bus's environment (AT_SPI_BUS_ADDRESS), when it runs. */
  accessibility?: Readonly<Record<string, string>> | undefined
  log: Log
  /** True once a window manager announces itself on the display (Ewmh.managed). */
  managed: () => Promise<boolean>
  /** True once the panel's strut is in the window manager's work area (Ewmh.reserved). */
  docked: () => Promise<boolean>
  /** How long the session may take to bring its window manager up (default 30 s: XFCE starts in seconds, slower on a busy machine). */
  timeoutMs?: number
  /** The session's default web browser (default firefox): chromium puts xfce/chromium/ first among the settings places. */
  browser?: BrowserKind
}

export interface XfceSession extends WindowManager {
  /** What an application started into this session needs in its environment (its bus, home, settings, marker). */
  env: Record<string, string>
}

/** Starts the session on `display`; rejects with the reason when XFCE is not installed, exits, or its window manager never comes up. */
export async function startXfceSession (options: XfceSessionOptions): Promise<XfceSession> {
  const { display, home, log } = options
  mkdirSync(home, { recursive: true })
  const runtime = mkdtempSync(join(tmpdir(), 'computer-gateway-session-'))
  const marker = `${process.pid}-${display}-${++sessions}`
  const own: Record<string, string> = {
    DISPLAY: display,
    HOME: home,
    // mimeapps.list is read from every place in order: the first that names a type decides.
    XDG_CONFIG_DIRS: `${options.browser === 'chromium' ? `${join(CONFIG_DIR, 'chromium')}:` : ''}${CONFIG_DIR}:/etc/xdg`,
    XDG_CURRENT_DESKTOP: 'XFCE',
    XDG_SESSION_DESKTOP: 'xfce',
    DESKTOP_SESSION: 'xfce',
    XDG_RUNTIME_DIR: runtime,
    // Firefox builds its accessibility tree only when told assistive technology is present;
    // LibreOffice shows it only with its GTK 3 face.
    GNOME_ACCESSIBILITY: '1',
    SAL_USE_VCLPLUGIN: 'gtk3',
    BROWSER: options.browser === 'chromium' ? 'chromium' : 'firefox-esr',
    [SESSION_MARKER]: marker,
    ...(options.accessibility?.AT_SPI_BUS_ADDRESS && { AT_SPI_BUS_ADDRESS: options.accessibility.AT_SPI_BUS_ADDRESS }),
  }
  const env: NodeJS.ProcessEnv = { ...process.env, ...own }
  for (const name of NOT_INHERITED) if (!own[name]) delete env[name]

  await blankingOff(display, env, log)
  // dbus-run-session: a session bus that ends with the session; the shell tells us its address
  // (applications launch_app starts join the same bus) and becomes xfce4-session.
  const script = `printf "%s\\n" "$DBUS_SESSION_BUS_ADDRESS"; exec ${yielding('xfce4-session')}`
  const child = spawn(...groupDiesWithUs('dbus-run-session', ['--', 'sh', '-c', script]), { env, cwd: home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  const { exited, exit } = watchExit(child)
  // A session that ends by itself (its X server died) leaves what daemonised behind: swept at
  // once, not only when stop() is called (the supervisor forgets a session that has exited).
  void exited.then(() => sweep(marker, STOP_GRACE_MS)).catch(() => {})
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-8000) })
  createInterface({ input: child.stderr! }).on('line', (line) => log.debug({ display, stderr: line }, 'session output'))
  const bus = new Promise<string>((resolve) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(line.trim()))
    child.once('exit', () => resolve(''))
  })
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => { yieldingGroup(child.pid!); resolve() })
    child.once('error', (error: NodeJS.ErrnoException) => reject(new Error(error.code === 'ENOENT'
      ? 'dbus-run-session is not installed: run `npm run setup -- --desktop`'
      : `could not start the desktop session: ${error.message}`)))
  })
  const stop = async () => {
    if (!exit()) await stopChild({ signal: (name) => signalGroup(child.pid!, name), exited }, STOP_GRACE_MS)
    // What is left of the group, then whatever left it.
    signalGroup(child.pid!, 'SIGKILL')
    await sweep(marker, STOP_GRACE_MS)
    rmSync(runtime, { recursive: true, force: true })
  }
  const timeoutMs = options.timeoutMs ?? 30_000
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ended = exit()
    if (ended) {
      await stop()
      // Its own complaint (e.g. "xfce4-session: Unable to access file …/.ICEauthority:
      // Read-only file system") is the reason, when it made one; the bus's services print too.
      const lines = stderr.trim().split('\n').filter(Boolean)
      const own = lines.filter((line) => line.startsWith(`${SESSION}: `))
      const tail = (own.length > 0 ? own.slice(-1) : lines.slice(-2)).join(' / ')
      throw new Error(`${SESSION} exited at start (${ended.signal ?? `code ${ended.code}`})${tail ? `: ${tail}` : ''}` +
        (/not found|No such file/.test(tail) ? '; run `npm run setup -- --desktop`' : ''))
    }
    if (await options.managed().catch(() => false)) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`${SESSION} brought no window manager up on ${display} within ${timeoutMs / 1000} s`)
    }
    await delay(50)
  }
  // The panel maps seconds after xfwm4 and reserves its strip later still: a window maximised
  // in between (launch_app's, --autostart's) would stay under it, where a click meant for the
  // panel lands on the window. Ready is once the work area leaves the panel out; a session
  // whose panel never docks (a home with a panel of its own, set to float) starts anyway.
  const docking = Date.now() + PANEL_TIMEOUT_MS
  while (Date.now() < docking && !exit() && !await options.docked().catch(() => false)) await delay(50)
  if (!await options.docked().catch(() => false)) log.warn({ display }, 'the desktop session\'s panel reserved no part of the screen in time: maximised windows may cover it')
  const address = await bus
  log.info({ display, pid: child.pid, home }, 'started the desktop session')
  return {
    pid: child.pid!,
    exited,
    stop,
    env: { ...own, ...(address && { DBUS_SESSION_BUS_ADDRESS: address }) },
  }
}

/** No screen saver blanking the screen, no display power saving (Xvfb may lack DPMS: then only the first). */
async function blankingOff (display: string, env: NodeJS.ProcessEnv, log: Log): Promise<void> {
  for (const args of [['s', 'off', 's', 'noblank'], ['-dpms']]) {
    await new Promise<void>((resolve) => execFile('xset', args, { env: { ...env, DISPLAY: display }, timeout: 5000 }, (error) => {
      if (error) log.debug({ display, args, err: error.message }, 'xset failed')
      resolve()
    }))
  }
}

/** The PIDs of the processes whose environment carries the session's marker. */
export function sessionPids (marker: string): number[] {
  const wanted = `${SESSION_MARKER}=${marker}\0`
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(wanted)) pids.push(Number(name))
    } catch { /* gone, or not ours */ }
  }
  return pids
}

/** SIGTERM to every process of the session still running, SIGKILL to those left after `graceMs`. */
async function sweep (marker: string, graceMs: number): Promise<void> {
  const kill = (pids: number[], signal: NodeJS.Signals) => { for (const pid of pids) { try { process.kill(pid, signal) } catch { /* gone */ } } }
  let left = sessionPids(marker)
  if (left.length === 0) return
  kill(left, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while ((left = sessionPids(marker)).length > 0 && Date.now() < deadline) await delay(50)
  kill(left, 'SIGKILL')
}
