/**
 * Configuration (SPEC §8): command-line flags, each with an environment fallback, checked
 * up front so a bad value stops the server with a message rather than failing later.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_LIMITS, type Limits } from '../actions/index.ts'
import { InvalidConfig } from '../errors/errors.ts'
import { isLoopbackAddress, normalizeHostName, normalizeOrigin } from '../http/http-guard.ts'
import { DEFAULT_SETTLE } from '../screen/settle.ts'
import { launchTarget } from '../executor/launch-target.ts'
import { BROWSER_APPS, BROWSER_KINDS, DESKTOP_APPS, DESKTOP_KINDS, type Autostart, type BrowserKind, type DesktopKind, type TargetKind } from './desktop-apps.ts'
import { DEFAULT_SHELL_LIMITS, type ShellLimits } from '../shell/service.ts'
import { MAX_TIMEOUT_SECONDS } from '../actions/tools.ts'
import { readToken, type TokenContext, type TokenSource } from './token.ts'

export interface Config {
  host: string
  port: number
  token?: string
  /** Where the token came from: 'argument' (--token VALUE) earns a warning at start. */
  tokenSource?: TokenSource
  /** The file the token was read from (--token-file, API_TOKEN_FILE): the shell's start-up check names it. */
  tokenFile?: string
  /** A name of the driver registry (drivers/index.ts), checked against the names given to loadConfig. */
  driver: string
  screen: { width: number, height: number, depth: number }
  logLevel: string
  allowUnauthenticated: boolean
  /** Origins whose web pages may call the server (CORS); every other Origin is refused. */
  allowOrigins: string[]
  /** Names besides loopback and the bound address that the server is reached by. */
  allowHosts: string[]
  /** Time allowed to receive a request's headers, and the whole request. */
  headersTimeoutMs: number
  requestTimeoutMs: number
  maxConnections: number
  holdTimeoutMs: number
  limits: Limits
  /**
   * launch_app's allow-list: name → argv (run without a shell). --desktop full starts from the
   * desktop's applications (DESKTOP_APPS); --allow-app adds names and overrides them.
   * Empty: launch_app refuses everything.
   */
  apps: Record<string, string[]>
  /** What launch_app's target means per app name; a name not here takes a path under the home. */
  appTargets: Record<string, TargetKind>
  /** minimal: jwm on the Xvfb the server starts (the default); full: an XFCE session with its applications. */
  desktop: DesktopKind
  /** The desktop's browser; chromium also serves its DevTools at /browser/cdp. */
  browser: BrowserKind
  /**
   * The desktop session's home directory (browser profile, documents; kept across restarts),
   * and the only place launch_app targets may point into. Unset: the server user's $HOME.
   */
  home?: string
  /** Applications opened whenever the desktop (re)starts, in order. */
  autostart: Autostart[]
  /** How long launch_app waits for the application's first window. */
  launchTimeoutMs: number
  /** A settled screenshot's quiet window and cap when a request names none. */
  settle: { quietMs: number, maxMs: number }
  /** How long a shutdown may take before the process exits anyway. */
  shutdownGraceMs: number
  /** The screen size MCP clients see when a call declares none; undefined: the real screen. */
  mcpDisplay?: { width: number, height: number }
  /** The live view's browser may send mouse and keyboard input (otherwise it only watches). */
  liveControl: boolean
  /** --human-webhook: POSTed when an agent asks for a person (docs/takeover.md). */
  humanWebhook?: string
  /** --record: episodes named by X-Recording-Id are stored (README "Recordings"); undefined: off. */
  recording?: { dir: string, maxBytes: number, maxAgeMs: number, idleMs: number, minFreeBytes: number, maxActive: number, maxPerMinute: number, fps: number, screenshots: boolean }
  /** /files: uploads, downloads, listings and deletions under the home directory. Off by default. */
  files: boolean
  /** Largest file one upload may write, and most bytes the uploads still present may hold together. */
  maxFileSize: number
  maxFilesTotal: number
  /** get_clipboard / set_clipboard. Off by default. */
  clipboard: boolean
  /** run_command and bash (--shell) with their bounds; undefined: off. */
  shell?: ShellLimits
  /** Most bytes get_clipboard reads and set_clipboard sets. */
  maxClipboardBytes: number
  /** --osworld: OSWorld's guest protocol on its own port (docs/osworld.md); undefined: off. */
  osworld?: { port: number }
  help: boolean
}

interface Flag {
  env: string
  help: string
  default?: string
  boolean?: boolean
  /** Repeatable; the environment variable holds the whole list. */
  multiple?: boolean
}

/** Every flag with its environment variable: the one list `--help`, the parser and the deploy manifests' tests read. */
export const FLAGS = {
  host: { env: 'HOST', default: '127.0.0.1', help: 'address to listen on' },
  port: { env: 'PORT', default: '8000', help: 'port to listen on' },
  token: {
    env: 'API_TOKEN',
    help: "API token; required by every route but GET /health when set. '-' reads it from stdin. A value given here is on the command line, " +
      'where every local user can read it: prefer --token-file, API_TOKEN or --token -',
  },
  'token-file': { env: 'API_TOKEN_FILE', help: 'a file holding the API token (read once at start, surrounding blanks dropped); refused if every user may read it' },
  driver: { env: 'DRIVER', default: 'nut', help: 'desktop driver' },
  screen: { env: 'SCREEN', default: '1280x800x24', help: 'size of the Xvfb started when DISPLAY is unset (WxHxDEPTH)' },
  'log-level': { env: 'LOG_LEVEL', default: 'info', help: 'fatal | error | warn | info | debug | trace | silent' },
  'allow-unauthenticated': { env: 'ALLOW_UNAUTHENTICATED', boolean: true, help: 'allow a non-loopback host without a token' },
  'allow-origin': {
    env: 'ALLOW_ORIGINS',
    multiple: true,
    help: 'an origin (scheme://host[:port]) whose web pages may call this server, e.g. http://localhost:3000 (repeatable; ALLOW_ORIGINS: a comma list). Any other Origin is refused',
  },
  'allow-host': {
    env: 'ALLOW_HOSTS',
    multiple: true,
    help: 'a host name the server is reached by, besides loopback and the address it listens on (repeatable; ALLOW_HOSTS: a comma list)',
  },
  'headers-timeout': { env: 'HEADERS_TIMEOUT', default: '10', help: 'seconds a client has to send its request headers (else 408)' },
  'request-timeout': { env: 'REQUEST_TIMEOUT', default: '30', help: 'seconds a client has to send its whole request, headers and body (else 408); time the server spends on the action does not count' },
  'max-connections': { env: 'MAX_CONNECTIONS', default: '256', help: 'most open connections; more are closed at once' },
  'hold-timeout': { env: 'HOLD_TIMEOUT', default: '120', help: 'seconds of inactivity after which held keys and buttons are released' },
  'max-wait': { env: 'MAX_WAIT', default: String(DEFAULT_LIMITS.maxWaitSeconds), help: 'longest wait, seconds' },
  'max-key-hold': { env: 'MAX_KEY_HOLD', default: String(DEFAULT_LIMITS.maxKeyHoldSeconds), help: 'longest press_key duration, seconds' },
  'max-text': { env: 'MAX_TEXT', default: String(DEFAULT_LIMITS.maxTextLength), help: 'longest type_text, characters' },
  'max-path': { env: 'MAX_PATH', default: String(DEFAULT_LIMITS.maxPathPoints), help: 'most points in a drag path' },
  'max-clicks': { env: 'MAX_CLICKS', default: String(DEFAULT_LIMITS.maxClicks), help: 'most clicks in one click_mouse' },
  'max-combo': { env: 'MAX_COMBO', default: String(DEFAULT_LIMITS.maxComboKeys), help: 'most keys in one combo' },
  'max-batch': { env: 'MAX_BATCH', default: String(DEFAULT_LIMITS.maxBatchActions), help: 'most actions in one batch' },
  'max-body-bytes': { env: 'MAX_BODY_BYTES', default: String(DEFAULT_LIMITS.maxBodyBytes), help: 'largest request body, bytes' },
  'max-scroll-notches': { env: 'MAX_SCROLL_NOTCHES', default: String(DEFAULT_LIMITS.maxScrollNotches), help: 'most wheel notches one scroll turns, per axis' },
  'max-display-size': { env: 'MAX_DISPLAY_SIZE', default: String(DEFAULT_LIMITS.maxDisplaySide), help: 'largest display_width_px / display_height_px a request may declare, pixels' },
  'max-batch-seconds': { env: 'MAX_BATCH_SECONDS', default: String(DEFAULT_LIMITS.maxBatchSeconds), help: "longest a batch's waits and key holds may take together, seconds" },
  'allow-app': {
    env: 'ALLOW_APPS',
    multiple: true,
    help: "an application launch_app may start, as 'name=command arg …' (repeatable; no shell: quotes group words, nothing else is interpreted). " +
      'ALLOW_APPS holds them all: a JSON object {"name": ["command", "arg", …]} or \'name=command arg …;name2=…\'',
  },
  desktop: {
    env: 'DESKTOP',
    default: 'minimal',
    help: 'the desktop on the Xvfb the server starts: minimal (a window manager only) | full (an XFCE session: panel, menu, wallpaper, and the applications launch_app knows by name: ' +
      `${Object.keys(DESKTOP_APPS).join(', ')}; install them with npm run setup)`,
  },
  browser: {
    env: 'DESKTOP_BROWSER',
    default: 'firefox',
    help: `the desktop's web browser: ${BROWSER_KINDS.join(' | ')}. chromium is launch_app's browser and the full desktop's default, and its DevTools ` +
      'are served with the token at /browser/cdp (Playwright connectOverCDP, Puppeteer connect) from a pipe only the server holds',
  },
  home: { env: 'DESKTOP_HOME', help: "the desktop session's home directory, kept across restarts (browser profile, documents); launch_app targets and /files (--files) must lie under it. Default: $HOME (but --files needs it named)" },
  autostart: {
    env: 'AUTOSTART',
    multiple: true,
    help: 'an application opened whenever the desktop (re)starts, as NAME or NAME=target (e.g. browser=https://example.com) (repeatable; AUTOSTART: a comma list)',
  },
  'launch-timeout': { env: 'LAUNCH_TIMEOUT', default: '30', help: 'seconds launch_app waits for the application\'s first window (an office suite on a busy host takes tens of seconds)' },
  'settle-quiet-ms': { env: 'SETTLE_QUIET_MS', default: String(DEFAULT_SETTLE.quietMs), help: 'a settled screenshot waits until the screen has not changed for this long, ms (a request may say settle_quiet_ms)' },
  'settle-max-ms': { env: 'SETTLE_MAX_MS', default: String(DEFAULT_SETTLE.maxMs), help: 'the longest a settled screenshot waits for the screen to stop changing, ms (a request may say settle_max_ms)' },
  'shutdown-grace': { env: 'SHUTDOWN_GRACE', default: '10', help: 'seconds a shutdown (SIGTERM, SIGINT) may take before the server exits anyway; what it started is ended within it' },
  'mcp-display-size': {
    env: 'MCP_DISPLAY_SIZE',
    help: 'the screen size MCP clients see unless a call declares its own (WIDTHxHEIGHT, e.g. 1024x640): their coordinates are in it and screenshots are scaled to it. Default: the real screen',
  },
  'live-control': { env: 'LIVE_CONTROL', boolean: true, help: 'let the live view (GET /live) take the desktop over ("Take over") and send mouse and keyboard input while it holds it; without it the live view only watches' },
  'human-webhook': { env: 'HUMAN_WEBHOOK', help: 'an http(s) URL POSTed {desktop, message, since} when an agent asks for a person (request_human); fire and forget, 5 s deadline' },
  record: { env: 'RECORD', boolean: true, help: 'record episodes: a request with X-Recording-Id: <name> is stored with its screenshots and the desktop\'s video (GET /recordings)' },
  'record-dir': { env: 'RECORD_DIR', default: 'recordings', help: 'where recordings are kept (created if missing)' },
  'record-max-mb': { env: 'RECORD_MAX_MB', default: '2048', help: 'the most all recordings may take together, MB; the oldest are dropped first' },
  'record-max-age': { env: 'RECORD_MAX_AGE', default: '168', help: 'hours a finished recording is kept' },
  'record-idle': { env: 'RECORD_IDLE', default: '300', help: 'seconds without a request after which a recording ends' },
  'record-min-free-mb': { env: 'RECORD_MIN_FREE_MB', default: '256', help: 'a new recording is refused (507) while the disk of --record-dir has less free, MB' },
  'record-max-active': { env: 'RECORD_MAX_ACTIVE', default: '4', help: 'most episodes recording at once (each runs a video encoder); a new one beyond is refused with 429' },
  'record-max-per-minute': { env: 'RECORD_MAX_PER_MINUTE', default: '10', help: 'most new episodes one client address may start in a minute; beyond, 429 with Retry-After' },
  'record-fps': { env: 'RECORD_FPS', default: '5', help: 'frames a second of a recording\'s video; 0: no video' },
  'record-screenshots': { env: 'RECORD_SCREENSHOTS', boolean: true, help: 'also take a screenshot after each recorded action, for the recording only (costs a screenshot per action; the client\'s answers are unchanged)' },
  files: { env: 'FILES', boolean: true, help: 'serve /files: upload, download, list and delete files under the home directory, which --home must name (off by default)' },
  'max-file-size': { env: 'MAX_FILE_SIZE', default: String(100 * 1024 * 1024), help: 'largest file one upload to /files may write, bytes' },
  'max-files-total': { env: 'MAX_FILES_TOTAL', default: String(1024 * 1024 * 1024), help: 'most bytes the files under the home directory may hold together: an upload that would pass it is refused (413). Counted from the disk at start and again before any refusal' },
  clipboard: { env: 'CLIPBOARD', boolean: true, help: 'allow the get_clipboard and set_clipboard actions (off by default)' },
  'max-clipboard-bytes': { env: 'MAX_CLIPBOARD_BYTES', default: String(10 * 1024 * 1024), help: 'most bytes get_clipboard reads and set_clipboard sets' },
  shell: { env: 'SHELL_TOOL', boolean: true, help: "allow the run_command and bash actions: commands as the desktop's user (never root) in --home, which must be named, on its display, without the server's secrets (off by default)" },
  'shell-timeout': { env: 'SHELL_TIMEOUT', default: String(DEFAULT_SHELL_LIMITS.timeoutMs / 1000), help: 'seconds a command may run when the call names no timeout; then it and everything it started are killed' },
  'shell-max-timeout': { env: 'SHELL_MAX_TIMEOUT', default: String(DEFAULT_SHELL_LIMITS.maxTimeoutMs / 1000), help: 'the longest timeout a call may name, seconds' },
  'shell-max-output': { env: 'SHELL_MAX_OUTPUT', default: String(DEFAULT_SHELL_LIMITS.maxOutputBytes), help: "bytes kept of each of a command's stdout and stderr; the rest is counted and dropped, and the answer says it was truncated" },
  'shell-max-processes': { env: 'SHELL_MAX_PROCESSES', default: String(DEFAULT_SHELL_LIMITS.maxProcesses), help: "processes (threads) a command may add to the desktop user's (RLIMIT_NPROC): a fork bomb stops there" },
  'shell-max-sessions': { env: 'SHELL_MAX_SESSIONS', default: String(DEFAULT_SHELL_LIMITS.maxSessions), help: 'persistent bash sessions open at once' },
  osworld: { env: 'OSWORLD', boolean: true, help: "serve OSWorld's guest protocol (desktop_env's controllers: pyautogui code, files under --home, which it needs) on --osworld-port, on the same address and token (off by default)" },
  'osworld-port': { env: 'OSWORLD_PORT', default: '5000', help: "the guest protocol's port (5000: desktop_env's default)" },
  help: { env: '', boolean: true, help: 'print this help' },
} satisfies Record<string, Flag>

type FlagName = keyof typeof FLAGS

/**
 * What the configuration is checked against that src/ does not own: the driver names are the
 * registry's (drivers/index.ts), which server.ts passes in, since src/ imports nothing from drivers/.
 */
export interface ConfigContext {
  /** The names --driver takes; without them any name passes here (openDesktop refuses an unknown one). */
  drivers?: readonly string[]
  /** How `--token -` reads stdin, and whether it may (not under `mcp`). */
  token?: TokenContext
}

export function usage (context: ConfigContext = {}): string {
  const rows = Object.entries(FLAGS).map(([name, flag]: [string, Flag]) => {
    const value = flag.boolean ? '' : flag.multiple ? ' <value> (repeatable)' : ' <value>'
    const env = flag.env ? ` [env ${flag.env}]` : ''
    const fallback = flag.default ? ` (default ${flag.default})` : ''
    const choices = name === 'driver' && context.drivers?.length ? `: ${context.drivers.join(' | ')}` : ''
    return `  --${name}${value}\n      ${flag.help}${choices}${fallback}${env}`
  })
  return 'Usage: computer-gateway [options]\n       computer-gateway mcp [options]\n\n' +
    'Serves POST /computer (and MCP at /mcp) onto an X11 desktop; starts its own Xvfb when DISPLAY is unset.\n' +
    '`mcp` speaks MCP over stdin/stdout instead of listening (logs go to stderr).\n\n' +
    `Options:\n${rows.join('\n')}\n`
}

export const unknownDriver = (name: string, drivers: readonly string[]) => `--driver must be one of ${drivers.join(', ')} (got '${name}')`

/** Shortest token accepted when the server listens beyond loopback. */
export const MIN_TOKEN_LENGTH = 16

/** A repeatable flag's values (which win), else its environment variable as a comma list. */
function list (flags: unknown, env: string | undefined): string[] {
  if (Array.isArray(flags) && flags.length > 0) return flags.map(String)
  return (env ?? '').split(',').map((part) => part.trim()).filter(Boolean)
}

function positiveInteger (name: string, value: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number <= 0) throw new InvalidConfig(`--${name} must be a positive integer (got '${value}')`)
  return number
}

function positiveNumber (name: string, value: string): number {
  const number = Number(value)
  if (!Number.isFinite(number) || number <= 0) throw new InvalidConfig(`--${name} must be a positive number (got '${value}')`)
  return number
}

function nonNegativeNumber (name: string, value: string): number {
  const number = Number(value)
  if (!Number.isFinite(number) || number < 0 || value.trim() === '') throw new InvalidConfig(`--${name} must be a number, 0 or more (got '${value}')`)
  return number
}

export function parseScreen (value: string): Config['screen'] {
  const match = /^(\d+)x(\d+)(?:x(\d+))?$/.exec(value)
  if (!match) throw new InvalidConfig(`--screen must look like 1280x800x24 (got '${value}')`)
  const [width, height, depth] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 24)]
  if (width < 64 || height < 64 || width > 16384 || height > 16384) throw new InvalidConfig(`--screen ${value}: width and height must be 64..16384`)
  if (![8, 16, 24].includes(depth)) throw new InvalidConfig(`--screen ${value}: depth must be 8, 16 or 24`)
  return { width, height, depth }
}

/** --mcp-display-size: WIDTHxHEIGHT within --max-display-size, as a call's own declared size must be. */
function parseDisplaySize (value: string, maxSide: number): { width: number, height: number } {
  const match = /^(\d+)x(\d+)$/.exec(value.trim())
  const [width, height] = match ? [Number(match[1]), Number(match[2])] : [0, 0]
  if (!match || width < 1 || height < 1 || width > maxSide || height > maxSide) {
    throw new InvalidConfig(`--mcp-display-size must look like 1024x640, each side 1..${maxSide} (--max-display-size) (got '${value}')`)
  }
  return { width, height }
}

export function loadConfig (argv: string[], env: NodeJS.ProcessEnv, context: ConfigContext = {}): Config {
  let values: Record<string, string | boolean | Array<string | boolean> | undefined>
  try {
    const options = Object.fromEntries(Object.entries(FLAGS).map(([name, flag]: [string, Flag]) =>
      [name, { type: flag.boolean ? 'boolean' as const : 'string' as const, ...(flag.multiple && { multiple: true }) }]))
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values
  } catch (error) {
    throw new InvalidConfig(`${(error as Error).message}\n\n${usage(context)}`)
  }
  const get = (name: FlagName): string | undefined => {
    const flag: Flag = FLAGS[name]
    const value = values[name] ?? (flag.env ? env[flag.env] : undefined) ?? flag.default
    return typeof value === 'boolean' || Array.isArray(value) ? String(value) : value
  }
  const on = (name: FlagName) => ['1', 'true', 'yes'].includes((get(name) ?? '').toLowerCase())

  const driver = get('driver')!
  if (context.drivers && !context.drivers.includes(driver)) throw new InvalidConfig(unknownDriver(driver, context.drivers))
  const port = Number(get('port'))
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidConfig(`--port must be 0..65535 (got '${get('port')}')`)
  const { token, source: tokenSource, file: tokenFile } = readToken({ flag: values.token as string | undefined, fileFlag: values['token-file'] as string | undefined, env }, context.token)
  const config: Config = {
    host: get('host')!,
    port,
    ...(token && { token, tokenSource, ...(tokenFile !== undefined && { tokenFile }) }),
    driver,
    screen: parseScreen(get('screen')!),
    logLevel: get('log-level')!,
    allowUnauthenticated: on('allow-unauthenticated'),
    allowOrigins: list(values['allow-origin'], env.ALLOW_ORIGINS).map((value) => normalizeOrigin(value, '--allow-origin')),
    allowHosts: list(values['allow-host'], env.ALLOW_HOSTS).map((value) => normalizeHostName(value, '--allow-host')),
    headersTimeoutMs: Math.round(positiveNumber('headers-timeout', get('headers-timeout')!) * 1000),
    requestTimeoutMs: Math.round(positiveNumber('request-timeout', get('request-timeout')!) * 1000),
    maxConnections: positiveInteger('max-connections', get('max-connections')!),
    holdTimeoutMs: Math.round(positiveNumber('hold-timeout', get('hold-timeout')!) * 1000),
    limits: {
      maxWaitSeconds: positiveNumber('max-wait', get('max-wait')!),
      maxKeyHoldSeconds: positiveNumber('max-key-hold', get('max-key-hold')!),
      maxTextLength: positiveInteger('max-text', get('max-text')!),
      maxPathPoints: positiveInteger('max-path', get('max-path')!),
      maxClicks: positiveInteger('max-clicks', get('max-clicks')!),
      maxComboKeys: positiveInteger('max-combo', get('max-combo')!),
      maxBatchActions: positiveInteger('max-batch', get('max-batch')!),
      maxBodyBytes: positiveInteger('max-body-bytes', get('max-body-bytes')!),
      maxScrollNotches: positiveInteger('max-scroll-notches', get('max-scroll-notches')!),
      maxDisplaySide: positiveInteger('max-display-size', get('max-display-size')!),
      maxBatchSeconds: positiveNumber('max-batch-seconds', get('max-batch-seconds')!),
    },
    browser: browserKind(get('browser')!),
    ...desktopApps(get('desktop')!, browserKind(get('browser')!), allowedApps(values['allow-app'] as string[] | undefined, env.ALLOW_APPS)),
    launchTimeoutMs: Math.round(positiveNumber('launch-timeout', get('launch-timeout')!) * 1000),
    settle: { quietMs: positiveInteger('settle-quiet-ms', get('settle-quiet-ms')!), maxMs: positiveInteger('settle-max-ms', get('settle-max-ms')!) },
    shutdownGraceMs: Math.round(positiveNumber('shutdown-grace', get('shutdown-grace')!) * 1000),
    liveControl: on('live-control'),
    ...(get('human-webhook') !== undefined && { humanWebhook: webhookUrl(get('human-webhook')!) }),
    files: on('files'),
    maxFileSize: positiveInteger('max-file-size', get('max-file-size')!),
    maxFilesTotal: positiveInteger('max-files-total', get('max-files-total')!),
    clipboard: on('clipboard'),
    maxClipboardBytes: positiveInteger('max-clipboard-bytes', get('max-clipboard-bytes')!),
    ...(on('shell') && {
      shell: {
        timeoutMs: Math.round(positiveNumber('shell-timeout', get('shell-timeout')!) * 1000),
        maxTimeoutMs: Math.round(positiveNumber('shell-max-timeout', get('shell-max-timeout')!) * 1000),
        maxOutputBytes: positiveInteger('shell-max-output', get('shell-max-output')!),
        maxProcesses: positiveInteger('shell-max-processes', get('shell-max-processes')!),
        maxSessions: positiveInteger('shell-max-sessions', get('shell-max-sessions')!),
      },
    }),
    help: on('help'),
    autostart: [],
  }
  if (on('record')) {
    const fps = Number(get('record-fps'))
    if (!Number.isFinite(fps) || fps < 0 || fps > 30) throw new InvalidConfig(`--record-fps must be 0..30 (got '${get('record-fps')}')`)
    const dir = get('record-dir')!
    if (!dir.trim()) throw new InvalidConfig('--record-dir must name a directory')
    config.recording = {
      dir,
      maxBytes: Math.round(positiveNumber('record-max-mb', get('record-max-mb')!) * 1024 * 1024),
      maxAgeMs: Math.round(positiveNumber('record-max-age', get('record-max-age')!) * 3600_000),
      idleMs: Math.round(positiveNumber('record-idle', get('record-idle')!) * 1000),
      minFreeBytes: Math.round(nonNegativeNumber('record-min-free-mb', get('record-min-free-mb')!) * 1024 * 1024),
      maxActive: positiveInteger('record-max-active', get('record-max-active')!),
      maxPerMinute: positiveInteger('record-max-per-minute', get('record-max-per-minute')!),
      fps,
      screenshots: on('record-screenshots'),
    }
  }
  if (on('osworld')) {
    const guestPort = Number(get('osworld-port'))
    if (!Number.isInteger(guestPort) || guestPort < 0 || guestPort > 65535) throw new InvalidConfig(`--osworld-port must be 0..65535 (got '${get('osworld-port')}')`)
    if (guestPort !== 0 && guestPort === port) throw new InvalidConfig(`--osworld-port (${guestPort}) must differ from --port: the guest protocol's paths are fixed at the root`)
    if (!get('home')) throw new InvalidConfig("--osworld needs --home (env DESKTOP_HOME): the directory its files are read from and written to; the server's own $HOME is never served by default")
    config.osworld = { port: guestPort }
  }
  const home = get('home') || env.HOME
  if (home) config.home = resolve(home)
  // $HOME is the server's own user's (for root, /root and its .ssh): never served unless named.
  if (config.files && !get('home')) {
    throw new InvalidConfig("--files needs --home (env DESKTOP_HOME): the directory /files serves; the server's own $HOME is never served by default")
  }
  if (config.shell && !get('home')) {
    throw new InvalidConfig("--shell needs --home (env DESKTOP_HOME): the desktop's home, whose owner the commands run as and where they start")
  }
  if (config.shell && config.shell.maxTimeoutMs > MAX_TIMEOUT_SECONDS * 1000) {
    throw new InvalidConfig(`--shell-max-timeout must be at most ${MAX_TIMEOUT_SECONDS} s (got ${config.shell.maxTimeoutMs / 1000})`)
  }
  if (config.shell && config.shell.timeoutMs > config.shell.maxTimeoutMs) {
    throw new InvalidConfig(`--shell-timeout (${config.shell.timeoutMs / 1000} s) is over --shell-max-timeout (${config.shell.maxTimeoutMs / 1000} s)`)
  }
  config.autostart = list(values.autostart, env.AUTOSTART).map((text) => autostartEntry(text, config))
  if (config.settle.maxMs < config.settle.quietMs) {
    throw new InvalidConfig(`--settle-max-ms (${config.settle.maxMs}) must not be below --settle-quiet-ms (${config.settle.quietMs}): the screen could never count as settled`)
  }
  const mcpDisplay = get('mcp-display-size')
  if (mcpDisplay) config.mcpDisplay = parseDisplaySize(mcpDisplay, config.limits.maxDisplaySide)
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new InvalidConfig(`--headers-timeout (${config.headersTimeoutMs / 1000} s) must not exceed --request-timeout (${config.requestTimeoutMs / 1000} s): the headers are part of the request`)
  }
  checkListenToken(config.host, config.token, config.allowUnauthenticated, 'drive this desktop')
  return config
}

/**
 * Refuses a token too short, or none, on an address beyond loopback (the server's and the
 * fleet's rule). `what` says what a stranger could then do.
 */
export function checkListenToken (host: string, token: string | undefined, allowUnauthenticated: boolean, what: string): void {
  // On loopback only this machine can guess; beyond it, anyone who reaches the port can.
  if (!isLoopbackAddress(host) && token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new InvalidConfig(
      `refusing to listen on ${host} with a ${token.length}-character token: anyone who reaches the port can try to guess it. ` +
      `Use at least ${MIN_TOKEN_LENGTH} random characters (e.g. openssl rand -hex 32) in API_TOKEN (or --token-file).`)
  }
  if (!isLoopbackAddress(host) && !token && !allowUnauthenticated) {
    throw new InvalidConfig(
      `refusing to listen on ${host} without a token: anyone who reaches it could ${what}. ` +
      'Set API_TOKEN (or --token-file), or pass --allow-unauthenticated if the network is yours alone.')
  }
}

const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/** --desktop: full starts launch_app's list from the desktop's applications; the operator's own entries win. */
function browserKind (value: string): BrowserKind {
  if (!(BROWSER_KINDS as readonly string[]).includes(value)) throw new InvalidConfig(`--browser must be one of ${BROWSER_KINDS.join(', ')} (got '${value}')`)
  return value as BrowserKind
}

function desktopApps (kind: string, browser: BrowserKind, allowed: Record<string, string[]>): { desktop: DesktopKind, apps: Record<string, string[]>, appTargets: Record<string, TargetKind> } {
  if (!(DESKTOP_KINDS as readonly string[]).includes(kind)) throw new InvalidConfig(`--desktop must be one of ${DESKTOP_KINDS.join(', ')} (got '${kind}')`)
  const desktop = kind as DesktopKind
  if (desktop === 'minimal') return { desktop, apps: allowed, appTargets: {} }
  const apps: Record<string, string[]> = {}
  const appTargets: Record<string, TargetKind> = {}
  for (const [name, listed] of Object.entries(DESKTOP_APPS)) {
    const app = name === 'browser' ? BROWSER_APPS[browser] : listed
    apps[name] = [...app.argv]
    appTargets[name] = app.target
  }
  for (const [name, argv] of Object.entries(allowed)) {
    apps[name] = argv
    // An override is the operator's program: its target is a path appended, like any allowed app's.
    delete appTargets[name]
  }
  return { desktop, apps, appTargets }
}

/** --autostart NAME[=target]: NAME must be one launch_app knows; the target is checked when it opens, as launch_app's is. */
function autostartEntry (text: string, { apps, appTargets, home }: Pick<Config, 'apps' | 'appTargets' | 'home'>): Autostart {
  const at = text.indexOf('=')
  const app = (at < 0 ? text : text.slice(0, at)).trim()
  const target = at < 0 ? undefined : text.slice(at + 1).trim()
  if (!Object.hasOwn(apps, app)) {
    const names = Object.keys(apps)
    throw new InvalidConfig(`--autostart ${text}: '${app}' is not an application launch_app knows; ` +
      (names.length ? `known: ${names.join(', ')}` : 'none is (use --desktop full, or --allow-app)'))
  }
  if (target === '') throw new InvalidConfig(`--autostart ${text}: the target after '=' is empty`)
  if (target !== undefined) {
    try {
      launchTarget(app, appTargets[app] ?? 'path', target, home)
    } catch (error) {
      throw new InvalidConfig(`--autostart ${text}: ${(error as Error).message}`)
    }
  }
  return { app, ...(target !== undefined && { target }) }
}

/**
 * launch_app's allow-list, from the --allow-app flags (which win) or ALLOW_APPS. Commands
 * become argv here, once: launch_app never hands anything to a shell.
 */
export function allowedApps (flags: readonly string[] | undefined, env: string | undefined): Record<string, string[]> {
  const apps: Record<string, string[]> = {}
  const add = (name: string, argv: unknown, source: string) => {
    if (!APP_NAME.test(name)) throw new InvalidConfig(`${source}: app name '${name}' must be letters, digits, '.', '_' or '-'`)
    if (Object.hasOwn(apps, name)) throw new InvalidConfig(`${source}: app '${name}' is given twice`)
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((word) => typeof word === 'string' && word !== '')) {
      throw new InvalidConfig(`${source}: app '${name}' needs a command: a non-empty list of non-empty strings`)
    }
    apps[name] = [...argv]
  }
  const entry = (text: string, source: string) => {
    const at = text.indexOf('=')
    if (at < 0) throw new InvalidConfig(`${source}: '${text}' must look like name=command arg …`)
    add(text.slice(0, at).trim(), splitWords(text.slice(at + 1), source), source)
  }
  if (flags?.length) {
    for (const flag of flags) entry(flag, '--allow-app')
    return apps
  }
  const text = env?.trim()
  if (!text) return apps
  if (text.startsWith('{') || text.startsWith('[')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw new InvalidConfig(`ALLOW_APPS is not valid JSON: ${(error as Error).message}`)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidConfig('ALLOW_APPS must be a JSON object {"name": ["command", "arg", …]}')
    for (const [name, argv] of Object.entries(parsed)) add(name, argv, 'ALLOW_APPS')
    return apps
  }
  for (const part of text.split(';').map((p) => p.trim()).filter(Boolean)) entry(part, 'ALLOW_APPS')
  return apps
}

/** Words separated by blanks; single or double quotes group a word (no escapes, no expansion). */
export function splitWords (text: string, source: string): string[] {
  const words: string[] = []
  const pattern = /\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))/gy
  let word: string | undefined
  let match: RegExpExecArray | null
  let end = 0
  while ((match = pattern.exec(text)) !== null) {
    word = (word ?? '') + (match[1] ?? match[2] ?? match[3]!)
    end = pattern.lastIndex
    // A word ends where blanks follow (or the text does).
    if (end === text.length || /\s/.test(text[end]!)) { words.push(word); word = undefined }
  }
  if (text.slice(end).trim() !== '') throw new InvalidConfig(`${source}: unbalanced quote in '${text.trim()}'`)
  return words
}

/** --human-webhook: an absolute http(s) URL, else a configuration error naming the flag. */
function webhookUrl (value: string): string {
  let url: URL
  try { url = new URL(value) } catch { throw new InvalidConfig(`--human-webhook must be an absolute http(s) URL, not ${JSON.stringify(value)}`) }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidConfig(`--human-webhook must be an http(s) URL, not ${url.protocol}`)
  return url.href
}
