/**
 * The fleet's Kubernetes backend (fleet/backends/kubernetes/) through the real
 * @kubernetes/client-node, against the API server stand-in of test/helpers/kube-api.ts (no
 * Kubernetes API server runs here): the whole requests it sends (the pod with its security
 * context, probes, limits, labels and the token from its Secret; the Secret owned by the pod; the
 * claim's conditional patch; deletes; the watch), how it reads each answer (created, pending then
 * running, 404, 409, a watch stream's events, a watch that ends), and the fleet's own lifecycle
 * over it: create, forward, pause's 501, a pod that fails, adoption by another fleet, end.
 */
import t, { type Test } from 'tap'
import { createServer, type Server } from 'node:http'
import { execFile } from 'node:child_process'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { V1Pod } from '@kubernetes/client-node'
import { AlreadyClaimed, CannotPause, type ClaimFacts, type DesktopFacts } from '../fleet/backends/backend.ts'
import { KubernetesBackend } from '../fleet/backends/kubernetes/kubernetes-backend.ts'
import { podInstance } from '../fleet/backends/kubernetes/pod-spec.ts'
import { loadKubeConfig, namespaceOf } from '../fleet/backends/kubernetes/kube-config.ts'
import { buildFleetApp } from '../fleet/app.ts'
import { Fleet } from '../fleet/fleet.ts'
import { healthReady } from '../fleet/probe.ts'
import { API_TOKEN, fill, fixture, fixtureLines, KubeApi, type Recorded } from './helpers/kube-api.ts'
import { until } from './helpers/fleet.ts'
import { freePort } from './helpers/net.ts'

const ID = '0123456789abcdef'
const NAME = `cg-fleet-kt-${ID}`
const SELECTOR = 'computer-gateway.fleet=kt,computer-gateway.fleet.kind=desktop'
const FACTS: DesktopFacts = { id: ID, token: 'desktop-token-0123456789abcdef01', screen: { width: 1280, height: 800 }, desktop: 'full', autostart: [{ app: 'browser', target: 'https://example.com/' }], browser: 'chromium', createdAt: Date.UTC(2026, 10, 28, 12) }
const CLAIM: ClaimFacts = { claimedAt: Date.UTC(2026, 10, 28, 12, 1), expiresAt: Date.UTC(2026, 10, 28, 13, 1), labels: { agent: 'a-1' } }

async function api (t: Test): Promise<KubeApi> {
  const server = await new KubeApi().start()
  t.teardown(() => server.close())
  return server
}

function backendOn (server: KubeApi, options: { fleetId?: string, shell?: boolean, port?: number } = {}) {
  return new KubernetesBackend({ fleetId: options.fleetId ?? 'kt', image: 'registry.example/computer-gateway:0.1.0', cpus: 1.5, memoryBytes: 2048 * 1024 * 1024, shell: options.shell ?? false, namespace: 'desktops', kubeConfig: server.kubeConfig(), watchRetryMs: 50, createTimeoutMs: 10_000, ...(options.port && { port: options.port }) })
}

/** A request as the test reads it: the method, the path with its query, and the body when there is one. */
const line = (r: Recorded) => `${r.method} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query)}` : ''}`

/** The fields of FACTS and CLAIM the request fixtures name. */
const FIELDS = { name: NAME, id: ID, fleet: 'kt', token: FACTS.token, createdAt: String(FACTS.createdAt), claimedAt: String(CLAIM.claimedAt), expiresAt: String(CLAIM.expiresAt) }

t.test('create sends the hardened pod and its owned Secret whole, and waits from Pending to Running', async (t) => {
  const server = await api(t)
  const backend = backendOn(server, { shell: true })
  const instance = await backend.create(FACTS, CLAIM)
  t.strictSame(instance, { facts: FACTS, claim: CLAIM, state: 'running', url: 'http://10.244.1.7:8000' }, 'reached at its pod IP, with its facts, token and claim read back')
  t.strictSame(server.requests.map(line), [
    'POST /api/v1/namespaces/desktops/pods',
    'POST /api/v1/namespaces/desktops/secrets',
    `GET /api/v1/namespaces/desktops/pods?labelSelector=${encodeURIComponent(`${SELECTOR},computer-gateway.fleet.desktop=${ID}`)}`,
    `GET /api/v1/namespaces/desktops/secrets?labelSelector=${encodeURIComponent(`${SELECTOR},computer-gateway.fleet.desktop=${ID}`)}`,
    `GET /api/v1/namespaces/desktops/pods?labelSelector=${encodeURIComponent(`${SELECTOR},computer-gateway.fleet.desktop=${ID}`)}`,
    `GET /api/v1/namespaces/desktops/secrets?labelSelector=${encodeURIComponent(`${SELECTOR},computer-gateway.fleet.desktop=${ID}`)}`,
  ], 'the pod, its Secret, then the pod read Pending (no address yet) and again Running')
  t.strictSame(server.requests[0]!.body, fill(fixture('desktop-pod-request.json'), FIELDS), 'the pod: labels, annotations, security context, probes, limits, env with the token from the Secret')
  t.strictSame(server.requests[1]!.body, fill(fixture('desktop-secret-request.json'), FIELDS), 'the Secret: the token alone, owned by the pod')
  t.ok(server.requests.every((r) => r.authorization === `Bearer ${API_TOKEN}`), "every request with the kubeconfig user's token")
  t.ok(server.requests.slice(0, 2).every((r) => r.contentType === 'application/json'), 'creates are JSON')
  t.notOk(JSON.stringify(server.requests[0]!.body).includes(FACTS.token), 'the token is nowhere in the pod')
})

t.test('the desktop image is the default port unless told; without --shell no SHELL_TOOL', async (t) => {
  const server = await api(t)
  await backendOn(server, { port: 8123 }).create({ ...FACTS, autostart: [] })
  const container = server.requests[0]!.body.spec.containers[0]
  t.strictSame(container.env.map((e: { name: string }) => e.name), ['API_TOKEN', 'PORT', 'HOST', 'FILES', 'CLIPBOARD', 'DESKTOP_HOME', 'SCREEN', 'DESKTOP', 'DESKTOP_BROWSER'])
  t.strictSame(container.env[1], { name: 'PORT', value: '8123' })
  t.strictSame(container.ports, [{ name: 'http', containerPort: 8123, protocol: 'TCP' }])
  t.strictSame(server.requests[0]!.body.metadata.annotations, { 'computer-gateway.fleet.screen': '1280x800', 'computer-gateway.fleet.created-at': String(FACTS.createdAt), 'computer-gateway.fleet.profile': 'full', 'computer-gateway.fleet.autostart': '[]', 'computer-gateway.fleet.browser': 'chromium' }, 'no claim: no claim annotations')
})

t.test('a create the API refuses', async (t) => {
  t.test('409 AlreadyExists on the pod: rejected, and nothing of the other pod is touched', async (t) => {
    const server = await api(t)
    await backendOn(server).create(FACTS)
    server.requests.length = 0
    await t.rejects(backendOn(server).create(FACTS), { code: 409, reason: 'AlreadyExists', message: `the Kubernetes API refused to create desktop ${ID}'s pod: 409 AlreadyExists: pods "${NAME}" already exists` })
    t.strictSame(server.requests.map(line), ['POST /api/v1/namespaces/desktops/pods'])
  })
  t.test('the Secret refused (403): the pod is deleted again, the create rejected', async (t) => {
    const server = await api(t)
    const forbidden = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'secrets is forbidden: User "system:serviceaccount:desktops:fleet" cannot create resource "secrets" in API group "" in the namespace "desktops"', reason: 'Forbidden', details: { kind: 'secrets' }, code: 403 }
    server.answer = (r) => r.method === 'POST' && r.path.endsWith('/secrets') ? { status: 403, body: forbidden } : undefined
    await t.rejects(backendOn(server).create(FACTS), { code: 403, reason: 'Forbidden', message: `the Kubernetes API refused to create desktop ${ID}'s Secret: 403 Forbidden: ${forbidden.message}` })
    t.strictSame(server.requests.map(line), [
      'POST /api/v1/namespaces/desktops/pods',
      'POST /api/v1/namespaces/desktops/secrets',
      `DELETE /api/v1/namespaces/desktops/pods/${NAME}`,
      `DELETE /api/v1/namespaces/desktops/secrets/${NAME}`,
    ], 'the pod deleted, the Secret (never made) a 404 taken as gone')
    t.equal(server.pods.size, 0)
  })
  t.test('the pod fails as it starts: removed, the create rejected', async (t) => {
    const server = await api(t)
    server.onRun = (pod) => server.setStatus(pod.metadata!.name!, fill(fixture('pod-status-failed.json'), { podIP: '10.244.1.7' }))
    await t.rejects(backendOn(server).create(FACTS), { message: `desktop ${ID}'s pod ended as it started` })
    t.equal(server.pods.size + server.secrets.size, 0, 'nothing left')
  })
  t.test('the pod never runs within the deadline: removed, the create rejected', async (t) => {
    const server = await api(t)
    server.answer = (r) => r.method === 'GET' && r.path.endsWith('/pods') && !r.query.watch
      ? { status: 200, body: { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [...server.pods.values()] } }
      : undefined
    const backend = new KubernetesBackend({ fleetId: 'kt', image: 'i', cpus: 1, memoryBytes: 1 << 30, namespace: 'desktops', kubeConfig: server.kubeConfig(), createTimeoutMs: 600 })
    await t.rejects(backend.create(FACTS), { message: `desktop ${ID}'s pod did not run within 0.6 s` })
    t.equal(server.pods.size + server.secrets.size, 0, 'nothing left')
  })
})

t.test('list and inspect: what any fleet replica with the same --fleet-id reads back', async (t) => {
  const server = await api(t)
  const first = backendOn(server)
  await first.create(FACTS, CLAIM)
  const other = { ...FACTS, id: 'fedcba9876543210', token: 'another-token-fedcba9876543210ab' }
  await first.create(other)
  await backendOn(server, { fleetId: 'someone-else' }).create({ ...FACTS, id: '1111111111111111' })
  server.requests.length = 0
  const replica = backendOn(server)
  t.strictSame(await replica.list(), [
    { facts: FACTS, claim: CLAIM, state: 'running', url: 'http://10.244.1.7:8000' },
    { facts: other, state: 'running', url: 'http://10.244.1.7:8000' },
  ], "this fleet's desktops only, tokens from their Secrets")
  t.strictSame(server.requests.map(line), [
    `GET /api/v1/namespaces/desktops/pods?labelSelector=${encodeURIComponent(SELECTOR)}`,
    `GET /api/v1/namespaces/desktops/secrets?labelSelector=${encodeURIComponent(SELECTOR)}`,
  ], 'by label selector')
  t.strictSame(await replica.inspect(other.id), { facts: other, state: 'running', url: 'http://10.244.1.7:8000' })
  t.equal(await replica.inspect('2222222222222222'), undefined, 'an unknown id')
  server.secrets.delete(`cg-fleet-kt-${other.id}`)
  server.requests.length = 0
  t.strictSame((await replica.list()).map((i) => i.facts.id), [ID], 'a pod whose Secret is missing is not one the fleet can serve')
  t.ok(server.pods.has(`cg-fleet-kt-${other.id}`), 'within a create\'s deadline (10 s here) its Secret may still come: the pod is left')
  t.equal(server.requests.length, 2, 'nothing but the two lists')
  const orphan = server.pods.get(`cg-fleet-kt-${other.id}`)!
  orphan.metadata!.creationTimestamp = new Date(Date.now() - 11_000).toISOString() as unknown as Date
  server.requests.length = 0
  t.strictSame((await replica.list()).map((i) => i.facts.id), [ID], 'past the deadline: still not served')
  t.strictSame(server.requests.map(line), [
    `GET /api/v1/namespaces/desktops/pods?labelSelector=${encodeURIComponent(SELECTOR)}`,
    `GET /api/v1/namespaces/desktops/secrets?labelSelector=${encodeURIComponent(SELECTOR)}`,
    `DELETE /api/v1/namespaces/desktops/pods/cg-fleet-kt-${other.id}`,
    `DELETE /api/v1/namespaces/desktops/secrets/cg-fleet-kt-${other.id}`,
  ], 'an abandoned create (its fleet died between the pod and its Secret) is removed, Secret and all')
  t.notOk(server.pods.has(`cg-fleet-kt-${other.id}`), 'the pod is gone')
  t.ok(server.pods.has(NAME), 'the served one is untouched')
})

t.test('a pod as the contract state', async (t) => {
  const running = fill(fixture('pod-status-running.json'), { podIP: '10.244.1.7' })
  const pod = (status: object, metadata: object = {}): V1Pod => ({ metadata: { labels: { 'computer-gateway.fleet.desktop': ID }, annotations: { 'computer-gateway.fleet.screen': '1280x800', 'computer-gateway.fleet.created-at': '1' }, ...metadata }, status })
  const facts = { id: ID, token: 't', screen: { width: 1280, height: 800 }, desktop: 'full', autostart: [], browser: 'firefox', createdAt: 1 }
  const cases: Array<[string, V1Pod, string | undefined, unknown]> = [
    ['Pending: starting, no address', pod({ phase: 'Pending' }), 't', { facts, state: 'running' }],
    ['Running: reached at its pod IP', pod(running), 't', { facts, state: 'running', url: 'http://10.244.1.7:8000' }],
    ['Running on IPv6: bracketed', pod({ ...running, podIP: 'fd00::7' }), 't', { facts, state: 'running', url: 'http://[fd00::7]:8000' }],
    ['Running, no IP yet', pod({ phase: 'Running' }), 't', { facts, state: 'running' }],
    ['Failed', pod(fill(fixture('pod-status-failed.json'), { podIP: '10.244.1.7' })), 't', { facts, state: 'exited' }],
    ['Succeeded (its server exited 0)', pod({ phase: 'Succeeded' }), 't', { facts, state: 'exited' }],
    ['Unknown (its node lost)', pod({ phase: 'Unknown' }), 't', { facts, state: 'exited' }],
    ['being deleted', pod(running, { deletionTimestamp: new Date('2026-11-28T12:06:00Z') }), 't', { facts, state: 'exited' }],
    ['no status yet', { metadata: pod({}).metadata! }, 't', { facts, state: 'running' }],
    ['its Secret missing: not served', pod(running), undefined, undefined],
    ['not written by the fleet (no annotations)', { metadata: { labels: { 'computer-gateway.fleet.desktop': ID } }, status: running }, 't', undefined],
  ]
  for (const [name, given, token, expected] of cases) t.strictSame(podInstance(given, token, 8000), expected, name)
})

t.test('claim: one merge patch conditioned on the resourceVersion read; write-once', async (t) => {
  const server = await api(t)
  const backend = backendOn(server)
  await backend.create(FACTS)
  server.requests.length = 0
  const version = server.pods.get(NAME)!.metadata!.resourceVersion
  await backend.claim(ID, CLAIM)
  t.strictSame(server.requests.map((r) => [line(r), r.contentType, r.body]), [
    [`GET /api/v1/namespaces/desktops/pods/${NAME}`, undefined, undefined],
    [`PATCH /api/v1/namespaces/desktops/pods/${NAME}`, 'application/merge-patch+json', { metadata: { resourceVersion: version, annotations: { 'computer-gateway.fleet.claimed-at': String(CLAIM.claimedAt), 'computer-gateway.fleet.expires-at': String(CLAIM.expiresAt), 'computer-gateway.fleet.labels': '{"agent":"a-1"}' } } }],
  ])
  t.strictSame((await backend.inspect(ID))?.claim, CLAIM, 'read back')
  server.requests.length = 0
  await t.rejects(backend.claim(ID, CLAIM), new AlreadyClaimed(ID), 'a second claim')
  t.strictSame(server.requests.map(line), [`GET /api/v1/namespaces/desktops/pods/${NAME}`], 'refused before any patch')
})

t.test('claim races another replica: 409 Conflict, then the pod read claimed, is AlreadyClaimed', async (t) => {
  const server = await api(t)
  const backend = backendOn(server)
  await backend.create(FACTS)
  const conflict = fill(fixture('status-conflict.json'), { kind: 'pods', name: NAME })
  server.answer = (r) => {
    if (r.method !== 'PATCH') return undefined
    // The other replica's claim lands between this one's read and patch.
    const pod = server.pods.get(NAME)!
    pod.metadata!.annotations = { ...pod.metadata!.annotations, 'computer-gateway.fleet.claimed-at': '5', 'computer-gateway.fleet.expires-at': '6', 'computer-gateway.fleet.labels': '{}' }
    return { status: 409, body: conflict }
  }
  await t.rejects(backend.claim(ID, CLAIM), new AlreadyClaimed(ID))
  t.test('a 409 Conflict whose change was not a claim is the error as it came', async (t) => {
    const server = await api(t)
    const backend = backendOn(server)
    await backend.create(FACTS)
    server.answer = (r) => r.method === 'PATCH' ? { status: 409, body: conflict } : undefined
    await t.rejects(backend.claim(ID, CLAIM), { code: 409, reason: 'Conflict', message: `the Kubernetes API refused to claim desktop ${ID}: 409 Conflict: Operation cannot be fulfilled on pods "${NAME}": the object has been modified; please apply your changes to the latest version and try again` })
  })
  t.test('a claim of a pod that is gone: the 404 as it came', async (t) => {
    const server = await api(t)
    await t.rejects(backendOn(server).claim(ID, CLAIM), { code: 404, reason: 'NotFound', message: `the Kubernetes API refused to read desktop ${ID}'s pod: 404 NotFound: pods "${NAME}" not found` })
  })
})

t.test('remove deletes the pod and its Secret; 404s are the outcome asked for; other errors are not', async (t) => {
  const server = await api(t)
  const backend = backendOn(server)
  await backend.create(FACTS)
  server.requests.length = 0
  await backend.remove(ID)
  t.strictSame(server.requests.map(line), [`DELETE /api/v1/namespaces/desktops/pods/${NAME}`, `DELETE /api/v1/namespaces/desktops/secrets/${NAME}`])
  t.equal(server.pods.size + server.secrets.size, 0)
  server.requests.length = 0
  await backend.remove(ID)
  t.strictSame(server.requests.map(line), [`DELETE /api/v1/namespaces/desktops/pods/${NAME}`, `DELETE /api/v1/namespaces/desktops/secrets/${NAME}`], 'again: both 404, resolved')
  const failure = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request timed out', code: 500 }
  server.answer = (r) => r.method === 'DELETE' ? { status: 500, body: failure } : undefined
  await t.rejects(backend.remove(ID), { code: 500, reason: undefined, message: `the Kubernetes API refused to delete desktop ${ID}'s pod: 500: etcdserver: request timed out` })
  // A proxy in front of the API answering with a page of its own: no Status to read.
  server.answer = (r) => r.method === 'DELETE' ? { status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' } : undefined
  await t.rejects(backend.remove(ID), { code: 502, reason: undefined, message: `the Kubernetes API refused to delete desktop ${ID}'s pod: 502: no Status in the answer` })
})

t.test('pause and resume: Kubernetes cannot freeze a pod; nothing is asked of the API', async (t) => {
  const server = await api(t)
  const backend = backendOn(server)
  await t.rejects(backend.pause(ID), new CannotPause(`Kubernetes cannot freeze a pod (desktop ${ID}): run the fleet with --backend docker to pause desktops`))
  await t.rejects(backend.unpause(ID), new CannotPause(`Kubernetes cannot freeze a pod (desktop ${ID}), so there is nothing to resume`))
  t.strictSame(server.requests, [])
})

t.test("watch: a recorded stream's Failed, deleting and DELETED pods are deaths; the watch opens again when it ends", async (t) => {
  const server = await api(t)
  const backend = backendOn(server)
  const deaths: string[] = []
  const stop = backend.watch((id) => deaths.push(id))
  let stopped = false
  t.teardown(() => { if (!stopped) stop() })
  await until(t, 'the watch is open', () => server.openWatches === 1)
  t.strictSame(server.requests.map(line), [`GET /api/v1/namespaces/desktops/pods?watch=true&labelSelector=${encodeURIComponent(SELECTOR)}`])
  server.sendWatchLines(fillLines({ name: NAME, namespace: 'desktops', uid: `uid-${NAME}`, fleet: 'kt', id: ID }))
  await until(t, 'three deaths heard', () => deaths.length === 3)
  t.strictSame(deaths, [ID, ID, ID], 'MODIFIED Failed, MODIFIED being deleted, DELETED; not ADDED Pending, MODIFIED Running nor the ERROR event')

  server.endWatches()
  await until(t, 'the watch opened again', () => server.openWatches === 1)
  t.equal(server.requests.filter((r) => r.query.watch === 'true').length, 2, 'one more watch request')
  // The stand-in's own pod events, on the new stream: a desktop created, then its node's Failed.
  await backend.create({ ...FACTS, id: 'fedcba9876543210' })
  t.strictSame(deaths, [ID, ID, ID], 'a create and its run are no death')
  server.setStatus('cg-fleet-kt-fedcba9876543210', fill(fixture('pod-status-failed.json'), { podIP: '10.244.1.7' }))
  await until(t, 'the failed pod heard', () => deaths.length === 4)
  t.equal(deaths[3], 'fedcba9876543210')

  stop()
  stopped = true
  await until(t, 'the watch is closed', () => server.openWatches === 0)
  const watches = server.requests.filter((r) => r.query.watch === 'true').length
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(server.requests.filter((r) => r.query.watch === 'true').length, watches, 'stopped: not opened again')
})

t.test('a watch the API refuses (403) is tried again, without a death reported', async (t) => {
  const server = await api(t)
  let refusals = 2
  server.answer = (r) => r.query.watch === 'true' && refusals-- > 0 ? { status: 403, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods is forbidden', reason: 'Forbidden', code: 403 } } : undefined
  const deaths: string[] = []
  const stop = backendOn(server).watch((id) => deaths.push(id))
  t.teardown(stop)
  await until(t, 'the third watch is open', () => server.openWatches === 1)
  t.equal(server.requests.filter((r) => r.query.watch === 'true').length, 3)
  t.strictSame(deaths, [])
})

function fillLines (fields: Record<string, string>) {
  return fixtureLines('watch-events.jsonl').map((event) => fill(event, fields))
}

t.test('credentials as kubectl finds them, and the namespace', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'))
  const saved = { KUBECONFIG: process.env.KUBECONFIG, KUBERNETES_SERVICE_HOST: process.env.KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT: process.env.KUBERNETES_SERVICE_PORT }
  t.teardown(async () => {
    for (const [key, value] of Object.entries(saved)) if (value === undefined) delete process.env[key]; else process.env[key] = value
    await rm(dir, { recursive: true, force: true })
  })
  const file = join(dir, 'config')
  const kubeconfig = (namespace?: string) => `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://10.0.0.1:6443\nusers:\n- name: u\n  user:\n    token: abc\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n${namespace ? `    namespace: ${namespace}\n` : ''}current-context: x\n`
  await writeFile(file, kubeconfig('team-a'), { mode: 0o600 })
  process.env.KUBECONFIG = file
  delete process.env.KUBERNETES_SERVICE_HOST
  const fromFile = loadKubeConfig({})
  t.equal(fromFile.getCurrentCluster()?.server, 'https://10.0.0.1:6443', 'KUBECONFIG read')
  t.equal(namespaceOf(fromFile), 'team-a', "the context's namespace")
  t.equal(namespaceOf(fromFile, 'desktops'), 'desktops', 'the flag over it')
  await writeFile(file, kubeconfig(), { mode: 0o600 })
  t.equal(namespaceOf(loadKubeConfig({})), 'default', 'none in the context: default')

  // In a cluster: the service account's files (under a root the test makes) and the service's address.
  const account = join(dir, 'var/run/secrets/kubernetes.io/serviceaccount')
  await mkdir(account, { recursive: true })
  await writeFile(join(account, 'token'), 'sa-token')
  await writeFile(join(account, 'ca.crt'), 'not used here')
  await writeFile(join(account, 'namespace'), 'cg-fleet')
  process.env.KUBERNETES_SERVICE_HOST = '10.96.0.1'
  process.env.KUBERNETES_SERVICE_PORT = '443'
  const inCluster = loadKubeConfig({ KUBERNETES_SERVICE_HOST: '10.96.0.1' }, dir)
  t.equal(inCluster.getCurrentCluster()?.server, 'https://10.96.0.1:443', 'the in-cluster service, not the kubeconfig')
  t.equal(namespaceOf(inCluster), 'cg-fleet', "the pod's own namespace")
})

/** A desktop's server in its pod, as the fleet reaches it: /health open, anything else with its token only. */
async function desktopServer (ip: string, port: number, token: string | undefined): Promise<Server> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      response.writeHead(request.url === '/health' || request.headers.authorization === `Bearer ${token}` ? 200 : 401, { 'content-type': 'application/json' })
      response.end(JSON.stringify(request.url === '/health' ? { ready: true } : { ip, method: request.method, url: request.url, body: Buffer.concat(chunks).toString('utf8') }))
    })
  })
  await new Promise<void>((resolve) => server.listen(port, ip, resolve))
  return server
}

t.test("the fleet's lifecycle over the Kubernetes backend", async (t) => {
  const server = await api(t)
  const port = await freePort()
  // Each pod its own loopback address, on the port its server listens on.
  let next = 2
  const ips = new Map<string, string>()
  server.ipFor = (pod) => { const ip = `127.0.0.${next++}`; ips.set(pod.metadata!.labels!['computer-gateway.fleet.desktop']!, ip); return ip }
  const desktops: Server[] = []
  const starting: Array<Promise<void>> = []
  server.onRun = (_pod, ip, token) => { starting.push(desktopServer(ip, port, token).then((s) => { desktops.push(s) })) }
  t.teardown(async () => {
    await Promise.all(starting)
    await Promise.all(desktops.map((s) => new Promise((resolve) => { s.closeAllConnections(); s.close(resolve) })))
  })
  const KEY = 'fleet-key-0123456789abcdef'
  const fleetOn = async () => {
    const fleet = new Fleet({ backend: backendOn(server, { port }), warm: 1, max: 3, screen: { width: 1280, height: 800 }, probe: healthReady, startTimeoutMs: 20_000, sweepMs: 3_600_000 })
    await fleet.start()
    const app = await buildFleetApp({ fleet, token: KEY })
    return { fleet, app, call: (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => app.inject({ method, url, headers: { authorization: `Bearer ${KEY}` }, ...(payload && { payload }) }) }
  }
  const first = await fleetOn()
  let firstClosed = false
  t.teardown(async () => { if (!firstClosed) { await first.app.close(); await first.fleet.close(false).catch(() => {}) } })

  await until(t, 'the warm desktop is ready', async () => (await first.call('GET', '/health')).json().warm.ready === 1, 15_000)
  const created = await first.call('POST', '/desktops', { ttl_seconds: 600, labels: { agent: 'k-1' } })
  t.equal(created.statusCode, 201)
  const desktop = created.json()
  t.match(desktop, { status: 'running', labels: { agent: 'k-1' }, url: `http://${ips.get(desktop.id)}:${port}` }, 'claimed from the pool, reached at its pod IP')
  const patch = server.requests.find((r) => r.method === 'PATCH')
  t.match(patch, { path: `/api/v1/namespaces/desktops/pods/cg-fleet-kt-${desktop.id}`, contentType: 'application/merge-patch+json', body: { metadata: { annotations: { 'computer-gateway.fleet.labels': '{"agent":"k-1"}' } } } }, 'the claim written to the pod')
  t.equal(server.secrets.get(`cg-fleet-kt-${desktop.id}`)?.data?.['api-token'], Buffer.from(desktop.token).toString('base64'), 'the token the client got is the Secret the pod reads')

  const forwarded = await first.call('POST', `/desktops/${desktop.id}/computer`, { action: 'take_screenshot' })
  t.strictSame([forwarded.statusCode, forwarded.json()], [200, { ip: ips.get(desktop.id), method: 'POST', url: '/computer', body: '{"action":"take_screenshot"}' }], "forwarded to the pod with the desktop's token (its server refuses any other)")

  const paused = await first.call('POST', `/desktops/${desktop.id}/pause`)
  t.strictSame([paused.statusCode, paused.json()], [501, {
    statusCode: 501,
    code: 'ERR_NOT_IMPLEMENTED',
    error: 'Not Implemented',
    message: `Kubernetes cannot freeze a pod (desktop ${desktop.id}): run the fleet with --backend docker to pause desktops`,
  }], 'pause: 501, saying why')
  t.equal((await first.call('GET', `/desktops/${desktop.id}`)).json().status, 'running', 'still running after the refused pause')
  const resumed = await first.call('POST', `/desktops/${desktop.id}/resume`)
  t.strictSame([resumed.statusCode, resumed.json().status], [200, 'running'], 'resume of a running desktop answers it as it is, as on every engine')
  t.notOk(server.requests.some((r) => r.method === 'PATCH' && r.path.endsWith(desktop.id) && r !== patch), 'nothing asked of the API')

  // A second fleet process with the same --fleet-id adopts both (the claimed one and the refilled pool's).
  await until(t, 'the pool refilled', async () => (await first.call('GET', '/health')).json().warm.ready === 1, 15_000)
  await first.app.close()
  await first.fleet.close(false)
  firstClosed = true
  const second = await fleetOn()
  t.teardown(async () => { await second.app.close(); await second.fleet.close(true).catch(() => {}) })
  const adopted = await second.call('GET', `/desktops/${desktop.id}`)
  t.match(adopted.json(), { id: desktop.id, token: desktop.token, labels: { agent: 'k-1' }, url: desktop.url }, 'the same desktop, token and claim')

  // The pod fails on its node: the watch reports it, the fleet ends it (pod and Secret) and says why.
  await until(t, "the second fleet's watch is open", () => server.openWatches === 1)
  server.requests.length = 0
  server.setStatus(`cg-fleet-kt-${desktop.id}`, fill(fixture('pod-status-failed.json'), { podIP: ips.get(desktop.id)! }))
  await until(t, 'the desktop is terminated', async () => (await second.call('GET', `/desktops/${desktop.id}`)).json().status === 'terminated')
  await until(t, 'its pod and Secret are deleted', () => !server.pods.has(`cg-fleet-kt-${desktop.id}`) && !server.secrets.has(`cg-fleet-kt-${desktop.id}`))
  t.match(server.requests.filter((r) => r.method === 'DELETE').map(line), [`DELETE /api/v1/namespaces/desktops/pods/cg-fleet-kt-${desktop.id}`, `DELETE /api/v1/namespaces/desktops/secrets/cg-fleet-kt-${desktop.id}`])
  const gone = await second.call('POST', `/desktops/${desktop.id}/computer`, { action: 'take_screenshot' })
  t.equal(gone.statusCode, 410, 'never served again')
})

t.test('`computer-gateway fleet --backend kubernetes` without the access it needs: exit 1, naming the API, the namespace and why', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const start = (kubeconfig: string, args: string[]) => new Promise<{ code: number | null, stdout: string }>((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig }
    delete env.KUBERNETES_SERVICE_HOST
    execFile(process.execPath, ['--import', 'tsx', 'fleet/main.ts', '--backend', 'kubernetes', '--port', '0', ...args], { cwd: new URL('..', import.meta.url).pathname, env, timeout: 60_000, killSignal: 'SIGKILL' },
      (error, stdout) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout }))
  })
  const fatal = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as { level: number, msg: string }

  const server = await api(t)
  const forbidden = 'pods is forbidden: User "system:serviceaccount:desktops:default" cannot list resource "pods" in API group "" in the namespace "team-b"'
  server.answer = () => ({ status: 403, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: forbidden, reason: 'Forbidden', details: { kind: 'pods' }, code: 403 } })
  const file = join(dir, 'config')
  await writeFile(file, server.kubeConfigYaml(), { mode: 0o600 })
  const refused = await start(file, ['--namespace', 'team-b'])
  t.equal(refused.code, 1)
  t.strictSame(fatal(refused.stdout), { ...fatal(refused.stdout), level: 60, msg: `the Kubernetes API (${server.url}, namespace team-b) cannot run desktops: the Kubernetes API refused to list pods in namespace team-b: 403 Forbidden: ${forbidden}` })
  t.match(server.requests[0], { method: 'GET', path: '/api/v1/namespaces/team-b/pods', authorization: `Bearer ${API_TOKEN}` }, 'the flag\'s namespace, with the kubeconfig\'s credentials')

  // Nothing listens where the kubeconfig points.
  const port = await freePort()
  await writeFile(file, server.kubeConfigYaml().replace(server.url, `https://127.0.0.1:${port}`), { mode: 0o600 })
  const nowhere = await start(file, [])
  t.equal(nowhere.code, 1)
  t.equal(fatal(nowhere.stdout).msg, `the Kubernetes API (https://127.0.0.1:${port}, namespace desktops) cannot run desktops: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`, "the context's namespace; the connection's failure")
})
