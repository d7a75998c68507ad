/**
 * The two kinds of desktop a driver runs on: the fake in-memory screen, or an X driver (nut or
 * xdotool) on the given DISPLAY or on an Xvfb of our own, supervised so that it comes back when
 * X dies; each with the accessibility source of the same desktop (AT-SPI on its display, or
 * none). drivers/index.ts names which driver opens which.
 * The driver starts with the app (its onReady hook); `stop()` undoes everything.
 */
import type { Logger } from 'pino'
import type { AccessibilitySource } from '../src/accessibility/source.ts'
import type { Driver, XDriverClass } from '../src/driver/driver.ts'
import { AtspiDesktop } from './atspi/atspi-desktop.ts'
import { fakeAccessibility } from './fake/fake-accessibility.ts'
import { FakeDriver } from './fake/fake-driver.ts'
import { SupervisedDesktop } from './supervised-desktop.ts'
import { VncService } from './x11/vnc-service.ts'
import type { LiveSource } from '../src/live/source.ts'
import type { ClipboardSource } from '../src/clipboard/source.ts'
import { XClipboard } from './x11/clipboard.ts'
import { FakeClipboard } from './fake/fake-clipboard.ts'

export interface DesktopOptions {
  screen: { width: number, height: number, depth: number }
  /** An X display to use (e.g. ':0'); none starts our own Xvfb. */
  display?: string | undefined
  log: Logger
  /** The live view may send input (--live-control); default view-only. */
  liveControl?: boolean
  /** Serve the desktop's clipboard (--clipboard), reading and setting at most this many bytes. */
  clipboard?: { maxBytes: number }
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
  const driver = new SupervisedDesktop({
    ...(options.display && { display: options.display }),
    screen: `${width}x${height}x${depth}`,
    log: options.log.child({ component: 'desktop' }),
    driver: Driver,
  })
  const clipboard = options.clipboard && new XClipboard({ display: () => driver.display, maxBytes: options.clipboard.maxBytes, log: options.log.child({ component: 'clipboard' }) })
  const live = new VncService({ display: () => driver.display, control: options.liveControl === true, log: options.log.child({ component: 'live' }) })
  // The old x11vnc died with its X server; the new desktop gets one as soon as it is up.
  driver.onReplaced(() => live.desktopReplaced())
  return {
    driver,
    accessibility: new AtspiDesktop({ display: () => driver.display, log: options.log.child({ component: 'atspi' }) }),
    get display () { return driver.display },
    live,
    ...(clipboard && { clipboard }),
    stop: async () => { await Promise.all([live.close(), clipboard?.close(), driver.close()]) },
  }
}
