/**
 * Carries out one plan on the desktop through the driver's primitives. This is the one place
 * where actions become input; its switch is exhaustive, so a new action kind does not compile
 * until it is handled here.
 */
import type { WindowInfo } from '../actions/index.ts'
import type { ElementOutcome } from '../actions/response.ts'
import { serializeCompact } from '../accessibility/compact.ts'
import type { CupEnvelope } from '../accessibility/schema.ts'
import type { Accessibility } from '../accessibility/service.ts'
import type { Driver, WindowControl, WindowState } from '../driver.ts'
import type { Point, Size } from '../geometry.ts'
import { UnsupportedAction } from '../errors.ts'
import type { KeyInfo } from '../keys/index.ts'
import type { Plan } from './plan.ts'
import { sleep, throwIfAborted } from './sleep.ts'
import { runElementAction } from './element-run.ts'
import { launchAndWait, reread, selectWindow } from './windows.ts'
import { unreachable } from '../unreachable.ts'

export interface RunContext {
  driver: Driver
  signal?: AbortSignal
  /** Formats a real point for the output text, in the client's space. */
  describe: (point: Point) => string
  /** A window as the client sees it (its geometry in the client's space). */
  windowInfo: (window: WindowState) => WindowInfo
  /** How long launch_app waits for the application's window. */
  launchTimeoutMs: number
  /** The real screen and the client's space. */
  real: Size
  client: Size
  /** The accessibility tree, when the server reads one (planning refuses its actions otherwise). */
  accessibility?: Accessibility | undefined
  /** What launched applications need in their environment (the accessibility bus), when known. */
  launchEnv?: () => Promise<Record<string, string> | undefined>
}

export interface RunOutcome {
  output: string
  /** Set when the plan itself is a screenshot; attached screenshots are added by the caller. */
  wantsScreenshot: boolean
  /** list_windows' answer. */
  windows?: WindowInfo[]
  /** The window a window action acted on, after it. */
  window?: WindowInfo
  /** get_accessibility_tree's snapshot: the envelope (format json) or the compact text. */
  accessibility?: CupEnvelope
  text?: string
  truncated?: boolean
  /** element_action's element and how it was reached. */
  element?: ElementOutcome
}

/**
 * Pointer travel between two path points is cut into steps of at most this many pixels, so
 * applications see motion with the button held (drag thresholds, hover targets on the way).
 * Each step is one driver round trip, which paces them; 8 px steps 2 ms apart made a long
 * drag take 400 ms for nothing the oracle could tell apart.
 */
const DRAG_STEP_PX = 32
/** Pauses that let applications see a press, a drag start and a drag end as such. */
const DRAG_SETTLE_MS = 15

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
    case 'list_windows': {
      const windows = (await windowControl(driver).list()).map(context.windowInfo)
      return { output: `${windows.length} window${windows.length === 1 ? '' : 's'}`, wantsScreenshot: false, windows }
    }
    case 'focus_window': {
      const control = windowControl(driver)
      const target = selectWindow(await control.list(), plan.selector)
      await control.activate(target.id)
      return windowOutcome('focused', await reread(control, target.id), context)
    }
    case 'launch_app': {
      const control = windowControl(driver)
      const env = await context.launchEnv?.()
      const opened = await launchAndWait(control, plan.app, plan.argv, context.launchTimeoutMs, signal, env)
      await control.activate(opened.id)
      return windowOutcome(`launched ${plan.app}:`, await reread(control, opened.id), context)
    }
    case 'set_window_geometry': {
      const control = windowControl(driver)
      const target = selectWindow(await control.list(), plan.selector)
      await control.setGeometry(target.id, plan.geometry)
      return windowOutcome('placed', await reread(control, target.id), context)
    }
    case 'get_accessibility_tree': {
      const taken = await accessibilityOf(context).snapshot({
        scope: plan.scope, maxDepth: plan.maxDepth, maxNodes: plan.maxNodes, real: context.real, client: context.client,
      })
      const output = `accessibility snapshot (${plan.scope}): ${taken.nodes} node${taken.nodes === 1 ? '' : 's'}${taken.truncated ? ', cut short by max_depth or max_nodes' : ''}`
      return {
        output,
        wantsScreenshot: false,
        ...(plan.format === 'compact' ? { text: serializeCompact(taken.envelope) } : { accessibility: taken.envelope }),
        truncated: taken.truncated,
      }
    }
    case 'element_action': {
      const { output, element } = await runElementAction(plan, {
        accessibility: accessibilityOf(context),
        screen: context.real,
        describe: context.describe,
        input: (input) => runPlan(input, context),
      })
      return { output, wantsScreenshot: false, element }
    }
    default: return unreachable(plan, 'plan')
  }
}

/** Planning refuses the accessibility actions without a tree; this is the type's proof. */
function accessibilityOf (context: RunContext): Accessibility {
  if (!context.accessibility) throw new UnsupportedAction('this server reads no accessibility tree')
  return context.accessibility
}

/** Planning refuses window actions on a driver without window control; this is the type's proof. */
function windowControl (driver: Driver): WindowControl {
  if (!driver.windows) throw new UnsupportedAction(`the ${driver.name} driver has no window control`)
  return driver.windows
}

function windowOutcome (verb: string, window: WindowState, context: RunContext): RunOutcome {
  const info = context.windowInfo(window)
  return {
    output: `${verb} window ${info.id} ${JSON.stringify(info.title)} at (${info.x}, ${info.y}) ${info.width}x${info.height}`,
    wantsScreenshot: false,
    window: info,
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
        throwIfAborted(signal)
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
