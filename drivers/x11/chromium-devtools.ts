/**
 * The desktop's Chromium with its DevTools on a pipe (--remote-debugging-pipe): fd 3 and fd 4
 * of the browser process are pipes whose other ends only this server holds, so no other local
 * user, web page or desktop can reach the protocol (a --remote-debugging-port listens on TCP,
 * where every local user can connect, and has no authentication of its own).
 *
 * It starts without a window (--no-startup-window) when a client first needs it, or before
 * launch_app starts the browser: a second `chromium` on the same profile hands its window to
 * the running one and exits, so the browser the model sees is the one the pipe drives. It runs
 * in a process group of its own on the desktop's display, in the session's environment (its bus,
 * its home), at the launched applications' priority, and ends with the desktop (and with us:
 * setpriv). When it exits (Browser.close, X restarted) the next client starts it again.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { setTimeout as delay } from 'node:timers/promises'
import { framedPipe } from '../../src/browser/cdp-framing.ts'
import type { CdpPipe, DevtoolsSource } from '../../src/browser/source.ts'
import { BrowserUnavailable } from '../../src/errors/errors.ts'
import type { Log } from '../../src/runtime/logger.ts'
import { yieldToServer } from './app-priority.ts'
import { diesWithUs } from './orphan.ts'
import { signalGroup, stopChild, watchExit, type ChildExit } from '../stop-child.ts'

/** How long the browser has to answer its first call on the pipe (a cold start on a busy host). */
const START_TIMEOUT_MS = 30_000
const STOP_GRACE_MS = 3000

export interface ChromiumDevtoolsOptions {
  /** The desktop's display, once it runs. */
  display: () => string | undefined
  /** The profile lives in <home>/.config/chromium, where the desktop's own `chromium` looks. */
  home: string
  /** The session's environment (its bus, HOME, XDG dirs, the accessibility bus). */
  env: () => Promise<Record<string, string>>
  log: Log
  /** The browser's command (default chromium). */
  command?: string
}

/** The command lines of Chromium that a running one with the same profile answers for. */
export const CHROMIUM_COMMANDS = new Set(['chromium', 'chromium-browser', '/usr/bin/chromium', '/usr/bin/chromium-browser'])

interface Running {
  pid: number
  pipe: CdpPipe
  exited: Promise<ChildExit>
}

export class ChromiumDevtools implements DevtoolsSource {
  readonly #options: ChromiumDevtoolsOptions
  #running: Running | undefined
  #starting: Promise<Running> | undefined
  #closed = false
  #sandbox: string[] | undefined

  constructor (options: ChromiumDevtoolsOptions) {
    this.#options = options
  }

  /** The browser's PID while it runs. */
  get pid (): number | undefined { return this.#running?.pid }

  async pipe (): Promise<CdpPipe> {
    if (this.#closed) throw new BrowserUnavailable('the server is stopping')
    if (this.#running && !this.#running.pipe.closed) return this.#running.pipe
    this.#starting ??= this.#start().finally(() => { this.#starting = undefined })
    return (await this.#starting).pipe
  }

  /**
   * For launch_app (and --autostart): a Chromium command starts only once this browser runs,
   * and names its profile, so it hands its window over to it whatever HOME it has; other
   * commands pass unchanged.
   */
  async beforeLaunch (argv: readonly string[]): Promise<readonly string[]> {
    const [command, ...rest] = argv
    if (!CHROMIUM_COMMANDS.has(command!)) return argv
    await this.pipe()
    return [command!, ...this.#profileArgs(), ...rest]
  }

  /** The profile, and the sandbox's switch (the same for a command that hands over: Chromium checks it before it does). */
  #profileArgs (): string[] {
    this.#sandbox ??= sandboxArgs(this.#options.log)
    return [`--user-data-dir=${join(this.#options.home, '.config', 'chromium')}`, ...this.#sandbox]
  }

  async #start (): Promise<Running> {
    const display = this.#options.display()
    if (display === undefined) throw new BrowserUnavailable('the desktop is not running yet; try again in a moment')
    const command = this.#options.command ?? 'chromium'
    const args = [
      '--remote-debugging-pipe', '--no-startup-window', ...this.#profileArgs(),
      '--no-first-run', '--no-default-browser-check', '--password-store=basic', '--disable-dev-shm-usage',
    ]
    const env = { ...process.env, ...await this.#options.env(), DISPLAY: display }
    // Its working directory, as the full desktop's session makes it.
    mkdirSync(this.#options.home, { recursive: true })
    const child = spawn(...diesWithUs(command, args), { env, cwd: this.#options.home, detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] })
    if (child.pid !== undefined) yieldToServer(child.pid)
    const { exited, exit } = watchExit(child)
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve)
      child.once('error', (error) => reject(new BrowserUnavailable(`the browser could not be started (${command}): ${error.message}; install it with npm run setup -- --desktop`)))
    })
    const log = this.#options.log
    createInterface({ input: child.stderr! }).on('line', (line) => log.debug({ pid: child.pid, stderr: line }, 'browser output'))
    const pipe = framedPipe(child.stdio[3] as Writable, child.stdio[4] as Readable)
    const running: Running = { pid: child.pid!, pipe, exited }
    void exited.then(({ code, signal }) => {
      log.info({ pid: running.pid, code, signal }, 'browser exited')
      if (this.#running === running) this.#running = undefined
    })
    try {
      await firstAnswer(pipe, exit)
    } catch (error) {
      await stopChild({ signal: (name) => signalGroup(running.pid, name), exited }, STOP_GRACE_MS)
      throw error
    }
    log.info({ pid: running.pid, display }, 'browser started with its DevTools pipe')
    this.#running = running
    return running
  }

  async close (): Promise<void> {
    this.#closed = true
    await this.#starting?.catch(() => {})
    const running = this.#running
    if (running) await stopChild({ signal: (name) => signalGroup(running.pid, name), exited: running.exited }, STOP_GRACE_MS)
  }
}

/**
 * Chromium's sandbox needs user namespaces (Debian ships no setuid helper): as root it refuses
 * to start with it, and where none can be made (a container's default seccomp profile) it
 * aborts. There it runs without (--no-sandbox), said once at warn level: the desktop is the
 * agent's, and the browser then is as contained as the container is.
 */
function sandboxArgs (log: Log): string[] {
  if (process.getuid?.() === 0) {
    log.warn({}, 'Chromium runs without its sandbox: it refuses to start as root with it (run the server as another user to keep it)')
    return ['--no-sandbox']
  }
  const probe = spawnSync('unshare', ['--user', '--map-root-user', '--pid', '--net', '--fork', 'true'], { stdio: 'ignore', timeout: 5000 })
  if (probe.status === 0) return []
  log.warn({}, 'Chromium runs without its sandbox: this host lets no user namespace be made (a container\'s default seccomp profile, or kernel.unprivileged_userns_clone=0)')
  return ['--no-sandbox']
}

/**
 * Waits for the browser's answer to a first call. A Chromium that exits at once with code 0 has
 * handed over to another one running on the same profile, started without the pipe.
 */
async function firstAnswer (pipe: CdpPipe, exit: () => ChildExit | undefined): Promise<void> {
  // Id 0: the broker numbers its clients' calls from 1.
  const answered = new Promise<void>((resolve) => pipe.onMessage((text) => { if (text.startsWith('{"id":0,')) resolve() }))
  const closed = new Promise<string>((resolve) => pipe.onClose(resolve))
  pipe.send(JSON.stringify({ id: 0, method: 'Browser.getVersion' }))
  const timer = new AbortController()
  const timeout = delay(START_TIMEOUT_MS, 'timeout', { signal: timer.signal }).catch(() => 'timeout')
  const outcome = await Promise.race([answered.then(() => 'ok'), closed, timeout]).finally(() => timer.abort())
  if (outcome === 'ok') return
  if (outcome === 'timeout') throw new BrowserUnavailable(`the browser did not answer on its DevTools pipe within ${START_TIMEOUT_MS / 1000} s`)
  // The exit comes a moment after the pipe closes.
  for (let i = 0; i < 20 && exit() === undefined; i++) await delay(50)
  const code = exit()?.code
  throw new BrowserUnavailable(code === 0
    ? 'a Chromium the server did not start has the desktop\'s browser profile open (it was opened from the desktop\'s menu or panel before any DevTools client or launch_app): close its windows, then connect again'
    : `the browser exited before its DevTools pipe answered (${exit() ? `code ${code}, signal ${exit()!.signal}` : outcome}); its output is in the server log at debug level`)
}
