/**
 * Opens the desktop a configuration asks for: the driver, and the display it acts on — the
 * given DISPLAY, or an Xvfb of our own on a free display number when there is none.
 * `stop()` undoes all of it (driver first, then the Xvfb we started).
 */
import type { Logger } from 'pino'
import type { Driver } from '../src/driver.ts'
import { FakeDriver } from './fake/fake-driver.ts'
import { NutDriver } from './nut/nut-driver.ts'
import { startXvfb } from './x11/xvfb.ts'

export interface DesktopOptions {
  driver: 'nut' | 'fake'
  screen: { width: number, height: number, depth: number }
  /** An X display to use (e.g. ':0'); none starts our own Xvfb. */
  display?: string | undefined
  log: Logger
}

export interface Desktop {
  driver: Driver
  display?: string
  stop: () => Promise<void>
}

export async function openDesktop (options: DesktopOptions): Promise<Desktop> {
  if (options.driver === 'fake') {
    const driver = new FakeDriver({ screen: { width: options.screen.width, height: options.screen.height } })
    return { driver, stop: () => driver.close() }
  }
  const log = options.log.child({ component: 'desktop' })
  const { screen } = options
  const xvfb = options.display
    ? undefined
    : await startXvfb({ screen: `${screen.width}x${screen.height}x${screen.depth}`, log })
  const display = options.display ?? xvfb!.display
  if (xvfb) log.info({ display, pid: xvfb.pid }, 'started Xvfb')
  const driver = new NutDriver({ display, log: options.log.child({ component: 'driver', driver: 'nut' }) })
  return {
    driver,
    display,
    stop: async () => {
      await driver.close()
      await xvfb?.stop()
    },
  }
}
