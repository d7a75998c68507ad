/**
 * The applications the full desktop (--desktop full) knows by name, from Debian's packages
 * (scripts/install-system-deps.sh --desktop), and what launch_app's `target` means for each:
 * a URL for the browser, a directory the terminal opens in, a file for the others.
 */

/** What a launch_app target is for an application. */
export type TargetKind = 'url' | 'path' | 'directory'

export interface DesktopApp {
  argv: string[]
  /** url: an http(s) or file URL, appended; path: a file under the home, appended; directory: the working directory. */
  target: TargetKind
}

/** Program options come first; a target is appended as one more argument (or, for the terminal, is where it starts). */
export const DESKTOP_APPS: Readonly<Record<string, DesktopApp>> = Object.freeze({
  // A window of its own even when Firefox already runs (it would otherwise open a tab in the
  // window it has, and launch_app would see no new window).
  browser: { argv: ['firefox-esr', '--new-window'], target: 'url' },
  terminal: { argv: ['xfce4-terminal'], target: 'directory' },
  editor: { argv: ['mousepad'], target: 'path' },
  files: { argv: ['thunar'], target: 'path' },
  pdf: { argv: ['atril'], target: 'path' },
  calculator: { argv: ['galculator'], target: 'path' },
  // No splash: it would be the first window launch_app sees (no class, no pid) and takes.
  writer: { argv: ['libreoffice', '--nologo', '--writer'], target: 'path' },
  spreadsheet: { argv: ['libreoffice', '--nologo', '--calc'], target: 'path' },
})

/** --browser: the full desktop's web browser (launch_app's `browser`, the session's default). */
export const BROWSER_KINDS = ['firefox', 'chromium'] as const
export type BrowserKind = typeof BROWSER_KINDS[number]

/**
 * launch_app's `browser` per --browser. Chromium's `--new-window` goes to the running browser
 * (the one whose DevTools the server holds, started first) and the command exits.
 */
export const BROWSER_APPS: Readonly<Record<BrowserKind, DesktopApp>> = Object.freeze({
  firefox: DESKTOP_APPS.browser!,
  chromium: { argv: ['chromium', '--new-window'], target: 'url' },
})

export const DESKTOP_KINDS = ['minimal', 'full'] as const
export type DesktopKind = typeof DESKTOP_KINDS[number]

/** An application opened whenever the desktop (re)starts: --autostart NAME[=target]. */
export interface Autostart {
  app: string
  target?: string
}
