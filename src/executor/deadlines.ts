/** The executor's deadlines: on every driver call, and on a request's whole slot in the queue. */
import type { Driver, InputStep, SettleOptions } from '../driver/driver.ts'
import { DesktopUnavailable } from '../errors/errors.ts'
import { passThrough } from './pass-through.ts'
import type { Plan } from './plan.ts'

/**
 * Deadlines above the driver's own. A driver has deadlines of its own (the nut driver kills a
 * worker whose call takes 10 s, X requests fail after 5 s), so these only catch what a driver
 * forgot: a promise below that never settles must not hold the desktop's queue for ever.
 * A call gets CALL_MS (and CHAR_MS a typed character); a request's slot gets SLOT_MS plus
 * what its actions may spend on purpose (waits, key durations, typing, launches).
 */
export const CALL_MS = 20_000
const CHAR_MS = 20
export const SLOT_MS = 30_000
const ACTION_MS = 1000

/** The slot deadline of a batch: a fixed allowance plus the time its actions may take on purpose. */
export function slotMs (plans: Plan[], allowance: { baseMs: number, settleMs: number, launchTimeoutMs: number }): number {
  let ms = allowance.baseMs + allowance.settleMs
  for (const plan of plans) {
    ms += ACTION_MS
    if (plan.screenshot) ms += allowance.settleMs
    if (plan.kind === 'wait') ms += plan.durationMs
    if (plan.kind === 'press_key') ms += plan.durationMs ?? 0
    if (plan.kind === 'type_text') ms += CHAR_MS * plan.text.length
    if (plan.kind === 'launch_app') ms += allowance.launchTimeoutMs
    // A command's own timeout ends it (and everything it started) before its slot does.
    if (plan.kind === 'run_command' || plan.kind === 'bash') ms += plan.timeoutMs + 5000
  }
  return ms
}

/**
 * The driver with a deadline on every call: past it the caller gets 503 (the desktop cannot
 * take an action now), and the driver's own deadline or supervisor deals with the call.
 */
export function withDeadlines (driver: Driver, callMs: number): Driver {
  const timed = <A extends unknown[], R>(name: string, call: (...args: A) => Promise<R>, extraMs: (...args: A) => number = () => 0) =>
    (...args: A): Promise<R> => {
      const ms = callMs + extraMs(...args)
      // One promise and one timer: every action passes here, most of them in well under a millisecond.
      return new Promise<R>((resolve, reject) => {
        const timer = setTimeout(() => reject(new DesktopUnavailable(`the desktop did not answer ${name} within ${ms} ms; retry shortly`)), ms)
        let answer: Promise<R>
        try {
          answer = call(...args)
        } catch (error) {
          clearTimeout(timer)
          throw error
        }
        answer.then((value) => { clearTimeout(timer); resolve(value) }, (error: unknown) => { clearTimeout(timer); reject(error) })
      })
    }
  // Every call that acts on or reads the desktop (a member added to Driver is a type error here
  // until it is timed); starting, closing and window control have deadlines of their own, and
  // desktopDown reads state held in this process.
  const calls: Omit<Required<Driver>, 'name' | 'start' | 'close' | 'ready' | 'onReplaced' | 'desktopDown' | 'windows' | 'settle' | 'input' | 'inputInOrder'> = {
    screenSize: timed('screenSize', () => driver.screenSize()),
    moveMouse: timed('moveMouse', (point) => driver.moveMouse(point)),
    cursorPosition: timed('cursorPosition', () => driver.cursorPosition()),
    wheel: timed('wheel', (dx: number, dy: number) => driver.wheel(dx, dy)),
    typeText: timed('typeText', (text: string) => driver.typeText(text), (text) => CHAR_MS * text.length),
    screenshot: timed('screenshot', (region) => driver.screenshot(region)),
    keyDown: timed('keyDown', (key) => driver.keyDown(key)),
    keyUp: timed('keyUp', (key) => driver.keyUp(key)),
    buttonDown: timed('buttonDown', (button) => driver.buttonDown(button)),
    buttonUp: timed('buttonUp', (button) => driver.buttonUp(button)),
  }
  return passThrough(driver, {
    ...calls,
    ...(driver.settle && { settle: timed('settle', (options: SettleOptions) => driver.settle!(options), (options) => options.maxMs) }),
    // A plan's own pauses are time it takes on purpose.
    ...(driver.input && { input: timed('input', (steps: readonly InputStep[]) => driver.input!(steps), (steps) => steps.reduce((ms, step) => ms + (step.kind === 'pause' ? step.ms : 0), 0)) }),
  })
}
