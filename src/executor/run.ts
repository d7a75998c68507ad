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
import type { Driver, InputStep, WindowControl, WindowState } from '../driver/driver.ts'
import type { Point, Size } from '../screen/geometry.ts'
import { UnsupportedAction } from '../errors/errors.ts'
import type { KeyInfo } from '../keys/index.ts'
import type { Plan } from './plan.ts'
import { sleep } from './sleep.ts'
import { clickSteps, dragSteps, keysDown, keysUp, moveTo, sendInput } from './input-steps.ts'
import { runElementAction } from './element-run.ts'
import { launchAndWait, reread, selectWindow } from './windows.ts'
import { unreachable } from '../errors/unreachable.ts'
import type { ClipboardContent, ClipboardSource } from '../clipboard/source.ts'
import type { ClipboardContentResponse } from '../actions/clipboard.ts'
import type { CommandResultResponse } from '../actions/tools.ts'
import { runTool, type Tools } from './tool-plan.ts'
import type { HumanAnswer } from '../control/schema.ts'

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
  /** The desktop's clipboard, when the server serves one (planning refuses its actions otherwise). */
  clipboard?: ClipboardSource | undefined
  /** The shell and the text editor (planning refuses their actions without them). */
  tools?: Tools | undefined
  /** request_human's answer, had before its slot. */
  human?: HumanAnswer | undefined
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
  /** get_clipboard's answer. */
  clipboard?: ClipboardContentResponse
  /** run_command's and bash's exit code and output. */
  command_result?: CommandResultResponse
  /** Where the pointer is after an input plan, when the driver answered it with the plan. */
  pointer?: Point
  /** request_human's answer. */
  human?: HumanAnswer
}

export async function runPlan (plan: Plan, context: RunContext): Promise<RunOutcome> {
  const { driver, signal } = context
  switch (plan.kind) {
    case 'move_mouse':
      return inputOutcome(plan.hold, await sendInput(driver, [moveTo(plan.to)], signal, plan.hold), `moved to ${context.describe(plan.to)}`)
    case 'click_mouse': {
      const where = plan.at ? ` at ${context.describe(plan.at)}` : ''
      const steps: InputStep[] = plan.at ? [moveTo(plan.at)] : []
      let output: string
      if (plan.clickType === 'click') {
        steps.push(...clickSteps(plan.button, plan.count))
        output = `${clickWord(plan.count)} ${plan.button}${where}`
      } else {
        steps.push({ kind: 'button', button: plan.button, down: plan.clickType === 'down' })
        output = `${plan.clickType === 'down' ? 'pressed' : 'released'} ${plan.button}${where}`
      }
      return inputOutcome(plan.hold, await sendInput(driver, steps, signal, plan.hold), output)
    }
    case 'drag_mouse': {
      const first = plan.path[0]!
      const last = plan.path[plan.path.length - 1]!
      return inputOutcome(plan.hold, await sendInput(driver, dragSteps(plan.path), signal, plan.hold),
        `dragged from ${context.describe(first)} to ${context.describe(last)} through ${plan.path.length} points`)
    }
    case 'scroll': {
      const steps: InputStep[] = [...(plan.at ? [moveTo(plan.at)] : []), { kind: 'wheel', dx: plan.dx, dy: plan.dy }]
      const parts = []
      if (plan.dy) parts.push(`${Math.abs(plan.dy)} ${plan.dy > 0 ? 'down' : 'up'}`)
      if (plan.dx) parts.push(`${Math.abs(plan.dx)} ${plan.dx > 0 ? 'right' : 'left'}`)
      return inputOutcome(plan.hold, await sendInput(driver, steps, signal, plan.hold),
        `scrolled ${parts.join(' and ')}${plan.at ? ` at ${context.describe(plan.at)}` : ''}`)
    }
    case 'press_key':
      return pressKeys(plan, driver, signal)
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
      const opened = await launchAndWait(control, plan.app, plan.argv, context.launchTimeoutMs, signal, env, plan.cwd, async (window) => {
        if (plan.maximize) await control.maximize(window.id)
        await control.activate(window.id)
      })
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
    case 'get_clipboard': {
      const content = await clipboardOf(context).read(plan.selection, plan.prefer)
      const clipboard: ClipboardContentResponse = { selection: plan.selection, kind: content.kind }
      if (content.kind === 'text') clipboard.text = content.text
      if (content.kind === 'image') clipboard.image = content.png.toString('base64')
      return { output: `the ${plan.selection} selection ${describeContent(content)}`, wantsScreenshot: false, clipboard }
    }
    case 'set_clipboard':
      await clipboardOf(context).write(plan.selection, plan.content)
      return { output: `set the ${plan.selection} selection to ${describeContent(plan.content).replace(/^holds /, '')}`, wantsScreenshot: false }
    case 'run_command':
    case 'bash':
    case 'edit':
      return { ...await runTool(plan, context.tools, signal), wantsScreenshot: false }
    case 'request_human': {
      // The executor waited for the person before this slot; here the answer joins the batch's.
      const human = context.human
      if (!human) throw new UnsupportedAction('request_human runs only through the executor, which waits for the person first')
      return { output: humanOutput(human), wantsScreenshot: false, human }
    }
    default: return unreachable(plan, 'plan')
  }
}

function humanOutput (human: HumanAnswer): string {
  if (human.outcome === 'timed_out') return `nobody took the desktop over within ${Math.round(human.waited_ms / 1000)} s`
  const said = human.message ? `: ${human.message}` : ' without a message'
  return `${human.holder} took the desktop over for ${Math.round((human.held_ms ?? 0) / 1000)} s and handed it back${said}`
}

/** Planning refuses the clipboard actions without a clipboard; this is the type's proof. */
function clipboardOf (context: RunContext): ClipboardSource {
  if (!context.clipboard) throw new UnsupportedAction('this server serves no clipboard')
  return context.clipboard
}

/** Sizes, never the content: what is on a clipboard may be a secret, and outputs are logged by clients. */
function describeContent (content: ClipboardContent): string {
  switch (content.kind) {
    case 'empty': return 'is empty'
    case 'text': return `holds ${[...content.text].length} characters of text`
    case 'image': return `holds a PNG image of ${content.png.length} bytes`
    default: return unreachable(content, 'clipboard content')
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

/** The outcome of an input plan: its output, with the keys it held, and the pointer after it when the driver told. */
function inputOutcome (hold: readonly KeyInfo[], pointer: Point | undefined, output: string): RunOutcome {
  return {
    output: hold.length ? `${output} holding ${hold.map((k) => k.name).join('+')}` : output,
    wantsScreenshot: false,
    ...(pointer && { pointer }),
  }
}

async function pressKeys (plan: Extract<Plan, { kind: 'press_key' }>, driver: Driver, signal?: AbortSignal): Promise<RunOutcome> {
  const combo = plan.keys.map((k) => k.name).join('+')
  const outcome = (output: string, pointer: Point | undefined): RunOutcome => ({ output, wantsScreenshot: false, ...(pointer && { pointer }) })
  if (plan.pressType === 'up') return outcome(`released ${combo}`, await sendInput(driver, keysUp(plan.keys), signal))
  if (plan.pressType === 'down') return outcome(`holding ${combo}`, await sendInput(driver, keysDown(plan.keys), signal))
  if (!plan.durationMs) return outcome(`pressed ${combo}`, await sendInput(driver, [...keysDown(plan.keys), ...keysUp(plan.keys)], signal))
  // A timed hold is two plans around an abortable wait; a failure or abort in between leaves
  // the keys to the executor, which releases what the tracked driver saw go down.
  await sendInput(driver, keysDown(plan.keys), signal)
  await sleep(plan.durationMs, signal)
  return outcome(`held ${combo} for ${plan.durationMs / 1000} s`, await sendInput(driver, keysUp(plan.keys)))
}

function clickWord (count: number): string {
  return ['clicked', 'double-clicked', 'triple-clicked'][count - 1] ?? `clicked ${count} times`
}
