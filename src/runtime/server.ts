/**
 * The entry point: reads the configuration, brings up the desktop (its own Xvfb when DISPLAY
 * is unset), builds the app and listens. The only file that listens; it also owns shutdown:
 * held input released, driver closed, Xvfb stopped. `computer-gateway mcp` serves the same
 * app's MCP tools on stdin/stdout instead of listening, logging to stderr, and shuts down
 * when the client closes stdin.
 */
import { setTimeout as delay } from 'node:timers/promises'
import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { homedir } from 'node:os'
import { loadConfig, usage, type Config } from './config.ts'
import { loggerOptions } from './logger.ts'
import { publish } from './instances.ts'
import { forgetTokenEnv, hideTokenInTitle, TOKEN_IN_ARGV_WARNING } from './token.ts'
import { tokenInReach, tokenReachWarning } from '../shell/token-reach.ts'
import { DRIVER_NAMES, openDesktop, type Desktop } from '../../drivers/index.ts'
import { ffmpegVideo } from '../../drivers/x11/ffmpeg-video.ts'

/** How long requests in flight get to finish before the desktop is stopped under them (at most). */
const APP_CLOSE_MS = 2000
/** Then how long the app (its accessibility bus) gets to finish closing; what is left dies with us. */
const FINISH_MS = 3000

/** --home, else the server user's home: the desktop runs as that user. */
const desktopHome = (config: Config) => config.home ?? homedir()

async function main (): Promise<void> {
  const args = process.argv.slice(2)
  const stdio = args[0] === 'mcp'
  let config
  try {
    config = loadConfig(stdio ? args.slice(1) : args, process.env, { drivers: DRIVER_NAMES, token: { stdinIsProtocol: stdio } })
  } catch (error) {
    process.stderr.write(`computer-gateway: ${(error as Error).message}\n`)
    process.exit(2)
  } finally {
    // Before anything is started: every child inherits this environment.
    forgetTokenEnv()
  }
  if (config.tokenSource === 'argument') hideTokenInTitle(config.token!)
  if (config.help) {
    process.stdout.write(usage({ drivers: DRIVER_NAMES }))
    return
  }
  // Under stdio, stdout is the protocol's: every log line goes to stderr.
  // Written as each line is made, as pino() does by default: pino.destination()'s asynchronous
  // writes cost every request a hop through libuv's thread pool (three context switches).
  const log = pino(loggerOptions(config.logLevel), pino.destination({ dest: stdio ? 2 : 1, sync: true }))
  if (config.tokenSource === 'argument') log.warn(TOKEN_IN_ARGV_WARNING)
  if (config.shell && config.token) {
    const uid = process.getuid?.() ?? 0
    const reach = tokenInReach({ uid, tokenFile: config.tokenFile })
    if (reach.length) log.warn(tokenReachWarning(uid, reach))
  }
  const desktop = openDesktop(config.driver, {
    screen: config.screen,
    display: process.env.DISPLAY || undefined,
    log,
    liveControl: config.liveControl,
    ...(config.clipboard && { clipboard: { maxBytes: config.maxClipboardBytes } }),
    browser: config.browser,
    session: { kind: config.desktop, ...(config.home && { home: config.home }), autostart: config.autostart, apps: config.apps, appTargets: config.appTargets },
  })
  // The desktop's processes start while this one builds the app (the schemas' compilation is
  // most of a cold start); the app's onReady waits for this same start and reports its failure.
  desktop.driver.start().catch(() => {})
  // Loaded only now (Fastify, the schemas, sharp: most of the modules), so Xvfb is already
  // booting while they load.
  const { buildApp } = await import('../http/app.ts')
  const app = await buildApp({
    driver: desktop.driver,
    accessibility: desktop.accessibility,
    ...(desktop.live && { live: desktop.live }),
    ...(desktop.clipboard && { clipboard: desktop.clipboard }),
    ...(config.token && { token: config.token }),
    listenHost: config.host,
    allowOrigins: config.allowOrigins,
    allowHosts: config.allowHosts,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    maxConnections: config.maxConnections,
    limits: config.limits,
    holdTimeoutMs: config.holdTimeoutMs,
    apps: config.apps,
    launchTimeoutMs: config.launchTimeoutMs,
    launchRules: { targets: config.appTargets, home: config.home, maximized: config.desktop === 'full' },
    settle: config.settle,
    logger: log,
    desktop,
    ...(config.mcpDisplay && { mcpDisplay: config.mcpDisplay }),
    ...(config.humanWebhook && { humanWebhook: config.humanWebhook }),
    ...(config.recording && { recording: recordingOptions(config.recording, desktop) }),
    ...(config.shell && { shell: { home: desktopHome(config), limits: config.shell } }),
    ...(config.files && { files: { home: desktopHome(config), maxFileSize: config.maxFileSize, maxTotal: config.maxFilesTotal } }),
    browser: { kind: config.browser, ...(desktop.devtools && { devtools: desktop.devtools }) },
    ...(config.osworld && { osworld: { files: { home: desktopHome(config), maxFileSize: config.maxFileSize, maxTotal: config.maxFilesTotal }, ...(desktop.wallpaper && { wallpaper: desktop.wallpaper }) } }),
  })
  // --shutdown-grace is what close-with-grace allows before it exits anyway (children die with
  // us: setpriv); each stage below takes at most a quarter of it, so the desktop is always stopped.
  const stageMs = (ms: number) => Math.min(ms, config.shutdownGraceMs / 4)
  closeWithGrace({ delay: config.shutdownGraceMs, logger: log }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'shutting down after an error')
    else log.info({ signal }, 'shutting down')
    // Requests still running on a stuck desktop would hold app.close() past the grace period,
    // and the desktop (Xvfb, window manager, workers, bus) would outlive us: after a while the
    // desktop is stopped under them, which ends them with 503, and the app finishes closing.
    const closed = app.close().then(() => true, (error: unknown) => { log.error({ err: error }, 'closing the app failed'); return true })
    if (!await Promise.race([closed, delay(stageMs(APP_CLOSE_MS), false)])) {
      log.warn({ ms: stageMs(APP_CLOSE_MS) }, 'requests still running; stopping the desktop under them')
    }
    await desktop.stop()
    await Promise.race([closed, delay(stageMs(FINISH_MS))])
  })
  try {
    if (stdio) {
      await app.ready()
      // Loaded only here: a server that listens for HTTP loads the MCP SDK at its first /mcp POST.
      const { serveStdio } = await import('../mcp/stdio.ts')
      await serveStdio(app.mcpTools, log)
      // The client has gone: shut down as on a signal (held input released, desktop stopped).
      process.kill(process.pid, 'SIGTERM')
      return
    }
    await app.ready()
    // For `computer-gateway exec`: the desktop (and its cookie file) told to this user alone.
    // Before listening: whoever waits for the line that says so (a supervisor, a script, an
    // operator) finds the desktop already published. A failed listen exits, which unpublishes.
    if (desktop.display) {
      try {
        publish({ display: desktop.display, ...(process.env.XAUTHORITY && { xauthority: process.env.XAUTHORITY }) })
      } catch (error) {
        // Loud: a directory another user made is an attack on exec, and the operator has to act.
        log.error({ err: error }, `NOT published for computer-gateway exec, which will not find this desktop: ${(error as Error).message}`)
      }
    }
    await app.listen({ host: config.host, port: config.port })
    if (app.osworldGuest && config.osworld) await app.osworldGuest.listen({ host: config.host, port: config.osworld.port })
  } catch (error) {
    log.fatal({ err: error }, (error as Error).message)
    process.stderr.write(`computer-gateway: ${(error as Error).message}\n`)
    await app.close().catch(() => {})
    await desktop.stop()
    process.exit(1)
  }
}

/** The recorder's options: its video is ffmpeg on the desktop's display (an X desktop's: those with a live view), unless --record-fps is 0. */
function recordingOptions ({ fps, screenshots, ...store }: NonNullable<Config['recording']>, desktop: Desktop) {
  const video = fps > 0 && desktop.live !== undefined ? ffmpegVideo({ display: () => desktop.display, fps }) : undefined
  return { ...store, screenshots, ...(video && { video }) }
}

await main()
