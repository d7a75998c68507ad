/**
 * deploy/: every Kubernetes manifest (the base and each overlay, rendered) validates against
 * the Kubernetes API schemas offline, and what the manifests, the compose file and the
 * Dockerfile say of the server — probe paths, ports, environment names, shutdown grace — is
 * read from the server itself (src/runtime/config.ts, the route table), not copied.
 */
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Service } from 'kubernetes-models/v1/Service'
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy'
import { FLAGS } from '../src/runtime/config.ts'
import { build } from './helpers/build.ts'
import { deployDir, kustomize, one, validateAll, type Models } from './helpers/kustomize.ts'

const MODELS: Models = {
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/StatefulSet': StatefulSet,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
}

const ENV_NAMES = new Set(Object.values(FLAGS).map((flag) => flag.env).filter(Boolean))
const PORT = Number(FLAGS.port.default)
const GRACE_S = Number(FLAGS['shutdown-grace'].default)
const OVERLAYS = ['base', 'overlays/fleet', 'overlays/full-hd']

/** The routes a probe may use: public (no token) GET routes that answer 200 on a ready desktop. */
async function probeAnswers (t: Parameters<typeof build>[0], path: string) {
  const { app } = await build(t, { token: 'a-token-of-32-characters-at-least' })
  const response = await app.inject({ method: 'GET', url: path })
  return response.statusCode
}

for (const overlay of OVERLAYS) {
  t.test(`kubernetes/${overlay}: every manifest validates against the Kubernetes API schemas`, async (t) => {
    const manifests = await kustomize(deployDir(`kubernetes/${overlay}`))
    t.strictSame(manifests.map((m) => m.kind).sort(), ['ConfigMap', 'NetworkPolicy', 'Service', 'StatefulSet'])
    validateAll(t, manifests, MODELS)
  })
}

t.test('the validation catches a broken manifest (the schemas are really applied)', async (t) => {
  const manifests = await kustomize(deployDir('kubernetes/base'))
  const statefulSet = structuredClone(one(manifests, 'StatefulSet'))
  statefulSet.spec.template.spec.containers[0].ports[0].containerPort = 'http'
  t.throws(() => new StatefulSet(statefulSet as never).validate(), /containerPort must be integer/)
})

t.test('the StatefulSet, its headless Service and the server agree', async (t) => {
  const manifests = await kustomize(deployDir('kubernetes/base'))
  const set = one(manifests, 'StatefulSet')
  const service = one(manifests, 'Service')
  const config = one(manifests, 'ConfigMap')
  const pod = set.spec.template.spec
  const container = pod.containers[0]

  t.equal(service.spec.clusterIP, 'None', 'headless: desktop-n.<service> names one pod')
  t.equal(set.spec.serviceName, service.metadata.name)
  t.strictSame(service.spec.selector, set.spec.selector.matchLabels)
  t.match(set.spec.template.metadata, { labels: set.spec.selector.matchLabels })
  t.strictSame(container.ports, [{ name: 'http', containerPort: PORT }])
  t.strictSame(service.spec.ports, [{ name: 'http', port: PORT, targetPort: 'http' }])

  // Every variable given to the container is one the server reads.
  const env = Object.fromEntries(container.env.map((e: { name: string, value?: string }) => [e.name, e.value]))
  for (const name of [...Object.keys(env), ...Object.keys(config.data)]) t.ok(ENV_NAMES.has(name), `${name} is read by src/runtime/config.ts`)
  t.equal(env[FLAGS.host.env], '0.0.0.0')
  t.equal(env[FLAGS.port.env], String(PORT))
  t.strictSame(container.env.find((e: { name: string }) => e.name === FLAGS.token.env).valueFrom,
    { secretKeyRef: { name: 'computer-gateway', key: FLAGS.token.env } }, 'the token comes from a Secret')
  t.strictSame(container.envFrom, [{ configMapRef: { name: config.metadata.name } }])

  // Probes on the truthful, public /health; liveness tolerates a desktop restart (seconds).
  for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
    t.strictSame(container[probe].httpGet, { path: '/health', port: 'http' }, probe)
    t.equal(await probeAnswers(t, container[probe].httpGet.path), 200, `${probe}: GET /health answers without the token`)
  }
  t.ok(container.livenessProbe.periodSeconds * container.livenessProbe.failureThreshold >= 60, 'liveness waits a minute or more')
  t.equal(container.readinessProbe.failureThreshold, 1, 'a restarting desktop leaves the endpoints at once')

  t.ok(pod.terminationGracePeriodSeconds > GRACE_S, `terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} > the server's ${GRACE_S} s grace`)
  t.match(pod.securityContext, { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } })
  t.strictSame(container.securityContext, {
    allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] },
  })
  const mounts = Object.fromEntries(container.volumeMounts.map((m: { name: string, mountPath: string }) => [m.mountPath, m.name]))
  t.equal(mounts['/tmp'], 'tmp', 'X writes its sockets and cookie under /tmp')
  t.equal(mounts['/home/node'], 'home', 'the home directory is a volume')
  const volumes = Object.fromEntries(pod.volumes.map((v: { name: string }) => [v.name, v]))
  t.equal(volumes[mounts['/dev/shm']]?.emptyDir?.medium, 'Memory', 'browsers get a memory-backed /dev/shm')
  for (const volume of pod.volumes) t.ok(volume.emptyDir, `${volume.name} is an emptyDir`)
  t.ok(container.resources.requests.memory && container.resources.limits.memory, 'memory requested and limited')
  t.equal(pod.automountServiceAccountToken, false)
})

t.test('the NetworkPolicy admits only the agents\' namespace, on the server\'s port', async (t) => {
  const manifests = await kustomize(deployDir('kubernetes/base'))
  const policy = one(manifests, 'NetworkPolicy')
  t.strictSame(policy.spec.podSelector, one(manifests, 'StatefulSet').spec.selector)
  t.strictSame(policy.spec.policyTypes, ['Ingress'])
  t.strictSame(policy.spec.ingress, [{
    from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'agents' } } }],
    ports: [{ protocol: 'TCP', port: PORT }],
  }])
})

t.test('overlays change the replicas and the screen size, and nothing else of the base', async (t) => {
  const base = await kustomize(deployDir('kubernetes/base'))
  const fleet = await kustomize(deployDir('kubernetes/overlays/fleet'))
  t.equal(one(fleet, 'StatefulSet').spec.replicas, 20)
  const fleetSet = structuredClone(one(fleet, 'StatefulSet'))
  fleetSet.spec.replicas = one(base, 'StatefulSet').spec.replicas
  t.strictSame(fleetSet, one(base, 'StatefulSet'))

  const hd = await kustomize(deployDir('kubernetes/overlays/full-hd'))
  t.equal(one(hd, 'ConfigMap').data[FLAGS.screen.env], '1920x1080x24')
  const { parseScreen } = await import('../src/runtime/config.ts')
  t.doesNotThrow(() => parseScreen(one(hd, 'ConfigMap').data[FLAGS.screen.env]), 'the server accepts the overlay\'s screen')
  t.doesNotThrow(() => parseScreen(one(base, 'ConfigMap').data[FLAGS.screen.env]), 'and the base\'s')
})

t.test('compose: N desktops, each on its own loopback port, token from an env file, health-checked', async (t) => {
  const compose = parse(await readFile(deployDir('compose.yaml'), 'utf8'), { merge: true })
  const services = Object.entries(compose.services) as Array<[string, Record<string, any>]>
  t.notOk(Object.hasOwn(compose, 'name'), 'no top-level name: Debian\'s docker-compose 1.29 refuses a file with one (-p names the project)')
  t.ok(services.length >= 2, 'more than one desktop')
  const hostPorts = new Set<string>()
  const homes = new Set<string>()
  for (const [name, service] of services) {
    t.equal(service.ports.length, 1, name)
    const [address, hostPort, containerPort] = service.ports[0].split(':')
    t.equal(address, '127.0.0.1', `${name} is published on loopback only`)
    t.equal(Number(containerPort), PORT)
    hostPorts.add(hostPort)
    t.equal(service.env_file, 'desktops.env', 'the token comes from an env file')
    for (const variable of Object.keys(service.environment)) t.ok(ENV_NAMES.has(variable), `${variable} is read by src/runtime/config.ts`)
    t.equal(service.environment[FLAGS.host.env], '0.0.0.0')
    t.equal(service.environment[FLAGS.port.env], String(PORT))
    t.strictSame(service.healthcheck.test, ['CMD', 'computer-gateway-healthcheck'], 'the image\'s own check, on PORT')
    t.equal(service.restart, 'unless-stopped')
    t.ok(Number.parseInt(service.stop_grace_period) > GRACE_S, 'stop_grace_period exceeds the server\'s shutdown grace')
    t.equal(service.read_only, true)
    t.strictSame(service.cap_drop, ['ALL'])
    t.ok(Number.parseInt(service.shm_size) >= 256, 'browsers get more shared memory than Docker\'s 64 MB')
    const home = service.volumes.find((v: string) => v.endsWith(':/home/node'))?.split(':')[0]
    t.ok(home && Object.hasOwn(compose.volumes, home), `${name}'s home is a named volume`)
    homes.add(home)
  }
  t.equal(hostPorts.size, services.length, 'each desktop on a port of its own')
  t.equal(homes.size, services.length, 'each desktop with a home of its own')
})
