/**
 * The executor's driver wrappers (held inputs, keys after clicks) change a few members and pass
 * every other one through: this is the one list of a Driver's members they share, so a member
 * added to Driver is added here once. Optional members are there only when the driver has them.
 */
import type { Driver } from '../driver/driver.ts'

/** `driver` with `overrides` in place of some members (getters included), the rest passed through. */
export function passThrough (driver: Driver, overrides: Partial<Driver>): Driver {
  const through: Driver = {
    name: driver.name,
    start: () => driver.start(),
    close: () => driver.close(),
    ready: () => driver.ready(),
    ...(driver.onReplaced && { onReplaced: (listener: () => void) => driver.onReplaced!(listener) }),
    ...(driver.desktopDown && { desktopDown: () => driver.desktopDown!() }),
    get windows () { return driver.windows },
    screenSize: () => driver.screenSize(),
    moveMouse: (point) => driver.moveMouse(point),
    cursorPosition: () => driver.cursorPosition(),
    buttonDown: (button) => driver.buttonDown(button),
    buttonUp: (button) => driver.buttonUp(button),
    wheel: (dx, dy) => driver.wheel(dx, dy),
    keyDown: (key) => driver.keyDown(key),
    keyUp: (key) => driver.keyUp(key),
    ...(driver.input && { input: (steps) => driver.input!(steps) }),
    ...(driver.inputInOrder && { inputInOrder: true }),
    typeText: (text) => driver.typeText(text),
    screenshot: (region) => driver.screenshot(region),
    ...(driver.settle && { settle: (options) => driver.settle!(options) }),
  }
  return Object.defineProperties(through, Object.getOwnPropertyDescriptors(overrides))
}
