/**
 * The two kinds of desktop a driver runs on: the fake in-memory screen, or an X driver (nut or
 * xdotool) on the given DISPLAY or on an Xvfb of our own, supervised so that it comes back when
 * X dies; each with the accessibility source of the same desktop (AT-SPI on its display, or
 * none). drivers/index.ts names which driver opens which.
 * The driver starts with the app (its onReady hook); `stop()` undoes everything.
 */
import { homedir } from 'node:os'
import type { Logger } from 'pino'
import type { AccessibilitySource } from '../src/accessibility/source.ts'
import type { Driver, XDriverClass } from '../src/driver/driver.ts'
import { AtspiDesktop } from './atspi/atspi-desktop.ts'
import { fakeAccessibility } from './fake/fake-accessibility.ts'
import { FakeDriver } from './fake/fake-driver.ts'
import { SupervisedDesktop } from './supervised-desktop.ts'
import { VncService } from './x11/vnc-service.ts'
import { setXfceWallpaper } from './x11/wallpaper.ts'
import { InvalidConfig } from '../src/errors/errors.ts'
import type { Autostart, DesktopKind, TargetKind } from '../src/runtime/desktop-apps.ts'
import type { LiveSource } from '../src/live/source.ts'
import type { ClipboardSource } from '../src/clipboard/source.ts'
import { XClipboard } from './x11/clipboard.ts'
import { FakeClipboard } from './fake/fake-clipboard.ts'
import type { DevtoolsSource } from '../src/browser/source.ts'
import type { BrowserKind } from '../src/runtime/desktop-apps.ts'
import { ChromiumDevtools } from './x11/chromium-devtools.ts'

export interface DesktopOptions {
  screen: { width: number, height: number, depth: number }
  /** An X display to use (e.g. ':0'); none starts our own Xvfb. */
  display?: string | undefined
  log: Logger
  /** The live view may send input (--live-control); default view-only. */
  liveControl?: boolean
  /** Serve the desktop's clipboard (--clipboard), reading and setting at most this many bytes. */
  clipboard?: { maxBytes: number }
  /** --desktop, --home, --autostart and the applications they name (default: the minimal desktop). */
  session?: SessionOptions
  /** --browser chromium: the desktop's Chromium runs with its DevTools on a pipe the server holds (GET /browser/cdp). */
  browser?: BrowserKind
}

export interface SessionOptions {
  kind: DesktopKind
  home?: string
  autostart: readonly Autostart[]
  apps: Readonly<Record<string, readonly string[]>>
  appTargets: Readonly<Record<string, TargetKind>>
}

export interface Desktop {
  driver: Driver
  /** The desktop's accessibility tree; closed by the app that uses it. */
  accessibility: AccessibilitySource
  /** The X display in use, once started. */
  readonly display?: string | undefined
  /** The desktop's VNC server for the live view (X desktops only). */
  live?: LiveSource
  /** Its clipboard, when asked for; its selection owners end with stop(). */
  clipboard?: ClipboardSource
  /** The browser's DevTools (--browser chromium on an X desktop); closed by the app that uses it. */
  devtools?: DevtoolsSource
  /** Sets the wallpaper (an absolute path): the full desktop's xfdesktop only; the minimal desktop has nothing that draws one. */
  wallpaper?: (file: string) => Promise<void>
  stop: () => Promise<void>
}

export function fakeDesktop (options: DesktopOptions): Desktop {
  const { width, height } = options.screen
  const driver = new FakeDriver({ screen: { width, height } })
  const clipboard = options.clipboard && new FakeClipboard(options.clipboard.maxBytes)
  return { driver, accessibility: fakeAccessibility(), ...(clipboard && { clipboard }), stop: () => driver.close() }
}

/** The desktop of an X driver: supervised, on DISPLAY or our own Xvfb, with AT-SPI on the same display. */
export const supervisedDesktop = (Driver: XDriverClass) => (options: DesktopOptions): Desktop => {
  const { width, height, depth } = options.screen
  const session = options.session
  if (session?.kind === 'full' && options.display) {
    throw new InvalidConfig(`--desktop full starts its session on the Xvfb the server starts itself; DISPLAY is set (${options.display}), so the desktop there is not the server's: unset DISPLAY, or use --desktop minimal`)
  }
  if (session?.kind === 'full' && !session.home) throw new InvalidConfig('--desktop full needs a home directory for its session: set --home (or DESKTOP_HOME), or HOME')
  let accessibility: AtspiDesktop | undefined
  let devtools: ChromiumDevtools | undefined
  const driver = new SupervisedDesktop({
    ...(options.display && { display: options.display }),
    screen: `${width}x${height}x${depth}`,
    log: options.log.child({ component: 'desktop' }),
    driver: Driver,
    ...(session?.kind === 'full' && {
      session: { home: session.home!, autostart: session.autostart, apps: session.apps, appTargets: session.appTargets, ...(options.browser && { browser: options.browser }) },
      accessibilityEnv: () => accessibility!.environment(),
    }),
    ...(options.browser === 'chromium' && {
      beforeLaunch: (argv: readonly string[]) => devtools!.beforeLaunch(argv),
    }),
  })
  const clipboard = options.clipboard && new XClipboard({ display: () => driver.display, maxBytes: options.clipboard.maxBytes, log: options.log.child({ component: 'clipboard' }) })
  const live = new VncService({ display: () => driver.display, control: options.liveControl === true, log: options.log.child({ component: 'live' }) })
  // The old x11vnc died with its X server; the new desktop gets one as soon as it is up.
  driver.onReplaced(() => live.desktopReplaced())
  accessibility = new AtspiDesktop({ display: () => driver.display, log: options.log.child({ component: 'atspi' }) })
  if (options.browser === 'chromium') {
    const atspi = accessibility
    devtools = new ChromiumDevtools({
      display: () => driver.display,
      home: session?.home ?? homedir(),
      // As launch_app's applications get it: the accessibility bus when it runs, then the session's own.
      env: async () => ({ ...await atspi.environment().catch(() => ({})), ...driver.sessionEnv }),
      log: options.log.child({ component: 'browser' }),
    })
  }
  return {
    driver,
    accessibility,
    get display () { return driver.display },
    live,
    ...(clipboard && { clipboard }),
    ...(devtools && { devtools }),
    ...(session?.kind === 'full' && {
      wallpaper: async (file: string) => {
        if (!driver.display) throw new Error('the desktop has not started')
        await setXfceWallpaper({ display: driver.display, env: driver.sessionEnv }, file)
      },
    }),
    stop: async () => { await Promise.all([live.close(), clipboard?.close(), devtools?.close(), driver.close()]) },
  }
}
