/**
 * What the window actions mean above the driver, once: which window a selector names, how
 * geometry scales between the client's space and the screen, and when a launched
 * application's window has appeared. The driver only lists, activates, moves and spawns.
 */
import type { ActionOf, WindowInfo, WindowSelector } from '../actions/index.ts'
import type { LaunchedApp, WindowControl, WindowState } from '../driver/driver.ts'
import type { Rect } from '../screen/geometry.ts'
import { AppLaunchFailed, AppLaunchTimeout, InvalidAction, PointOutOfBounds, WindowNotFound } from '../errors/errors.ts'
import type { Scaler } from '../screen/scaling.ts'
import { sleep } from './sleep.ts'

/** How often launch_app looks for the new window. */
const LAUNCH_POLL_MS = 50
/** Open windows named in a not-found message, at most. */
const LISTED_IN_ERRORS = 20

export const formatWindowId = (id: number) => `0x${id.toString(16)}`

export function describeSelector (selector: WindowSelector): string {
  const parts = []
  if (selector.id !== undefined) parts.push(`id ${selector.id}`)
  if (selector.title !== undefined) parts.push(`title containing ${JSON.stringify(selector.title)}`)
  if (selector.class !== undefined) parts.push(`class ${JSON.stringify(selector.class)}`)
  return parts.join(' and ')
}

function describeWindow (window: WindowState): string {
  return `${formatWindowId(window.id)} ${JSON.stringify(window.title)} (${window.class || window.instance || 'no class'})`
}

export function matches (window: WindowState, selector: WindowSelector): boolean {
  if (selector.id !== undefined && Number.parseInt(selector.id.slice(2), 16) !== window.id) return false
  if (selector.title !== undefined && !window.title.toLowerCase().includes(selector.title.toLowerCase())) return false
  if (selector.class !== undefined) {
    const wanted = selector.class.toLowerCase()
    if (window.class.toLowerCase() !== wanted && window.instance.toLowerCase() !== wanted) return false
  }
  return true
}

/**
 * The window a selector names. `windows` come highest in the stacking order first, so of
 * several matches the first is the most recently active one.
 */
export function selectWindow (windows: readonly WindowState[], selector: WindowSelector): WindowState {
  const found = windows.find((window) => matches(window, selector))
  if (found) return found
  const open = windows.length
    ? `open windows: ${windows.slice(0, LISTED_IN_ERRORS).map(describeWindow).join(', ')}${windows.length > LISTED_IN_ERRORS ? `, and ${windows.length - LISTED_IN_ERRORS} more` : ''}`
    : 'no window is open'
  throw new WindowNotFound(`no window matches ${describeSelector(selector)}; ${open}`)
}

/** The window as the client sees it: its id in hex, geometry in the client's space. */
export function toWindowInfo (window: WindowState, scaler: Scaler): WindowInfo {
  const [x, y] = scaler.toClient({ x: window.rect.x, y: window.rect.y })
  return {
    id: formatWindowId(window.id),
    title: window.title,
    class: window.class || window.instance,
    pid: window.pid,
    x,
    y,
    width: scaleExtent(window.rect.width, scaler.real.width, scaler.client.width),
    height: scaleExtent(window.rect.height, scaler.real.height, scaler.client.height),
    focused: window.focused,
  }
}

const scaleExtent = (value: number, from: number, to: number) => from === to ? value : Math.max(1, Math.round((value * to) / from))

/**
 * set_window_geometry's fields mapped to the real screen. The content's top-left corner must
 * lie on the client's space (a window may still extend past its right and bottom edges);
 * a size may be at most the space's own.
 */
export function planGeometry (action: ActionOf<'set_window_geometry'>, scaler: Scaler): Partial<Rect> {
  const { x, y, width, height } = action
  if (x === undefined && y === undefined && width === undefined && height === undefined) {
    throw new InvalidAction('set_window_geometry needs at least one of x, y, width, height')
  }
  const space = scaler.client
  const geometry: Partial<Rect> = {}
  if (x !== undefined) {
    if (x < 0 || x >= space.width) throw new PointOutOfBounds(`x ${x} is outside ${scaler.describeSpace()}: x must be 0..${space.width - 1}`)
    geometry.x = scaler.toReal([x, 0]).x
  }
  if (y !== undefined) {
    if (y < 0 || y >= space.height) throw new PointOutOfBounds(`y ${y} is outside ${scaler.describeSpace()}: y must be 0..${space.height - 1}`)
    geometry.y = scaler.toReal([0, y]).y
  }
  if (width !== undefined) {
    if (width > space.width) throw new PointOutOfBounds(`width ${width} is wider than ${scaler.describeSpace()}: width must be 1..${space.width}`)
    geometry.width = scaleExtent(width, space.width, scaler.real.width)
  }
  if (height !== undefined) {
    if (height > space.height) throw new PointOutOfBounds(`height ${height} is taller than ${scaler.describeSpace()}: height must be 1..${space.height}`)
    geometry.height = scaleExtent(height, space.height, scaler.real.height)
  }
  return geometry
}

/** The window again after an action on it; gone meanwhile is a 404 like any other. */
export async function reread (windows: WindowControl, id: number): Promise<WindowState> {
  return selectWindow(await windows.list(), { id: formatWindowId(id) })
}

/**
 * Starts an allowed application and waits for its first new top-level window: one whose
 * _NET_WM_PID is the launched process (or that has no pid, for applications that do not
 * set it). A launcher that exits with code 0 has handed over to another process: then any
 * new window will do. Exiting otherwise fails at once; no window in time is a 504, and the
 * application keeps running (it ends with the server). `ready` (maximise, activate) is done
 * on the window found; a window that closes meanwhile (a splash screen) was not the
 * application's window: it is passed over and the wait goes on.
 */
export async function launchAndWait (windows: WindowControl, app: string, argv: readonly string[],
  timeoutMs: number, signal?: AbortSignal, env?: Record<string, string>, cwd?: string,
  ready: (window: WindowState) => Promise<void> = async () => {}): Promise<WindowState> {
  const before = new Set((await windows.list()).map((window) => window.id))
  let launched: LaunchedApp
  try {
    launched = await windows.launch(argv, env, cwd)
  } catch (error) {
    throw new AppLaunchFailed(`app '${app}' could not be started (${argv[0]}): ${(error as Error).message}`)
  }
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const exit = launched.exit()
    const handedOver = exit?.code === 0
    // Newest last: of several new windows, the application's first is the lowest.
    const fresh = (await windows.list()).filter((window) => !before.has(window.id)).reverse()
    const own = fresh.find((window) => window.pid === launched.pid || (window.pid !== null && launched.owns?.(window.pid) === true)) ??
      fresh.find((window) => window.pid === null || handedOver)
    if (own) {
      try {
        await ready(own)
        return own
      } catch (error) {
        if ((await windows.list()).some((window) => window.id === own.id)) throw error
        before.add(own.id)
        continue
      }
    }
    if (exit && !handedOver) {
      throw new AppLaunchFailed(`app '${app}' (pid ${launched.pid}) exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`} before opening a window`)
    }
    if (performance.now() >= deadline) {
      throw new AppLaunchTimeout(`app '${app}' (pid ${launched.pid}) opened no window within ${timeoutMs / 1000} s; it keeps running until the server stops`)
    }
    await sleep(LAUNCH_POLL_MS, signal)
  }
}
