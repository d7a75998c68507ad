/**
 * A stand-in for the Kubernetes API server's core/v1 pods and secrets, for running the fleet's
 * Kubernetes backend (fleet/backends/kubernetes/) through the real @kubernetes/client-node. It
 * records every request (method, path, query, content type, credentials, body) and answers with
 * the API's documented shapes, kept as fixtures (test/fixtures/kubernetes/): the fields a create
 * adds, Status 404/409, watch streams of WatchEvent lines. It keeps the objects it was sent, so
 * lists, label selectors, merge patches with a resourceVersion (409 Conflict when stale) and
 * watches answer as the API server does.
 *
 * It speaks HTTPS with a certificate of its own for 127.0.0.1, made at start, which the
 * kubeconfig it hands out trusts as its cluster's CA (certificate-authority-data): the client
 * verifies it as it verifies a cluster's.
 *
 * The node is the test's: a created pod stays Pending until it has been read once Pending (the
 * backend's wait sees both), then runs with the IP `ipFor` gives it, or as a test sets it with
 * `setStatus` (Failed, …). `onRun` hears each pod that starts running, with the token its Secret
 * holds, as the kubelet would put it in the container's environment.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KubeConfig, type V1Pod, type V1Secret } from '@kubernetes/client-node'

export interface Recorded { method: string, path: string, query: Record<string, string>, contentType?: string, authorization?: string, body?: any }
/** An answer: JSON, or with `contentType` the body as it is (a proxy's page). */
export interface Answer { status: number, body: unknown, contentType?: string }

/** The bearer token the stand-in's kubeconfig carries, which every request must show. */
export const API_TOKEN = 'kube-api-test-token'

const FIXTURES = new URL('../fixtures/kubernetes/', import.meta.url)
export const fixture = (name: string): any => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'))
export const fixtureLines = (name: string): any[] => readFileSync(new URL(name, FIXTURES), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))

/** A fixture with its {{placeholders}} filled in. */
export function fill (value: any, fields: Record<string, string>): any {
  if (typeof value === 'string') return value.replace(/\{\{(\w+)\}\}/g, (_, key: string) => fields[key] ?? `{{${key}}}`)
  if (Array.isArray(value)) return value.map((item) => fill(item, fields))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, fields)]))
  return value
}

const matches = (labels: Record<string, string> | undefined, selector: string | undefined) =>
  !selector || selector.split(',').every((term) => { const [key, value] = term.split('='); return labels?.[key!] === value })

export class KubeApi {
  readonly requests: Recorded[] = []
  readonly pods = new Map<string, V1Pod>()
  readonly secrets = new Map<string, V1Secret>()
  /** Answers a request before the stand-in does, when it returns one (a test's injected 409, 500, …). */
  answer?: (request: Recorded) => Answer | undefined
  /** The API server's clock, which stamps each object it creates (creationTimestamp, to the second). */
  now: () => Date = () => new Date()
  /** The IP a pod gets when it runs. */
  ipFor: (pod: V1Pod) => string = () => '10.244.1.7'
  onRun?: (pod: V1Pod, ip: string, token: string | undefined) => void
  private readonly watches = new Set<{ response: ServerResponse, selector?: string }>()
  private readonly readsPending = new Map<string, number>()
  private version = 100
  private server?: Server
  private cert = ''
  url = ''

  async start (): Promise<this> {
    const dir = mkdtempSync(join(tmpdir(), 'kube-api-'))
    let key: string
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=kube-api-test',
        '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
      key = readFileSync(join(dir, 'key.pem'), 'utf8')
      this.cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    this.server = createServer({ key, cert: this.cert }, (request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => this.handle(request, response, Buffer.concat(chunks).toString('utf8')))
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  /** Credentials as a kubeconfig would hold them: this server, a bearer token, the context's namespace. */
  kubeConfig (namespace = 'desktops'): KubeConfig {
    const config = new KubeConfig()
    config.loadFromOptions({
      clusters: [{ name: 'test', server: this.url, caData: Buffer.from(this.cert).toString('base64'), skipTLSVerify: false }],
      users: [{ name: 'fleet', token: API_TOKEN }],
      contexts: [{ name: 'test', cluster: 'test', user: 'fleet', namespace }],
      currentContext: 'test',
    })
    return config
  }

  /** The same credentials as a kubeconfig file's text (KUBECONFIG), for a fleet started as a process. */
  kubeConfigYaml (namespace = 'desktops'): string {
    return ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: test', '  cluster:', `    server: ${this.url}`, `    certificate-authority-data: ${Buffer.from(this.cert).toString('base64')}`,
      'users:', '- name: fleet', '  user:', `    token: ${API_TOKEN}`, 'contexts:', '- name: test', '  context:', '    cluster: test', '    user: fleet', `    namespace: ${namespace}`, 'current-context: test', ''].join('\n')
  }

  /** Ends every open watch stream, as the API server does when a watch's time is up. */
  endWatches (): void {
    for (const watch of this.watches) watch.response.end()
    this.watches.clear()
  }

  get openWatches (): number {
    return this.watches.size
  }

  /** Writes raw WatchEvent lines to every open watch (a fixture's stream). */
  sendWatchLines (events: unknown[]): void {
    for (const watch of this.watches) for (const event of events) watch.response.write(`${JSON.stringify(event)}\n`)
  }

  /** The node's word on a pod: a status fixture, filled with the pod's IP. */
  setStatus (name: string, status: V1Pod['status']): void {
    const pod = this.pods.get(name)
    if (!pod) throw new Error(`no pod ${name}`)
    pod.status = status
    this.bump(pod)
    this.emit('MODIFIED', pod)
  }

  async close (): Promise<void> {
    this.endWatches()
    this.server?.closeAllConnections()
    await new Promise((resolve) => this.server?.close(resolve))
  }

  private bump (object: V1Pod | V1Secret) {
    object.metadata!.resourceVersion = String(++this.version)
  }

  private emit (type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: V1Pod) {
    for (const watch of this.watches) {
      if (matches(pod.metadata?.labels, watch.selector)) watch.response.write(`${JSON.stringify({ type, object: { kind: 'Pod', apiVersion: 'v1', ...pod } })}\n`)
    }
  }

  /** A Pending pod read once runs from its next read on, as a node would start it meanwhile. */
  private kubelet (pod: V1Pod): void {
    const name = pod.metadata!.name!
    if (pod.status?.phase !== 'Pending') return
    const reads = (this.readsPending.get(name) ?? 0) + 1
    this.readsPending.set(name, reads)
    if (reads < 2) return
    const ip = this.ipFor(pod)
    pod.status = fill(fixture('pod-status-running.json'), { podIP: ip })
    this.bump(pod)
    this.emit('MODIFIED', pod)
    const secret = this.secrets.get(name)
    const data = secret?.data?.['api-token']
    this.onRun?.(pod, ip, data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8'))
  }

  private handle (request: IncomingMessage, response: ServerResponse, text: string): void {
    const url = new URL(request.url ?? '/', 'http://api')
    const recorded: Recorded = {
      method: request.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(request.headers['content-type'] && { contentType: request.headers['content-type'] }),
      ...(request.headers.authorization && { authorization: request.headers.authorization }),
      ...(text && { body: JSON.parse(text) }),
    }
    this.requests.push(recorded)
    const send = ({ status, body, contentType }: Answer) => {
      response.writeHead(status, { 'content-type': contentType ?? 'application/json' })
      response.end(contentType ? String(body) : JSON.stringify(body))
    }
    if (recorded.authorization !== `Bearer ${API_TOKEN}`) { send({ status: 401, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 } }); return }
    const injected = this.answer?.(recorded)
    if (injected) { send(injected); return }
    const route = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|secrets)(?:\/([^/]+))?$/.exec(url.pathname)
    if (!route) { send({ status: 404, body: fill(fixture('status-not-found.json'), { kind: 'path', name: url.pathname }) }); return }
    const [, namespace, kind, name] = route as unknown as [string, string, 'pods' | 'secrets', string | undefined]
    const store: Map<string, V1Pod | V1Secret> = kind === 'pods' ? this.pods : this.secrets
    const notFound = (n: string): Answer => ({ status: 404, body: fill(fixture('status-not-found.json'), { kind, name: n }) })
    const { method } = recorded
    if (!name && method === 'GET' && recorded.query.watch === 'true') {
      response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })
      response.flushHeaders()
      const watch = { response, ...(recorded.query.labelSelector && { selector: recorded.query.labelSelector }) }
      this.watches.add(watch)
      response.on('close', () => this.watches.delete(watch))
      return
    }
    if (!name && method === 'GET') {
      const items = [...store.values()].filter((object) => object.metadata?.namespace === namespace && matches(object.metadata?.labels, recorded.query.labelSelector))
      for (const item of items) if (kind === 'pods') this.kubelet(item as V1Pod)
      send({ status: 200, body: { kind: kind === 'pods' ? 'PodList' : 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: String(this.version) }, items } })
      return
    }
    if (!name && method === 'POST') {
      const body = recorded.body as V1Pod & V1Secret
      const objectName = body.metadata!.name!
      if (store.has(objectName)) { send({ status: 409, body: fill(fixture('status-already-exists.json'), { kind, name: objectName }) }); return }
      const made = fill(fixture(kind === 'pods' ? 'pod-created.json' : 'secret-created.json'), { namespace, uid: `uid-${objectName}`, resourceVersion: String(++this.version), creationTimestamp: this.now().toISOString().replace(/\.\d+Z$/, 'Z') })
      const object = { ...body, ...made, metadata: { ...body.metadata, ...made.metadata }, ...(made.spec && { spec: { ...made.spec, ...body.spec } }) }
      if (kind === 'secrets') {
        // The API server keeps stringData as base64 data, and answers without it.
        const secret = object as V1Secret
        secret.data = Object.fromEntries(Object.entries(secret.stringData ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]))
        delete secret.stringData
      }
      store.set(objectName, object)
      if (kind === 'pods') this.emit('ADDED', object as V1Pod)
      send({ status: 201, body: object })
      return
    }
    const object = store.get(name!)
    if (!object) { send(notFound(name!)); return }
    if (method === 'GET') {
      if (kind === 'pods') this.kubelet(object as V1Pod)
      send({ status: 200, body: object })
    } else if (method === 'DELETE') {
      store.delete(name!)
      if (kind === 'pods') {
        this.emit('DELETED', object as V1Pod)
        send({ status: 200, body: object })
      } else {
        send({ status: 200, body: fill(fixture('status-deleted.json'), { kind, name: name!, uid: object.metadata!.uid! }) })
      }
    } else if (method === 'PATCH' && recorded.contentType === 'application/merge-patch+json') {
      const patch = recorded.body as V1Pod
      if (patch.metadata?.resourceVersion && patch.metadata.resourceVersion !== object.metadata?.resourceVersion) {
        send({ status: 409, body: fill(fixture('status-conflict.json'), { kind, name: name! }) })
        return
      }
      object.metadata!.annotations = { ...object.metadata!.annotations, ...patch.metadata?.annotations }
      this.bump(object)
      if (kind === 'pods') this.emit('MODIFIED', object as V1Pod)
      send({ status: 200, body: object })
    } else {
      send({ status: 405, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${method} is not served here`, reason: 'MethodNotAllowed', code: 405 } })
    }
  }
}
