/**
 * A desktop as a Kubernetes pod and its token as a Secret: the objects the Kubernetes backend
 * sends (kubernetes-backend.ts), and how a pod read back becomes the contract's Instance.
 *
 * Names and keys. Both objects are named cg-fleet-FLEET-ID (a DNS label: the fleet id is
 * lowercase letters, digits and '-', the id 16 hex digits). Their labels are the fleet's
 * ownership (labels.ts: fleet, kind, desktop id), which `list` and `watch` select on; the facts
 * and the claim are annotations under the very keys the Docker backend's labels use, so one
 * reader (readFacts, readClaim) serves every engine. Annotations, not labels: a label's value is
 * at most 63 characters of [A-Za-z0-9._-], and the client's labels and autostart are JSON.
 *
 * The token is not an annotation: whoever may read pods would read every desktop's token. It is
 * the Secret's alone, reaches the server as API_TOKEN through secretKeyRef (as the Docker backend
 * passes it in the environment), and `list` reads it back from the Secret for adoption.
 *
 * Hardening as the Docker backend's (docker-backend.ts): uid/gid 1000 and runAsNonRoot, no
 * privilege escalation, every capability dropped, a read-only root with /tmp and the home as
 * emptyDirs of the pod, 512 MB of memory-backed /dev/shm, seccomp RuntimeDefault; no service
 * account token mounted (a desktop has no business with the API) and no service links in its
 * environment. Requests equal limits: a desktop's size is what the fleet was told, and the
 * scheduler must not place more of them on a node than it holds. The process limit (--pids) is
 * the node's (the kubelet's podPidsLimit): a pod cannot ask for one.
 *
 * restartPolicy Never: a desktop restarted in place would be a fresh screen behind the same id,
 * so a dead one stays dead and the control plane replaces it, as on the other engines.
 */
import type { V1Pod, V1Secret } from '@kubernetes/client-node'
import type { ClaimFacts, DesktopFacts, Instance } from '../backend.ts'
import { DESKTOP_HOME } from '../backend.ts'
import { claimLabels, factLabels, LABEL, ownership, readClaim, readFacts } from '../docker/labels.ts'
import { desktopEnv } from '../docker/desktop-env.ts'

export interface PodOptions {
  fleetId: string
  image: string
  cpus: number
  memoryBytes: number
  shell: boolean
  /** The port the desktop's server listens on in its pod (PORT): the image's 8000 unless told. */
  port: number
  /** How long the server may take to answer /health at start before the kubelet gives up on it. */
  startSeconds: number
}

/** The Secret's key that holds the token. */
export const TOKEN_KEY = 'api-token'
const SHM_BYTES = 512 * 1024 * 1024
/** Part of every desktop's labels, for a cluster's operator (kubectl get pods -l app.kubernetes.io/name=computer-gateway-desktop). */
const APP = { 'app.kubernetes.io/name': 'computer-gateway-desktop', 'app.kubernetes.io/managed-by': 'computer-gateway-fleet' }

export const objectName = (fleetId: string, id: string) => `cg-fleet-${fleetId}-${id}`

/** The label selector of this fleet's desktops (one of them, with id). */
export function selector (fleetId: string, id?: string): string {
  return Object.entries(ownership(fleetId, 'desktop', id ?? '')).filter(([, value]) => value).map(([key, value]) => `${key}=${value}`).join(',')
}

export function tokenSecret (options: PodOptions, facts: DesktopFacts, owner: { name: string, uid: string }): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: objectName(options.fleetId, facts.id),
      labels: { ...APP, ...ownership(options.fleetId, 'desktop', facts.id) },
      // Owned by its pod: the garbage collector removes it with the pod, whoever deletes the pod.
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.name, uid: owner.uid }],
    },
    type: 'Opaque',
    immutable: true,
    stringData: { [TOKEN_KEY]: facts.token },
  }
}

export function desktopPod (options: PodOptions, facts: DesktopFacts, claim?: ClaimFacts): V1Pod {
  const name = objectName(options.fleetId, facts.id)
  const { [LABEL.token]: _token, ...annotations } = factLabels(facts)
  const env = desktopEnv(facts, { shell: options.shell })
    .filter((pair) => !pair.startsWith('API_TOKEN=') && !pair.startsWith('PORT='))
    .map((pair) => ({ name: pair.slice(0, pair.indexOf('=')), value: pair.slice(pair.indexOf('=') + 1) }))
  const probe = { httpGet: { path: '/health', port: 'http' }, timeoutSeconds: 5 }
  const resources = { cpu: String(options.cpus), memory: String(options.memoryBytes) }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: { ...APP, ...ownership(options.fleetId, 'desktop', facts.id) },
      annotations: { ...annotations, ...(claim && claimLabels(claim)) },
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 5,
      securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{
        name: 'desktop',
        image: options.image,
        imagePullPolicy: 'IfNotPresent',
        env: [
          { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name, key: TOKEN_KEY } } },
          { name: 'PORT', value: String(options.port) },
          ...env,
        ],
        ports: [{ name: 'http', containerPort: options.port, protocol: 'TCP' }],
        resources: { requests: resources, limits: resources },
        securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 1000, capabilities: { drop: ['ALL'] } },
        // Startup gates liveness: a desktop whose server never answers fails, and the fleet replaces
        // it. Liveness waits two minutes, as deploy/kubernetes/base's does: the server answers 503
        // while it restarts its X server, which takes seconds, and a kill here is the desktop's end.
        startupProbe: { ...probe, periodSeconds: 2, failureThreshold: Math.max(1, Math.ceil(options.startSeconds / 2)) },
        readinessProbe: { ...probe, periodSeconds: 5, failureThreshold: 1 },
        livenessProbe: { ...probe, periodSeconds: 10, failureThreshold: 12 },
        volumeMounts: [
          { name: 'home', mountPath: DESKTOP_HOME },
          { name: 'tmp', mountPath: '/tmp' },
          { name: 'shm', mountPath: '/dev/shm' },
        ],
      }],
      volumes: [
        { name: 'home', emptyDir: {} },
        { name: 'tmp', emptyDir: {} },
        { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: String(SHM_BYTES) } },
      ],
    },
  }
}

/**
 * A pod read back as the contract's view: Pending or Running is `running` (its process is about
 * to run, or runs: readiness is the control plane's to probe), reached at its pod IP once it has
 * one; Failed, Succeeded, Unknown (its node lost) or being deleted is `exited`. Undefined when
 * its annotations are not whole or its token is missing (not written by this code, or its Secret
 * not yet created).
 */
export function podInstance (pod: V1Pod, token: string | undefined, port: number): Instance | undefined {
  const labels = { ...pod.metadata?.annotations, ...pod.metadata?.labels, ...(token !== undefined && { [LABEL.token]: token }) }
  const facts = readFacts(labels)
  if (!facts) return undefined
  const claim = readClaim(labels)
  const phase = pod.status?.phase ?? 'Pending'
  const exited = Boolean(pod.metadata?.deletionTimestamp) || !['Pending', 'Running'].includes(phase)
  const ip = pod.status?.podIP
  // An IPv6 pod IP is bracketed in a URL.
  const host = ip?.includes(':') ? `[${ip}]` : ip
  return { facts, ...(claim && { claim }), state: exited ? 'exited' : 'running', ...(!exited && phase === 'Running' && host && { url: `http://${host}:${port}` }) }
}
