/**
 * Carries out one plan on the desktop through the driver's primitives. This is the one place
 * where actions become input; its switch is exhaustive, so a new action kind does not compile
 * until it is handled here.
 */
import type { Driver, Point } from '../driver.ts'
import type { KeyInfo } from '../keys/index.ts'
import type { Plan } from './plan.ts'
import { sleep } from './sleep.ts'

export interface RunContext {
  driver: Driver
  signal?: AbortSignal
  /** Formats a real point for the output text, in the client's space. */
  describe: (point: Point) => string
}

export interface RunOutcome {
  output: string
  /** Set when the plan itself is a screenshot; attached screenshots are added by the caller. */
  wantsScreenshot: boolean
}

/** Pointer travel between two path points is cut into steps of at most this many pixels. */
const DRAG_STEP_PX = 8
/** Pauses that let applications see a press, a drag start and a drag end as such. */
const DRAG_SETTLE_MS = 15
const DRAG_STEP_MS = 2

export async function runPlan (plan: Plan, context: RunContext): Promise<RunOutcome> {
  const { driver, signal } = context
  switch (plan.kind) {
    case 'move_mouse':
      return holding(plan.hold, context, async () => {
        await driver.moveMouse(plan.to)
        return `moved to ${context.describe(plan.to)}`
      })
    case 'click_mouse':
      return holding(plan.hold, context, async () => {
        if (plan.at) await driver.moveMouse(plan.at)
        const where = plan.at ? ` at ${context.describe(plan.at)}` : ''
        if (plan.clickType === 'down') {
          await driver.buttonDown(plan.button)
          return `pressed ${plan.button}${where}`
        }
        if (plan.clickType === 'up') {
          await driver.buttonUp(plan.button)
          return `released ${plan.button}${where}`
        }
        // An n-click is n press/release pairs in quick succession at one spot: that is what
        // X applications count as a double or triple click (within their multi-click time).
        for (let i = 0; i < plan.count; i++) {
          await driver.buttonDown(plan.button)
          await driver.buttonUp(plan.button)
        }
        return `${clickWord(plan.count)} ${plan.button}${where}`
      })
    case 'drag_mouse':
      return holding(plan.hold, context, async () => {
        await drag(driver, plan.path, signal)
        const first = plan.path[0]!
        const last = plan.path[plan.path.length - 1]!
        return `dragged from ${context.describe(first)} to ${context.describe(last)} through ${plan.path.length} points`
      })
    case 'scroll':
      return holding(plan.hold, context, async () => {
        if (plan.at) await driver.moveMouse(plan.at)
        await driver.wheel(plan.dx, plan.dy)
        const parts = []
        if (plan.dy) parts.push(`${Math.abs(plan.dy)} ${plan.dy > 0 ? 'down' : 'up'}`)
        if (plan.dx) parts.push(`${Math.abs(plan.dx)} ${plan.dx > 0 ? 'right' : 'left'}`)
        return `scrolled ${parts.join(' and ')}${plan.at ? ` at ${context.describe(plan.at)}` : ''}`
      })
    case 'press_key':
      return { output: await pressKeys(plan, driver, signal), wantsScreenshot: false }
    case 'type_text':
      return holding(plan.hold, context, async () => {
        await driver.typeText(plan.text)
        return `typed ${[...plan.text].length} characters`
      })
    case 'wait':
      await sleep(plan.durationMs, signal)
      return { output: `waited ${plan.durationMs / 1000} s`, wantsScreenshot: false }
    case 'take_screenshot':
      return { output: 'took a screenshot', wantsScreenshot: true }
    case 'get_cursor_position':
      return { output: 'cursor position', wantsScreenshot: false }
    default: {
      const unhandled: never = plan
      throw new Error(`unhandled plan ${JSON.stringify(unhandled)}`)
    }
  }
}

/** Presses `keys` in order, runs the action, releases them in reverse order, also on failure. */
async function holding (keys: KeyInfo[], context: RunContext, action: () => Promise<string>): Promise<RunOutcome> {
  const pressed: KeyInfo[] = []
  try {
    for (const key of keys) {
      pressed.push(key)
      await context.driver.keyDown(key)
    }
    const output = await action()
    return { output: keys.length ? `${output} holding ${keys.map((k) => k.name).join('+')}` : output, wantsScreenshot: false }
  } finally {
    // Failures here propagate to the executor, which releases everything still held.
    for (const key of pressed.reverse()) await context.driver.keyUp(key)
  }
}

async function pressKeys (plan: Extract<Plan, { kind: 'press_key' }>, driver: Driver, signal?: AbortSignal): Promise<string> {
  const combo = plan.keys.map((k) => k.name).join('+')
  if (plan.pressType === 'up') {
    for (const key of [...plan.keys].reverse()) await driver.keyUp(key)
    return `released ${combo}`
  }
  for (const key of plan.keys) await driver.keyDown(key)
  if (plan.pressType === 'down') return `holding ${combo}`
  try {
    if (plan.durationMs) await sleep(plan.durationMs, signal)
  } finally {
    for (const key of [...plan.keys].reverse()) await driver.keyUp(key)
  }
  return plan.durationMs ? `held ${combo} for ${plan.durationMs / 1000} s` : `pressed ${combo}`
}

async function drag (driver: Driver, path: Point[], signal?: AbortSignal): Promise<void> {
  const [start, ...rest] = path
  await driver.moveMouse(start!)
  await driver.buttonDown('left')
  try {
    await sleep(DRAG_SETTLE_MS, signal)
    let from = start!
    for (const to of rest) {
      const steps = Math.max(1, Math.ceil(Math.hypot(to.x - from.x, to.y - from.y) / DRAG_STEP_PX))
      for (let i = 1; i <= steps; i++) {
        await driver.moveMouse({
          x: Math.round(from.x + ((to.x - from.x) * i) / steps),
          y: Math.round(from.y + ((to.y - from.y) * i) / steps),
        })
        await sleep(DRAG_STEP_MS, signal)
      }
      from = to
    }
    await sleep(DRAG_SETTLE_MS, signal)
  } finally {
    await driver.buttonUp('left')
  }
}

function clickWord (count: number): string {
  return ['clicked', 'double-clicked', 'triple-clicked'][count - 1] ?? `clicked ${count} times`
}
