/**
 * deploy/kubernetes/fleet/: the fleet on Kubernetes. Every manifest validates against the
 * Kubernetes API schemas offline (as test/deploy-manifests.test.ts checks the desktops' own), the
 * Role grants exactly the verbs the Kubernetes backend uses (read from the requests it sends to
 * the API stand-in, not copied), and the Deployment's flags are ones the fleet takes.
 * Nothing here ran on a cluster.
 */
import t from 'tap'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy'
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role'
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding'
import { Service } from 'kubernetes-models/v1/Service'
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount'
import { FLEET_FLAGS, loadFleetConfig } from '../fleet/config.ts'
import { KubernetesBackend } from '../fleet/backends/kubernetes/kubernetes-backend.ts'
import { desktopPod } from '../fleet/backends/kubernetes/pod-spec.ts'
import { deployDir, kustomize, one, validateAll, type Models } from './helpers/kustomize.ts'
import { KubeApi, type Recorded } from './helpers/kube-api.ts'
import { startFleet, until } from './helpers/fleet.ts'

const MODELS: Models = {
  'v1/ServiceAccount': ServiceAccount,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
}
const FLEET_ENV = new Set(Object.values(FLEET_FLAGS).map((flag) => flag.env).filter(Boolean))

t.test('kubernetes/fleet: every manifest validates against the Kubernetes API schemas', async (t) => {
  const manifests = await kustomize(deployDir('kubernetes/fleet'))
  t.strictSame(manifests.map((m) => m.kind).sort(), ['Deployment', 'NetworkPolicy', 'Role', 'RoleBinding', 'Service', 'ServiceAccount'])
  validateAll(t, manifests, MODELS)
  for (const manifest of manifests) t.notOk(manifest.metadata.namespace, `${manifest.kind}: no namespace of its own (kubectl -n chooses it)`)
  const role = structuredClone(one(manifests, 'Role'))
  role.rules[0].verbs = 'create'
  t.throws(() => new Role(role as never).validate(), /verbs must be array/, 'the schemas are really applied')
})

/** What the backend asks of the API, as RBAC names it: resource and verb. */
function verbs (requests: Recorded[]): string[] {
  const names = new Set<string>()
  for (const r of requests) {
    const [, resource, name] = /^\/api\/v1\/namespaces\/[^/]+\/([^/]+)(?:\/(.+))?$/.exec(r.path) ?? []
    const verb = r.method === 'POST' ? 'create' : r.method === 'DELETE' ? 'delete' : r.method === 'PATCH' ? 'patch' : r.query.watch === 'true' ? 'watch' : name ? 'get' : 'list'
    names.add(`${resource} ${verb}`)
  }
  return [...names].sort()
}

t.test("the Role grants exactly what the backend uses, in the fleet's namespace alone", async (t) => {
  const server = await new KubeApi().start()
  t.teardown(() => server.close())
  const backend = new KubernetesBackend({ fleetId: 'rbac', image: 'i', cpus: 1, memoryBytes: 1 << 30, namespace: 'desktops', kubeConfig: server.kubeConfig(), watchRetryMs: 50 })
  // Every call of the contract: the start's check, create (and its wait), claim, list, inspect, the watch, remove.
  await backend.check()
  const stop = backend.watch(() => {})
  t.teardown(stop)
  await backend.create({ id: '0123456789abcdef', token: 't'.repeat(32), screen: { width: 1280, height: 800 }, desktop: 'full', autostart: [], browser: 'firefox', createdAt: 1 })
  await backend.claim('0123456789abcdef', { claimedAt: 2, expiresAt: 3, labels: {} })
  await backend.list()
  await backend.inspect('0123456789abcdef')
  await backend.remove('0123456789abcdef')
  await until(t, 'the watch is open', () => server.openWatches === 1)
  const used = verbs(server.requests)
  t.strictSame(used, ['pods create', 'pods delete', 'pods get', 'pods list', 'pods patch', 'pods watch', 'secrets create', 'secrets delete', 'secrets list'])

  const manifests = await kustomize(deployDir('kubernetes/fleet'))
  const role = one(manifests, 'Role')
  const granted = role.rules.flatMap((rule: { apiGroups: string[], resources: string[], verbs: string[] }) => {
    t.strictSame(rule.apiGroups, [''], 'the core API group only')
    return rule.resources.flatMap((resource) => rule.verbs.map((verb) => `${resource} ${verb}`))
  }).sort()
  t.strictSame(granted, used, 'no verb more, none less')
  const binding = one(manifests, 'RoleBinding')
  const account = one(manifests, 'ServiceAccount')
  t.strictSame(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name })
  t.strictSame(binding.subjects, [{ kind: 'ServiceAccount', name: account.metadata.name }])
  t.equal(one(manifests, 'Deployment').spec.template.spec.serviceAccountName, account.metadata.name)
})

t.test('the Deployment runs the fleet with flags it takes, hardened, probed on its public /health', async (t) => {
  const manifests = await kustomize(deployDir('kubernetes/fleet'))
  const deployment = one(manifests, 'Deployment')
  const pod = deployment.spec.template.spec
  const container = pod.containers[0]
  t.equal(deployment.spec.replicas, 1)
  t.strictSame(deployment.spec.strategy, { type: 'Recreate' }, 'two fleets never fill one pool at once')
  t.notOk(container.command, "the image's entrypoint (tini) stays PID 1")
  t.strictSame(container.args, ['bin/computer-gateway.js', 'fleet'])

  const env: Record<string, string> = {}
  for (const variable of container.env as Array<{ name: string, value?: string, valueFrom?: unknown }>) {
    t.ok(FLEET_ENV.has(variable.name), `${variable.name} is a flag of the fleet (fleet/config.ts)`)
    if (variable.value !== undefined) env[variable.name] = variable.value
  }
  t.strictSame(container.env.find((e: { name: string }) => e.name === 'API_TOKEN').valueFrom, { secretKeyRef: { name: 'computer-gateway-fleet', key: 'API_TOKEN' } }, 'the key comes from a Secret')
  const config = loadFleetConfig(container.args.slice(2), { ...env, API_TOKEN: 'k'.repeat(32) })
  t.match(config, { backend: 'kubernetes', host: '0.0.0.0', port: 8100, warm: 2, max: 8, onExit: 'leave' }, 'the fleet takes them')
  t.equal(config.namespace, undefined, "the namespace is the pod's own (the service account's)")
  t.strictSame(container.ports, [{ name: 'http', containerPort: config.port }])
  const service = one(manifests, 'Service')
  t.strictSame(service.spec.selector, deployment.spec.selector.matchLabels)
  t.match(deployment.spec.template.metadata, { labels: deployment.spec.selector.matchLabels })
  t.strictSame(service.spec.ports, [{ name: 'http', port: config.port, targetPort: 'http' }])

  const fleet = await startFleet(t)
  for (const probe of ['readinessProbe', 'livenessProbe']) {
    t.strictSame(container[probe].httpGet, { path: '/health', port: 'http' }, probe)
    t.equal((await fleet.app.inject({ method: 'GET', url: container[probe].httpGet.path })).statusCode, 200, `${probe}: the fleet's GET /health answers without the key`)
  }
  t.equal(pod.automountServiceAccountToken, true, "the fleet's credentials toward the API")
  t.match(pod.securityContext, { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } })
  t.strictSame(container.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } })
  t.ok(container.resources.requests.memory && container.resources.limits.memory, 'memory requested and limited')
})

t.test("the NetworkPolicy lets the fleet alone reach the desktops' pods, on their server's port", async (t) => {
  const manifests = await kustomize(deployDir('kubernetes/fleet'))
  const policy = one(manifests, 'NetworkPolicy')
  const desktop = desktopPod({ fleetId: 'k8s', image: 'i', cpus: 1, memoryBytes: 1 << 30, shell: false, port: 8000, startSeconds: 180 }, { id: '0123456789abcdef', token: 't', screen: { width: 1280, height: 800 }, desktop: 'full', autostart: [], browser: 'firefox', createdAt: 1 })
  t.match(desktop.metadata!.labels, policy.spec.podSelector.matchLabels, "it selects the backend's desktop pods")
  t.notOk(Object.keys(policy.spec.podSelector.matchLabels).some((key) => key.startsWith('computer-gateway.fleet')), 'whatever their fleet id')
  t.strictSame(policy.spec.policyTypes, ['Ingress'])
  t.strictSame(policy.spec.ingress, [{
    from: [{ podSelector: { matchLabels: one(manifests, 'Deployment').spec.selector.matchLabels } }],
    ports: [{ protocol: 'TCP', port: desktop.spec!.containers[0]!.ports![0]!.containerPort }],
  }])
})
