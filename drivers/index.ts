/**
 * Every driver, by the name --driver takes: a new driver is its folder and one line here.
 * server.ts hands the names to the configuration (src/ imports nothing from drivers/) and
 * opens the desktop the configuration names.
 */
import { InvalidConfig } from '../src/errors/errors.ts'
import { unknownDriver } from '../src/runtime/config.ts'
import { fakeDesktop, supervisedDesktop, type Desktop, type DesktopOptions } from './desktop.ts'
import { NutDriver } from './nut/nut-driver.ts'
import { XdotoolDriver } from './xdotool/xdotool-driver.ts'

export type { Desktop, DesktopOptions } from './desktop.ts'

export const DRIVERS = {
  nut: supervisedDesktop(NutDriver),
  xdotool: supervisedDesktop(XdotoolDriver),
  fake: fakeDesktop,
} satisfies Record<string, (options: DesktopOptions) => Desktop>

export type DriverName = keyof typeof DRIVERS

export const DRIVER_NAMES = Object.keys(DRIVERS) as readonly DriverName[]

/** Opens the desktop of the driver `name`: its driver, its accessibility source, and how to stop both. */
export function openDesktop (name: string, options: DesktopOptions): Desktop {
  if (!Object.hasOwn(DRIVERS, name)) throw new InvalidConfig(unknownDriver(name, DRIVER_NAMES))
  return DRIVERS[name as DriverName](options)
}
