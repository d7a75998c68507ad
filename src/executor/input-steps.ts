/**
 * What the pointer and key actions are made of, as lists of driver input steps, and how a list
 * is sent: whole, in one call, to a driver that takes plans (the nut driver's worker then runs
 * a click in one message and one X round trip), else one primitive at a time.
 */
import type { Driver, InputStep, MouseButton } from '../driver/driver.ts'
import type { Point } from '../screen/geometry.ts'
import type { KeyInfo } from '../keys/index.ts'
import { sleep, throwIfAborted } from './sleep.ts'
import { unreachable } from '../errors/unreachable.ts'

/**
 * Pointer travel between two path points is cut into steps of at most this many pixels, so
 * applications see motion with the button held (drag thresholds, hover targets on the way).
 */
const DRAG_STEP_PX = 32
/**
 * Pauses that let applications see a press, a drag start and a drag end as such: the moves in
 * between go out back to back. Chromium needs the press read before the first move to start
 * a drag (the oracle's drag rows), and the last move read before the release to end it there.
 */
export const DRAG_SETTLE_MS = 2

export const keysDown = (keys: readonly KeyInfo[]): InputStep[] => keys.map((key) => ({ kind: 'key', key, down: true }))
/** Releases in the reverse order of pressing. */
export const keysUp = (keys: readonly KeyInfo[]): InputStep[] => [...keys].reverse().map((key) => ({ kind: 'key', key, down: false }))

/**
 * X stamps events with its clock in milliseconds, and Chromium takes two presses with one
 * timestamp for one native event: the second press of a double click must come a millisecond
 * later to count as one (ui/events MouseEvent::IsRepeatedClickEvent).
 */
export const NEXT_MS: InputStep = { kind: 'pause', ms: 1 }

/**
 * Between held modifiers and the pointer events they qualify. One millisecond was not always
 * enough: on a busy machine Chromium now and then reported a shift-click without shift (the
 * oracle's hold_keys row) when both reached it in one read; a few milliseconds apart, as the
 * separate round trips of before kept them, it never did.
 */
export const HOLD_GAP: InputStep = { kind: 'pause', ms: 5 }

/** `steps` with `hold` pressed before and released after, a few milliseconds apart from them. */
export const holdingSteps = (hold: readonly KeyInfo[], steps: InputStep[]): InputStep[] =>
  hold.length ? [...keysDown(hold), HOLD_GAP, ...steps, HOLD_GAP, ...keysUp(hold)] : steps

export const moveTo = (to: Point): InputStep => ({ kind: 'move', to })

/** n press/release pairs at one spot: what X applications count as a double or triple click. */
export function clickSteps (button: MouseButton, count: number): InputStep[] {
  const steps: InputStep[] = []
  for (let i = 0; i < count; i++) {
    if (i > 0) steps.push(NEXT_MS)
    steps.push({ kind: 'button', button, down: true }, { kind: 'button', button, down: false })
  }
  return steps
}

export function dragSteps (path: readonly Point[]): InputStep[] {
  const [start, ...rest] = path
  const steps: InputStep[] = [moveTo(start!), { kind: 'button', button: 'left', down: true }, { kind: 'pause', ms: DRAG_SETTLE_MS }]
  let from = start!
  for (const to of rest) {
    const count = Math.max(1, Math.ceil(Math.hypot(to.x - from.x, to.y - from.y) / DRAG_STEP_PX))
    for (let i = 1; i <= count; i++) {
      steps.push(moveTo({
        x: Math.round(from.x + ((to.x - from.x) * i) / count),
        y: Math.round(from.y + ((to.y - from.y) * i) / count),
      }))
    }
    from = to
  }
  steps.push({ kind: 'pause', ms: DRAG_SETTLE_MS }, { kind: 'button', button: 'left', down: false })
  return steps
}

/**
 * Sends `steps` with `hold` pressed around them, and answers where the pointer is after them
 * when the driver says so (the executor reads it otherwise). A driver that takes plans gets
 * them as one: a failure part-way leaves what was pressed to the executor, which releases
 * every key and button the tracked driver saw go down. Step by step, the held keys are
 * released here when a step fails, as the one plan would have.
 */
export async function sendInput (driver: Driver, steps: readonly InputStep[], signal?: AbortSignal, hold: readonly KeyInfo[] = []): Promise<Point | undefined> {
  throwIfAborted(signal)
  if (driver.input) return driver.input(holdingSteps(hold, [...steps]))
  const pressed: KeyInfo[] = []
  try {
    for (const key of hold) {
      pressed.push(key)
      await driver.keyDown(key)
    }
    await stepByStep(driver, steps, signal)
  } finally {
    // Failures here propagate to the executor, which releases everything still held.
    for (const key of pressed.reverse()) await driver.keyUp(key)
  }
  return undefined
}

async function stepByStep (driver: Driver, steps: readonly InputStep[], signal?: AbortSignal): Promise<void> {
  for (const step of steps) {
    switch (step.kind) {
      case 'move': await driver.moveMouse(step.to); break
      case 'button': await (step.down ? driver.buttonDown(step.button) : driver.buttonUp(step.button)); break
      case 'wheel': await driver.wheel(step.dx, step.dy); break
      case 'key': await (step.down ? driver.keyDown(step.key) : driver.keyUp(step.key)); break
      case 'pause': await sleep(step.ms, signal); break
      default: unreachable(step, 'input step')
    }
    throwIfAborted(signal)
  }
}
