/**
 * What a desktop is made of, asked for by a create: its screen, its desktop profile (the
 * server's --desktop) and the applications it opens at start (the server's --autostart), each
 * checked here so that a value the desktop's server would refuse at start (and die of) is a
 * 400 naming the field instead. The warm pool is made of one such spec (the fleet's --screen,
 * --desktop and --browser, nothing autostarted); a create whose spec is another starts a desktop of its own.
 */
import { posix } from 'node:path'
import { launchTarget } from '../src/executor/launch-target.ts'
import { BROWSER_KINDS, DESKTOP_APPS, DESKTOP_KINDS, type Autostart, type BrowserKind, type DesktopKind } from '../src/runtime/desktop-apps.ts'
import { InvalidDesktopRequest } from '../src/errors/errors.ts'
import { LIMITS, parseScreen } from './schemas.ts'

/** The desktop's home inside its container (backends/docker: DESKTOP_HOME); autostart paths lie under it. */
export const DESKTOP_HOME = '/home/node'

export interface DesktopSpec {
  screen: { width: number, height: number }
  desktop: DesktopKind
  autostart: Autostart[]
  /** Its web browser (the server's --browser). */
  browser: BrowserKind
}

/** Two specs are the same desktop when their keys are equal: what the pool is matched by. */
export function specKey (spec: DesktopSpec): string {
  return JSON.stringify([spec.screen.width, spec.screen.height, spec.desktop, spec.autostart.map((a) => [a.app, a.target ?? null]), spec.browser])
}

export const screenText = (s: { width: number, height: number }) => `${s.width}x${s.height}`

/** The profiles in words, for help and errors. */
/** The browsers in words, for help and errors. */
export const BROWSERS_TEXT = 'firefox or chromium (whose DevTools the fleet serves at /desktops/{id}/browser/cdp)'

export const PROFILES_TEXT = 'minimal (a window manager only) or full (an XFCE session with the applications autostart may name)'

/** A create's body made into a spec over the pool's; throws a 400 naming the field. */
export function createSpec (body: { screen?: string, desktop?: string, browser?: string, autostart?: Array<{ app: string, target?: string }> }, pool: DesktopSpec): DesktopSpec {
  let screen = pool.screen
  if (body.screen !== undefined) {
    const parsed = parseScreen(body.screen)
    if (typeof parsed === 'string') throw new InvalidDesktopRequest(parsed)
    screen = parsed
  }
  const desktop = body.desktop ?? pool.desktop
  if (!(DESKTOP_KINDS as readonly string[]).includes(desktop)) {
    throw new InvalidDesktopRequest(`desktop must be ${PROFILES_TEXT} (got '${desktop}')`)
  }
  const browser = body.browser ?? pool.browser
  if (!(BROWSER_KINDS as readonly string[]).includes(browser)) throw new InvalidDesktopRequest(`browser must be ${BROWSERS_TEXT} (got '${browser}')`)
  const autostart = (body.autostart ?? []).map((entry, i) => checkAutostart(entry, i, desktop as DesktopKind))
  return { screen, desktop: desktop as DesktopKind, autostart, browser: browser as BrowserKind }
}

function checkAutostart ({ app, target }: { app: string, target?: string }, index: number, desktop: DesktopKind): Autostart {
  const field = `autostart[${index}]`
  const known = desktop === 'full' ? Object.keys(DESKTOP_APPS) : []
  if (!known.includes(app)) {
    throw new InvalidDesktopRequest(`${field}.app '${app}' is not an application the ${desktop} desktop knows; ` +
      (known.length ? `known: ${known.join(', ')}` : 'the minimal desktop opens none (ask for desktop: full)'))
  }
  if (target === undefined) return { app }
  // The desktop's server takes its autostart list as one comma-separated variable.
  if (target === '' || target !== target.trim() || target.includes(',') || !/^[\x20-\x7e]+$/.test(target) || target.length > LIMITS.maxAutostartTarget) {
    throw new InvalidDesktopRequest(`${field}.target must be 1..${LIMITS.maxAutostartTarget} printable ASCII characters, without commas or surrounding spaces (percent-encode them in a URL)`)
  }
  try {
    // The same rule launch_app applies (http/https/file URLs; paths under the home; nothing
    // starting with '-'), checked against the home's path alone: the desktop checks its real
    // file system again when it opens the target.
    const kind = DESKTOP_APPS[app]!.target
    if (kind !== 'url' && !posix.resolve(DESKTOP_HOME, target).startsWith(`${DESKTOP_HOME}/`) && posix.resolve(DESKTOP_HOME, target) !== DESKTOP_HOME) {
      throw new Error(`target ${JSON.stringify(target)} of app '${app}' is outside the desktop's home ${DESKTOP_HOME}; only paths under it are opened`)
    }
    launchTarget(app, kind, target, DESKTOP_HOME)
  } catch (error) {
    throw new InvalidDesktopRequest(`${field}.target: ${(error as Error).message}`)
  }
  return { app, target }
}
