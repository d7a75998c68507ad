/**
 * The fleet's engine on Kubernetes, through the official client (@kubernetes/client-node), in one
 * namespace. A desktop is a pod and a Secret holding its token (pod-spec.ts); both carry the
 * fleet's ownership labels, so any fleet process with the same --fleet-id adopts them.
 *
 * Reaching a desktop: the fleet forwards to its pod IP (http://POD_IP:8000), not to a Service of
 * its own. A per-desktop Service would add an object to create, delete and leak per desktop and a
 * kube-proxy hop to every request, for a name the fleet does not need: the fleet already learns
 * the pod's IP from the API, pod IPs are routable from every pod of the cluster (the fleet runs
 * as one, deploy/kubernetes/fleet/), and a desktop's IP lives exactly as long as the desktop.
 *
 * The claim: one merge patch of the pod's annotations carrying the resourceVersion read, which
 * the API server refuses (409) when the pod changed in between; a claim is so written once even
 * with two fleets adopting, as on Swarm.
 *
 * Death: a watch on the fleet's pods (the label selector); a pod seen Failed, Succeeded,
 * Unknown, being deleted or deleted is reported to the control plane. The watch is opened again
 * when its stream ends (the API server closes watches after a while; the client's own inactivity
 * timeout too); what died in between is found by the control plane's sweep.
 *
 * Pause: Kubernetes has no freezer for a pod (a pod's containers run or are gone): pause and
 * resume reject with CannotPause, which the fleet answers as a 501.
 */
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, Watch, type V1Pod } from '@kubernetes/client-node'
import type { Backend, ClaimFacts, DesktopFacts, Instance } from '../backend.ts'
import { AlreadyClaimed, CannotPause } from '../backend.ts'
import { claimLabels, LABEL, readClaim } from '../docker/labels.ts'
import { awaitAddress } from '../await-address.ts'
import { kube } from './api-error.ts'
import { desktopPod, objectName, podInstance, selector, TOKEN_KEY, tokenSecret, type PodOptions } from './pod-spec.ts'

export interface KubernetesBackendOptions {
  fleetId: string
  image: string
  cpus: number
  memoryBytes: number
  shell?: boolean
  /** Where the desktops are made: the fleet's --namespace. */
  namespace: string
  /** The API's address and credentials (kube-config.ts finds them as kubectl does). */
  kubeConfig: KubeConfig
  /** The port the desktop's server listens on in its pod (default 8000, the image's). */
  port?: number
  /** How long `create` waits for the pod to run and have an IP (default 180 s: a node may pull the image first). */
  createTimeoutMs?: number
  /** How long the kubelet lets a desktop's server take to answer /health at start (default 180 s). */
  startSeconds?: number
  /** How long `watch` waits before opening its stream again (default 1 s). */
  watchRetryMs?: number
}

const statusOf = (error: unknown) => (error as { code?: number }).code

/** 404: gone already, the outcome asked for. */
async function gone (call: () => Promise<unknown>): Promise<void> {
  try {
    await call()
  } catch (error) {
    if (statusOf(error) !== 404) throw error
  }
}

export class KubernetesBackend implements Backend {
  readonly api: CoreV1Api
  readonly namespace: string
  private readonly pod: PodOptions

  constructor (private readonly options: KubernetesBackendOptions) {
    this.api = options.kubeConfig.makeApiClient(CoreV1Api)
    this.namespace = options.namespace
    this.pod = { fleetId: options.fleetId, image: options.image, cpus: options.cpus, memoryBytes: options.memoryBytes, shell: options.shell ?? false, port: options.port ?? 8000, startSeconds: options.startSeconds ?? 180 }
  }

  private name (id: string) {
    return objectName(this.options.fleetId, id)
  }

  /** That the credentials may list pods and secrets here: the least the fleet needs to adopt. */
  async check (): Promise<void> {
    await kube(`list pods in namespace ${this.namespace}`, () => this.api.listNamespacedPod({ namespace: this.namespace, labelSelector: selector(this.options.fleetId), limit: 1 }))
    await kube(`list secrets in namespace ${this.namespace}`, () => this.api.listNamespacedSecret({ namespace: this.namespace, labelSelector: selector(this.options.fleetId), limit: 1 }))
  }

  async create (facts: DesktopFacts, claim?: ClaimFacts): Promise<Instance> {
    const namespace = this.namespace
    const pod = await kube(`create desktop ${facts.id}'s pod`, () => this.api.createNamespacedPod({ namespace, body: desktopPod(this.pod, facts, claim) }))
    try {
      // The pod first: its Secret names it as owner, by uid. Until the Secret exists the kubelet
      // holds the container (CreateContainerConfigError) and tries again.
      await kube(`create desktop ${facts.id}'s Secret`, () => this.api.createNamespacedSecret({ namespace, body: tokenSecret(this.pod, facts, { name: pod.metadata!.name!, uid: pod.metadata!.uid! }) }))
      return await awaitAddress(() => this.inspect(facts.id), facts.id, 'pod', this.options.createTimeoutMs ?? 180_000)
    } catch (error) {
      // A desktop that did not start leaves nothing behind.
      await this.remove(facts.id).catch(() => {})
      throw error
    }
  }

  async claim (id: string, claim: ClaimFacts): Promise<void> {
    const name = this.name(id)
    const current = await kube(`read desktop ${id}'s pod`, () => this.api.readNamespacedPod({ name, namespace: this.namespace }))
    if (readClaim({ ...current.metadata?.annotations })) throw new AlreadyClaimed(id)
    try {
      await kube(`claim desktop ${id}`, () => this.api.patchNamespacedPod(
        { name, namespace: this.namespace, body: { metadata: { resourceVersion: current.metadata?.resourceVersion, annotations: claimLabels(claim) } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch)))
    } catch (error) {
      if (statusOf(error) !== 409) throw error
      // Changed in between: if that was a claim, this one lost.
      const now = await kube(`read desktop ${id}'s pod`, () => this.api.readNamespacedPod({ name, namespace: this.namespace }))
      if (readClaim({ ...now.metadata?.annotations })) throw new AlreadyClaimed(id)
      throw error
    }
  }

  async inspect (id: string): Promise<Instance | undefined> {
    return (await this.list(id))[0]
  }

  async list (id?: string): Promise<Instance[]> {
    const labelSelector = selector(this.options.fleetId, id)
    const [pods, secrets] = await Promise.all([
      kube('list pods', () => this.api.listNamespacedPod({ namespace: this.namespace, labelSelector })),
      kube('list secrets', () => this.api.listNamespacedSecret({ namespace: this.namespace, labelSelector })),
    ])
    const tokens = new Map(secrets.items.map((secret) => {
      const data = secret.data?.[TOKEN_KEY]
      return [secret.metadata?.labels?.[LABEL.id], data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8')]
    }))
    const instances: Instance[] = []
    const orphans: string[] = []
    for (const pod of pods.items) {
      const id = pod.metadata?.labels?.[LABEL.id]
      const token = tokens.get(id)
      const instance = podInstance(pod, token, this.pod.port)
      if (instance) instances.push(instance)
      else if (id !== undefined && token === undefined && this.#createAbandoned(pod)) orphans.push(id)
    }
    // A pod whose Secret never came: the fleet that created it died between the two. No fleet
    // can serve it (its server waits for a token that will not exist) and it holds its node's
    // resources, so the first list to see it past a create's deadline removes it.
    await Promise.all(orphans.map((id) => this.remove(id).catch(() => {})))
    return instances
  }

  /** Created longer ago than a create waits: no create still running will write its Secret. */
  #createAbandoned (pod: V1Pod): boolean {
    const created = pod.metadata?.creationTimestamp
    if (created === undefined) return false
    return Date.now() - new Date(created).getTime() > (this.options.createTimeoutMs ?? 180_000)
  }

  async pause (id: string): Promise<void> {
    throw new CannotPause(`Kubernetes cannot freeze a pod (desktop ${id}): run the fleet with --backend docker to pause desktops`)
  }

  async unpause (id: string): Promise<void> {
    throw new CannotPause(`Kubernetes cannot freeze a pod (desktop ${id}), so there is nothing to resume`)
  }

  async remove (id: string): Promise<void> {
    const name = this.name(id)
    await gone(() => kube(`delete desktop ${id}'s pod`, () => this.api.deleteNamespacedPod({ name, namespace: this.namespace })))
    // Its owner reference would have the garbage collector remove it too; removed here at once.
    await gone(() => kube(`delete desktop ${id}'s Secret`, () => this.api.deleteNamespacedSecret({ name, namespace: this.namespace })))
  }

  watch (onExit: (id: string) => void): () => void {
    const watcher = new Watch(this.options.kubeConfig)
    let stopped = false
    let controller: AbortController | undefined
    let retry: NodeJS.Timeout | undefined
    const again = () => {
      if (stopped || retry) return
      retry = setTimeout(() => { retry = undefined; open() }, this.options.watchRetryMs ?? 1000)
    }
    const event = (type: string, pod: V1Pod) => {
      const id = pod?.metadata?.labels?.[LABEL.id]
      if (!id || stopped) return
      const phase = pod.status?.phase
      if (type === 'DELETED' || phase === 'Failed' || phase === 'Succeeded' || phase === 'Unknown' || Boolean(pod.metadata?.deletionTimestamp)) onExit(id)
    }
    const open = () => {
      if (stopped) return
      watcher.watch(`/api/v1/namespaces/${encodeURIComponent(this.namespace)}/pods`, { labelSelector: selector(this.options.fleetId) }, event, again)
        .then((made) => {
          controller = made
          if (stopped) made.abort()
        }, again)
    }
    open()
    return () => {
      stopped = true
      clearTimeout(retry)
      controller?.abort()
    }
  }
}
