/**
 * The entry point: reads the configuration, brings up the desktop (its own Xvfb when DISPLAY
 * is unset), builds the app and listens. The only file that listens; it also owns shutdown:
 * held input released, driver closed, Xvfb stopped.
 */
import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { buildApp } from './app.ts'
import { loadConfig, usage } from './config.ts'
import { loggerOptions } from './logger.ts'
import { DRIVER_NAMES, openDesktop } from '../drivers/index.ts'

async function main (): Promise<void> {
  let config
  try {
    config = loadConfig(process.argv.slice(2), process.env, { drivers: DRIVER_NAMES })
  } catch (error) {
    process.stderr.write(`computer-gateway: ${(error as Error).message}\n`)
    process.exit(2)
  }
  if (config.help) {
    process.stdout.write(usage({ drivers: DRIVER_NAMES }))
    return
  }
  const log = pino(loggerOptions(config.logLevel))
  const desktop = openDesktop(config.driver, { screen: config.screen, display: process.env.DISPLAY || undefined, log })
  const app = await buildApp({
    driver: desktop.driver,
    accessibility: desktop.accessibility,
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
    logger: log,
    desktop,
  })
  closeWithGrace({ delay: config.shutdownGraceMs, logger: log }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'shutting down after an error')
    else log.info({ signal }, 'shutting down')
    await app.close()
    await desktop.stop()
  })
  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    log.fatal({ err: error }, (error as Error).message)
    process.stderr.write(`computer-gateway: ${(error as Error).message}\n`)
    await app.close().catch(() => {})
    await desktop.stop()
    process.exit(1)
  }
}

await main()
