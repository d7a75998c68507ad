/**
 * `computer-gateway fleet` (and `npm run fleet`): the only file of the fleet that listens and
 * owns shutdown. SIGTERM/SIGINT stop taking requests, then either leave every desktop running
 * for the next fleet of the same --fleet-id to adopt (--on-exit leave, the default) or remove
 * every one (--on-exit end), exiting non-zero if any could not be: never some of them silently.
 */
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { loggerOptions } from '../src/runtime/logger.ts'
import { forgetTokenEnv } from '../src/runtime/token.ts'
import { fleetUsage, loadFleetConfig } from './config.ts'
import { DockerBackend } from './backends/docker/docker-backend.ts'
import { SwarmBackend } from './backends/swarm/swarm-backend.ts'
import { KubernetesBackend } from './backends/kubernetes/kubernetes-backend.ts'
import { loadKubeConfig, namespaceOf } from './backends/kubernetes/kube-config.ts'
import { Fleet } from './fleet.ts'
import { buildFleetApp } from './app.ts'
import { healthReady } from './probe.ts'
import { warmUp } from './warm-up.ts'

const SWEEP_MS = 2000

let config
try {
  config = loadFleetConfig(process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === 'fleet')), process.env)
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(2)
}
if (config.help) {
  process.stdout.write(fleetUsage())
  process.exit(0)
}
const log = pino(loggerOptions(config.logLevel), pino.destination({ dest: 1, sync: true }))
// As the server does: the key leaves the environment (nothing the fleet starts inherits it).
forgetTokenEnv()
const engine = { fleetId: config.fleetId, image: config.image, cpus: config.cpus, memoryBytes: config.memoryBytes, pids: config.pids, shell: config.shell, osworld: config.osworld }
let backend: DockerBackend | SwarmBackend | KubernetesBackend
if (config.backend === 'kubernetes') {
  // Nodes pull the image themselves: what is checked is that the credentials reach this namespace.
  let where = 'the Kubernetes API'
  try {
    const kubeConfig = loadKubeConfig()
    const namespace = namespaceOf(kubeConfig, config.namespace)
    where = `the Kubernetes API (${kubeConfig.getCurrentCluster()?.server ?? 'no cluster in the kubeconfig'}, namespace ${namespace})`
    backend = new KubernetesBackend({ ...engine, kubeConfig, namespace, startSeconds: config.startTimeoutMs / 1000 })
    await backend.check()
  } catch (error) {
    log.fatal(`${where} cannot run desktops: ${(error as Error).message}`)
    process.exit(1)
  }
} else {
  backend = config.backend === 'swarm' ? new SwarmBackend(engine) : new DockerBackend(engine)
  try {
    await backend.docker.ping()
    if (backend instanceof SwarmBackend) await backend.check()
    await backend.docker.getImage(config.image).inspect()
  } catch (error) {
    log.fatal(`the Docker engine (${process.env.DOCKER_HOST ?? 'the local socket'}) cannot run ${config.image}: ${(error as Error).message}`)
    process.exit(1)
  }
}
const fleet = new Fleet({
  backend,
  warm: config.warm,
  max: config.max,
  screen: config.screen,
  desktop: config.desktop,
  browser: config.browser,
  probe: healthReady,
  warmUp,
  startTimeoutMs: config.startTimeoutMs,
  sweepMs: SWEEP_MS,
  log: (message, fields, level = 'info') => log[level](fields ?? {}, message),
})
await fleet.start()
const app = await buildFleetApp({ fleet, ...(config.token && { token: config.token }), listenHost: config.host, shell: config.shell, logger: log as FastifyBaseLogger })
await app.listen({ host: config.host, port: config.port })
log.info({ fleetId: config.fleetId, backend: config.backend, image: config.image, warm: config.warm, max: config.max, shell: config.shell, osworld: config.osworld, onExit: config.onExit }, 'fleet ready')

let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    log.info({ signal, onExit: config.onExit }, 'stopping')
    void (async () => {
      await app.close()
      await fleet.close(config.onExit === 'end')
      log.info(config.onExit === 'end' ? 'every desktop removed' : 'desktops left running for the next fleet')
      process.exit(0)
    })().catch((error: Error) => {
      log.error({ err: error }, 'the fleet did not stop cleanly')
      process.exit(1)
    })
  })
}
