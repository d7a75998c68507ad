/**
 * Turns a schema-valid unified action into a plan: key names resolved to canonical keys,
 * points mapped to the real screen, the seed's cross-field rules checked. Pure: it touches
 * no desktop, so a batch is planned whole before its first action runs, and a typo in its
 * last action cannot leave the first ones half done.
 */
import { DEFAULT_LIMITS, limitMessages, type ActionOf, type Limits, type UnifiedAction, type WindowSelector } from '../actions/index.ts'
import { TREE_DEFAULTS } from '../actions/accessibility.ts'
import type { MouseButton } from '../driver/driver.ts'
import type { Point, Rect, Size } from '../screen/geometry.ts'
import type { Accessibility } from '../accessibility/service.ts'
import { AppNotAllowed, atAction, InvalidAction, InvalidEncoding, UnsupportedAction } from '../errors/errors.ts'
import { resolveKeys, type KeyInfo } from '../keys/index.ts'
import { notches, type Scaler } from '../screen/scaling.ts'
import { planElementAction, type ElementPlan } from './element-plan.ts'
import { planGeometry } from './windows.ts'
import { launchTarget } from './launch-target.ts'
import type { TargetKind } from '../runtime/desktop-apps.ts'
import { loneSurrogate, loneSurrogateMessage } from '../http/text-bodies.ts'
import { unreachable } from '../errors/unreachable.ts'
import type { ClipboardContent, ClipboardSource, Selection } from '../clipboard/source.ts'
import { planTool, type ToolPlan, type Tools } from './tool-plan.ts'
import { DEFAULT_HUMAN_SECONDS } from '../control/schema.ts'

/** What planning knows of the desktop besides its size: the window actions' preconditions. */
export interface PlanContext {
  /** launch_app's allow-list: name → argv. */
  apps: Readonly<Record<string, readonly string[]>>
  /** What launch_app's target means, and whether windows open maximised (default: path targets, not maximised, no home). */
  launchRules?: LaunchRules | undefined
  /** Why the window actions cannot run on this desktop, when they cannot. */
  windowsUnavailable?: string | undefined
  /** The desktop's accessibility tree, when the server reads one. */
  accessibility?: Accessibility | undefined
  /**
   * An earlier action of the same batch takes a snapshot: element ids then name that
   * snapshot's elements, so they are resolved when the action runs.
   */
  snapshotBefore?: boolean
  /** The desktop's clipboard, when the server serves one (--clipboard). */
  clipboard?: ClipboardSource | undefined
  /** The shell (--shell) and the text editor (--files), when the server serves them. */
  tools?: Tools | undefined
}

/** launch_app's rules beyond the allow-list (--desktop full, --home). */
export interface LaunchRules {
  /** What the target means per app; an app not named takes a path. */
  targets: Readonly<Record<string, TargetKind>>
  /** Where path targets must lie; none: paths are refused. */
  home?: string | undefined
  /** Whether a new window is maximised when the action does not say. */
  maximized: boolean
}

const NO_WINDOWS: PlanContext = { apps: {}, windowsUnavailable: 'this desktop has no window control' }

/** The action kinds that need window control. */
export const WINDOW_ACTIONS: ReadonlySet<string> = new Set(['list_windows', 'focus_window', 'launch_app', 'set_window_geometry'])

interface Holding { hold: KeyInfo[] }

export type Plan = { screenshot: boolean } & (
  | { kind: 'move_mouse', to: Point } & Holding
  | { kind: 'click_mouse', button: MouseButton, clickType: 'down' | 'up' | 'click', at?: Point, count: number } & Holding
  | { kind: 'drag_mouse', path: Point[] } & Holding
  | { kind: 'scroll', at?: Point, dx: number, dy: number } & Holding
  | { kind: 'press_key', keys: KeyInfo[], durationMs?: number, pressType: 'press' | 'down' | 'up' }
  | { kind: 'type_text', text: string } & Holding
  | { kind: 'wait', durationMs: number }
  | { kind: 'take_screenshot', region?: { rect: Rect, size: Size } }
  | { kind: 'get_cursor_position' }
  | { kind: 'list_windows' }
  | { kind: 'focus_window', selector: WindowSelector }
  | { kind: 'launch_app', app: string, argv: readonly string[], cwd?: string, maximize: boolean }
  | { kind: 'set_window_geometry', selector: WindowSelector, geometry: Partial<Rect> }
  | { kind: 'get_accessibility_tree', scope: 'foreground' | 'desktop' | 'full', format: 'json' | 'compact', maxDepth: number, maxNodes: number }
  | Omit<ElementPlan, 'screenshot'>
  | { kind: 'get_clipboard', selection: Selection, prefer?: 'text' | 'image' }
  | { kind: 'set_clipboard', selection: Selection, content: Exclude<ClipboardContent, { kind: 'empty' }> }
  | ToolPlan
  | { kind: 'request_human', message: string, timeoutS: number }
)

export interface BatchPlanOptions {
  limits?: Limits
  /**
   * Name the action at fault in a refusal (`actions[3]: …`, and its index on the error): a
   * batch says so; a single action keeps the seed's message.
   */
  indexed?: boolean
}

/**
 * Plans a batch whole, before any of it runs: every action checked against the limits (what
 * an adapter translates to never met the action schemas) and planned, and the batch's total
 * waiting bounded. A refusal names the action at fault when `indexed`.
 */
export function planBatch (actions: readonly UnifiedAction[], scaler: Scaler, context: PlanContext = NO_WINDOWS, options: BatchPlanOptions = {}): Plan[] {
  const limits = options.limits ?? DEFAULT_LIMITS
  const refuse = (error: unknown, index: number): never => {
    throw options.indexed ? atAction(error, index) : error
  }
  // The whole batch is at fault, as when the batch schema refuses it: no index.
  if (actions.length > limits.maxBatchActions) throw new InvalidAction(limitMessages(limits).batch)
  let seconds = 0
  return actions.map((action, index) => {
    try {
      // It waits outside the desktop's queue, after everything before it has run.
      if (action.action === 'request_human' && index !== actions.length - 1) {
        throw new InvalidAction(`request_human must be the last action of its batch (it is action ${index} of ${actions.length}): send what follows it in the next request`)
      }
      checkLimits(action, limits)
      seconds += busySeconds(action)
      if (seconds > limits.maxBatchSeconds) throw new InvalidAction(limitMessages(limits).batchSeconds(seconds))
      return planAction(action, scaler, {
        ...context,
        snapshotBefore: actions.slice(0, index).some((earlier) => earlier.action === 'get_accessibility_tree'),
      })
    } catch (error) {
      return refuse(error, index)
    }
  })
}

/** How long an action keeps the desktop to itself by asking to wait or hold (checkLimits refused negative ones). */
function busySeconds (action: UnifiedAction): number {
  if (action.action === 'wait') return action.duration
  if (action.action === 'press_key') return action.duration ?? 0
  return 0
}

/** Text longer than the limit, in code points as the schema counts them (a text of emoji is not twice as long). */
const tooLong = (text: string, limit: number) => text.length > limit && [...text].length > limit

/**
 * The bounds the action schemas hold, checked again on the action itself: adapters translate
 * straight into actions (an OpenAI drag of 5000 points, a Gemini scroll of a million pixels),
 * and this is the one place every route's actions pass before anything runs.
 */
export function checkLimits (action: UnifiedAction, limits: Limits = DEFAULT_LIMITS): void {
  const says = limitMessages(limits)
  const combo = (field: 'keys' | 'hold_keys', names: readonly string[] | undefined) => {
    // "ctrl+shift+…" in one entry is as many keys as it names.
    if (names && (names.length > limits.maxComboKeys || resolveKeys(names).length > limits.maxComboKeys)) {
      throw new InvalidAction(says.keys(field))
    }
  }
  if ('hold_keys' in action) combo('hold_keys', action.hold_keys)
  switch (action.action) {
    case 'click_mouse':
      if ((action.num_clicks ?? 1) > limits.maxClicks) throw new InvalidAction(says.clicks)
      break
    case 'drag_mouse':
      if (action.path.length > limits.maxPathPoints) throw new InvalidAction(says.path)
      break
    case 'scroll':
      for (const field of ['delta_x', 'delta_y'] as const) {
        const delta = action[field] ?? 0
        if (Math.abs(notches(delta)) > limits.maxScrollNotches) throw new InvalidAction(says.scroll(field, String(delta)))
      }
      break
    case 'press_key':
      combo('keys', action.keys)
      // The seed's rule too: a negative hold would also take time off the batch's total.
      if (action.duration !== undefined && !(action.duration > 0)) throw new InvalidAction('duration must be positive')
      if ((action.duration ?? 0) > limits.maxKeyHoldSeconds) throw new InvalidAction(says.keyHold)
      break
    case 'type_text':
      if (tooLong(action.text, limits.maxTextLength)) throw new InvalidAction(says.text)
      wellFormed('text', action.text)
      break
    case 'wait':
      if (!(action.duration > 0)) throw new InvalidAction('duration must be positive')
      if (action.duration > limits.maxWaitSeconds) throw new InvalidAction(says.wait)
      break
    case 'set_clipboard':
      if (action.text !== undefined && tooLong(action.text, limits.maxTextLength)) throw new InvalidAction(says.text)
      if (action.text !== undefined) wellFormed('text', action.text)
      break
    case 'element_action':
      if (action.value !== undefined && tooLong(action.value, limits.maxTextLength)) throw new InvalidAction(says.value)
      if (action.value !== undefined) wellFormed('value', action.value)
      break
  }
}

/** Text that a keyboard can type: a lone UTF-16 surrogate is no character at all. */
function wellFormed (field: string, text: string): void {
  const at = loneSurrogate(text)
  if (at >= 0) throw new InvalidEncoding(loneSurrogateMessage(field, at, text.charCodeAt(at)))
}

export function planAction (action: UnifiedAction, scaler: Scaler, context: PlanContext = NO_WINDOWS): Plan {
  const screenshot = action.screenshot === true
  if (WINDOW_ACTIONS.has(action.action) && context.windowsUnavailable !== undefined) {
    throw new UnsupportedAction(`${action.action} needs window control: ${context.windowsUnavailable}`)
  }
  switch (action.action) {
    case 'move_mouse':
      return { kind: 'move_mouse', to: scaler.toReal(action.coordinates), hold: resolveKeys(action.hold_keys), screenshot }
    case 'click_mouse':
      return planClick(action, scaler)
    case 'drag_mouse':
      return {
        kind: 'drag_mouse',
        path: action.path.map((point, i) => scaler.toReal(point, `path[${i}]`)),
        hold: resolveKeys(action.hold_keys),
        screenshot,
      }
    case 'scroll': {
      const dx = notches(action.delta_x ?? 0)
      const dy = notches(action.delta_y ?? 0)
      if (dx === 0 && dy === 0) throw new InvalidAction('at least one of delta_x or delta_y must be non-zero')
      const at = action.coordinates ? scaler.toReal(action.coordinates) : undefined
      return { kind: 'scroll', ...(at && { at }), dx, dy, hold: resolveKeys(action.hold_keys), screenshot }
    }
    case 'press_key': {
      const pressType = action.press_type ?? 'press'
      if (action.duration !== undefined && pressType !== 'press') {
        throw new InvalidAction(`duration is only allowed with press_type 'press' (got press_type '${pressType}')`)
      }
      const keys = resolveKeys(action.keys)
      return {
        kind: 'press_key',
        keys,
        pressType,
        ...(action.duration !== undefined && { durationMs: Math.round(action.duration * 1000) }),
        screenshot,
      }
    }
    case 'type_text':
      return { kind: 'type_text', text: action.text, hold: resolveKeys(action.hold_keys), screenshot }
    case 'wait':
      return { kind: 'wait', durationMs: Math.round(action.duration * 1000), screenshot }
    case 'take_screenshot': {
      const region = action.region ? scaler.regionToReal(action.region) : undefined
      return { kind: 'take_screenshot', ...(region && { region }), screenshot: true }
    }
    case 'get_cursor_position':
      return { kind: 'get_cursor_position', screenshot }
    case 'list_windows':
      return { kind: 'list_windows', screenshot }
    case 'focus_window':
      return { kind: 'focus_window', selector: action.window, screenshot }
    case 'launch_app': {
      const argv = Object.hasOwn(context.apps, action.app) ? context.apps[action.app] : undefined
      if (!argv) {
        const names = Object.keys(context.apps)
        throw new AppNotAllowed(names.length
          ? `app '${action.app}' is not in the allow-list; allowed: ${names.join(', ')}`
          : `app '${action.app}' is not in the allow-list; none is allowed (the server's --allow-app / ALLOW_APPS is empty)`)
      }
      const rules = context.launchRules
      const target = action.target === undefined ? undefined : launchTarget(action.app, rules?.targets[action.app] ?? 'path', action.target, rules?.home)
      return {
        kind: 'launch_app',
        app: action.app,
        argv: target ? [...argv, ...target.args] : argv,
        // Programs start in the desktop's home, as from a launcher: a terminal opens there.
        ...((target?.cwd ?? rules?.home) !== undefined && { cwd: target?.cwd ?? rules?.home }),
        maximize: action.maximized ?? rules?.maximized ?? false,
        screenshot,
      }
    }
    case 'set_window_geometry':
      return { kind: 'set_window_geometry', selector: action.window, geometry: planGeometry(action, scaler), screenshot }
    case 'get_accessibility_tree': {
      if (!context.accessibility) throw new UnsupportedAction('get_accessibility_tree needs the accessibility tree, and this server has none')
      const unavailable = context.accessibility.unavailable()
      if (unavailable) throw new UnsupportedAction(unavailable)
      return {
        kind: 'get_accessibility_tree',
        scope: action.scope ?? TREE_DEFAULTS.scope,
        format: action.format ?? TREE_DEFAULTS.format,
        maxDepth: action.max_depth ?? TREE_DEFAULTS.max_depth,
        maxNodes: action.max_nodes ?? TREE_DEFAULTS.max_nodes,
        screenshot,
      }
    }
    case 'element_action':
      return planElementAction(action, context.accessibility, context.snapshotBefore === true, scaler.real)
    case 'request_human':
      return { kind: 'request_human', message: action.message, timeoutS: action.timeout_s ?? DEFAULT_HUMAN_SECONDS, screenshot }
    case 'get_clipboard':
      clipboardOn(action.action, context)
      return { kind: 'get_clipboard', selection: action.selection ?? 'clipboard', ...(action.type && { prefer: action.type }), screenshot }
    case 'set_clipboard':
      clipboardOn(action.action, context)
      return { kind: 'set_clipboard', selection: action.selection ?? 'clipboard', content: clipboardContent(action), screenshot }
    case 'run_command':
    case 'bash':
    case 'edit':
      return { ...planTool(action, context.tools), screenshot }
    default: return unreachable(action, 'action')
  }
}

function clipboardOn (action: string, context: PlanContext): void {
  if (!context.clipboard) throw new UnsupportedAction(`${action} is off on this server: start it with --clipboard (env CLIPBOARD=1)`)
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** set_clipboard's one content: its text, or its image once proven a PNG. */
function clipboardContent (action: ActionOf<'set_clipboard'>): Exclude<ClipboardContent, { kind: 'empty' }> {
  if ((action.text === undefined) === (action.image === undefined)) throw new InvalidAction('set_clipboard needs exactly one of text or image')
  if (action.text !== undefined) return { kind: 'text', text: action.text }
  const base64 = action.image!
  const png = Buffer.from(base64, 'base64')
  // Buffer.from skips what is not base64: a round trip tells a real encoding from a lucky one.
  if (png.toString('base64').replace(/=+$/, '') !== base64.replace(/=+$/, '')) throw new InvalidAction('image must be a PNG image in base64 (no data: prefix); it is not base64')
  if (png.length < PNG_SIGNATURE.length || !png.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) {
    throw new InvalidAction('image must be a PNG image in base64; these bytes are not a PNG (they lack its signature)')
  }
  return { kind: 'image', png }
}

function planClick (action: ActionOf<'click_mouse'>, scaler: Scaler): Plan {
  const clickType = action.click_type ?? 'click'
  const count = action.num_clicks ?? 1
  // The seed's validator: num_clicks other than 1 only makes sense for a full click.
  if (clickType !== 'click' && count !== 1) {
    throw new InvalidAction("num_clicks should only be set for click_type='click'")
  }
  const at = action.coordinates ? scaler.toReal(action.coordinates) : undefined
  return {
    kind: 'click_mouse',
    button: action.button,
    clickType,
    ...(at && { at }),
    count,
    hold: resolveKeys(action.hold_keys),
    screenshot: action.screenshot === true,
  }
}
