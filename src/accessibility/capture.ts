/**
 * One snapshot: choose the windows the scope asks for, walk them, map to CUP, wrap in the
 * envelope and remember the element ids.
 */
import type { Size } from '../screen/geometry.ts'
import { normalize, scaleRect, type ElementRecord } from './normalize.ts'
import { CUP_VERSION, type CupEnvelope, type CupScope, type CupWindow } from './schema.ts'
import type { AccessibilitySource, RawWindow } from './source.ts'
import { AtspiState, hasState } from './states.ts'
import { unreachable } from '../errors/unreachable.ts'

export interface CaptureOptions {
  scope: CupScope
  maxDepth: number
  maxNodes: number
  /** The real screen. */
  real: Size
  /** The request's coordinate space (the real screen unless display_width_px/height_px say otherwise). */
  client: Size
}

export interface Capture {
  envelope: CupEnvelope
  elements: Map<string, ElementRecord>
  /** Nodes read from the desktop, and whether a limit cut the walk short. */
  nodes: number
  truncated: boolean
  ms: number
}

export async function capture (source: AccessibilitySource, options: CaptureOptions): Promise<Capture> {
  const started = performance.now()
  const all = await source.windows()
  const visible = all.filter((window) => hasState(window.states, AtspiState.VISIBLE))
  const foreground = foregroundOf(visible)
  const chosen = choose(options.scope, visible, foreground)
  const walked = await source.walk(chosen.map((window) => window.ref), { maxDepth: options.maxDepth, maxNodes: options.maxNodes })
  const { nodes, elements } = normalize(walked.roots, { real: options.real, client: options.client })
  const windows: CupWindow[] = visible.map((window) => ({
    title: window.title || window.app.name,
    pid: window.app.pid,
    foreground: window === foreground,
    bounds: window.extents && window.extents[2] > 0 && window.extents[3] > 0
      ? scaleRect({ x: window.extents[0], y: window.extents[1], w: window.extents[2], h: window.extents[3] }, options.real, options.client)
      : null,
  }))
  const app = options.scope === 'foreground' && foreground ? appInfo(foreground) : undefined
  const envelope: CupEnvelope = {
    version: CUP_VERSION,
    platform: 'linux',
    timestamp: Date.now(),
    screen: { w: options.client.width, h: options.client.height },
    ...(app && { app }),
    scope: options.scope,
    tree: nodes,
    windows,
  }
  return { envelope, elements, nodes: walked.nodes, truncated: walked.truncated, ms: Math.round(performance.now() - started) }
}

/**
 * The window the toolkit calls ACTIVE. Without a window manager nothing is active; then the
 * newest visible window (the registry lists applications in the order they registered).
 */
export function foregroundOf (windows: RawWindow[]): RawWindow | undefined {
  // A window manager may call an untitled window of its own ACTIVE beside the application's
  // (xfwm4 does): a titled window wins.
  const actives = windows.filter((window) => hasState(window.states, AtspiState.ACTIVE))
  const active = actives.find((window) => window.title !== '') ?? actives[0]
  if (active) return active
  const newest = windows.at(-1)
  // An application's popups and bubbles are windows too: its largest window is the main one.
  const area = (window: RawWindow) => (window.extents ? Math.max(0, window.extents[2]) * Math.max(0, window.extents[3]) : 0)
  return windows.filter((window) => window.ref.bus === newest?.ref.bus).reduce<RawWindow | undefined>(
    (best, window) => (!best || area(window) > area(best) ? window : best), undefined)
}

function choose (scope: CupScope, visible: RawWindow[], foreground: RawWindow | undefined): RawWindow[] {
  switch (scope) {
    case 'foreground': return foreground ? [foreground] : []
    // The desktop surface is a file manager's desktop frame; without one only the window list is answered.
    case 'desktop': return visible.filter((window) => window.role === 'desktop frame')
    case 'full': return visible
    default: return unreachable(scope, 'scope')
  }
}

function appInfo (window: RawWindow): CupEnvelope['app'] {
  return {
    name: window.app.name || window.title,
    ...(window.app.pid !== null && { pid: window.app.pid }),
  }
}
