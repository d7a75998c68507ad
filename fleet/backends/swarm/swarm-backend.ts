/**
 * The fleet's engine on a Docker Swarm, through dockerode's service API (DOCKER_HOST names a
 * manager). A desktop is a service of one replica that is never restarted (restart condition
 * none): a desktop that died, or whose node was lost, is reported exited and the control plane
 * ends it and refills the pool on the nodes that remain, because a desktop restarted elsewhere
 * would be a fresh screen behind the same id. The scheduler places each new service on the node
 * that runs the fewest tasks, which spreads the desktops across nodes.
 *
 * Hardening as the Docker backend's (docker-backend.ts): uid 1000, read-only root, tmpfs /tmp,
 * every capability dropped, CPU, memory and process limits, a home of its own (an anonymous
 * volume, which the node removes with the task's container). Swarm services cannot ask for
 * no-new-privileges before API 1.44 (Debian's engine speaks 1.41): each node's daemon must set
 * it for all its containers (`--no-new-privileges`; scripts/swarm.sh does, fleet/README.md says so).
 *
 * Reaching a desktop: its port is published in host mode on its node's own address (an engine
 * picked port), and the fleet forwards to http://NODE_ADDR:PORT. Not the ingress mesh: the mesh
 * balances one published port over a service's replicas, while each desktop is its own service
 * and must be reached on the node it runs on; a lost node's desktops are then unreachable at
 * once, not through another node's proxy.
 *
 * State is the service's labels (labels.ts, shared with the Docker backend): the facts when it is
 * created, the claim by one service update conditioned on the version read (the engine refuses
 * an update out of sequence), so a claim is written once even with two fleets adopting.
 */
import Docker from 'dockerode'
import type { Backend, ClaimFacts, DesktopFacts, Instance } from '../backend.ts'
import { AlreadyClaimed, CannotPause, DESKTOP_HOME as HOME } from '../backend.ts'
import { claimLabels, factLabels, LABEL, ownership, readClaim, readFacts } from '../docker/labels.ts'
import { desktopEnv } from '../docker/desktop-env.ts'
import { awaitAddress } from '../await-address.ts'

export interface SwarmBackendOptions {
  fleetId: string
  image: string
  cpus: number
  memoryBytes: number
  pids: number
  /** Every desktop runs the server's shell (SHELL_TOOL=1): commands as its uid 1000 user, inside its own container. */
  shell?: boolean
  /** How long `create` waits for the task to run and its port to be known. */
  createTimeoutMs?: number
  /** How often `watch` reads the services' tasks (the Engine API has no task events). */
  watchMs?: number
  docker?: Docker
}

const PORT = 8000
const SHM_BYTES = 512 * 1024 * 1024
/** Task states after which a task never runs again (the API's TaskState). */
const ENDED = new Set(['complete', 'shutdown', 'failed', 'rejected', 'orphaned', 'remove'])

interface Task { ServiceID: string, NodeID?: string, CreatedAt: string, DesiredState: string, Status: { State: string, PortStatus?: { Ports?: { TargetPort: number, PublishedPort?: number }[] } } }
interface Node { ID: string, Status: { State: string, Addr?: string }, ManagerStatus?: { Addr?: string } }

/**
 * The address a node joined with. A manager that became the Raft leader may report its
 * Status.Addr as 0.0.0.0 (seen after the leader was lost and another elected): its manager
 * address (HOST:2377) names the node then. 0.0.0.0 would reach whatever listens on the fleet's own host.
 */
export function nodeAddr (node: Node): string | undefined {
  const addr = node.Status.Addr
  if (addr && addr !== '0.0.0.0') return addr
  const manager = node.ManagerStatus?.Addr
  return manager ? manager.slice(0, manager.lastIndexOf(':')) : undefined
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode

/** A task's view as the contract's state: a lost node or a task the orchestrator gave up on is a dead desktop. */
export function taskState (task: Task | undefined, node: Node | undefined): { state: Instance['state'], url?: string } {
  // Not scheduled yet: its process is about to run.
  if (!task) return { state: 'running' }
  if (ENDED.has(task.Status.State) || task.DesiredState !== 'running') return { state: 'exited' }
  if (task.NodeID && node && node.Status.State !== 'ready') return { state: 'exited' }
  const port = task.Status.PortStatus?.Ports?.find((p) => p.TargetPort === PORT && p.PublishedPort)
  const addr = node && nodeAddr(node)
  const running = task.Status.State === 'running' && port && addr
  return { state: 'running', ...(running && { url: `http://${addr}:${port.PublishedPort}` }) }
}

export class SwarmBackend implements Backend {
  readonly docker: Docker
  constructor (private readonly options: SwarmBackendOptions) {
    this.docker = options.docker ?? new Docker()
  }

  private name (id: string) {
    return `cg-fleet-${this.options.fleetId}-${id}`
  }

  /** The engine must be a swarm manager: a worker or a lone engine has no service API. */
  async check (): Promise<void> {
    const info = await this.docker.info() as { Swarm?: { ControlAvailable?: boolean, LocalNodeState?: string } }
    if (!info.Swarm?.ControlAvailable) throw new Error(`the engine is not a swarm manager (swarm state: ${info.Swarm?.LocalNodeState ?? 'none'})`)
  }

  async create (facts: DesktopFacts, claim?: ClaimFacts): Promise<Instance> {
    const { fleetId, image, cpus, memoryBytes, pids } = this.options
    const spec = {
      Name: this.name(facts.id),
      Labels: { ...ownership(fleetId, 'desktop', facts.id), ...factLabels(facts), ...(claim && claimLabels(claim)) },
      TaskTemplate: {
        ContainerSpec: {
          Image: image,
          User: '1000',
          Env: desktopEnv(facts, { shell: this.options.shell ?? false }),
          // The containers carry the fleet's ownership too, so a node's operator sees whose they are.
          Labels: ownership(fleetId, 'desktop', facts.id),
          ReadOnly: true,
          CapabilityDrop: ['ALL'],
          Mounts: [
            { Type: 'tmpfs', Target: '/tmp' },
            { Type: 'tmpfs', Target: '/dev/shm', TmpfsOptions: { SizeBytes: SHM_BYTES } },
            { Type: 'volume', Target: HOME },
          ],
        },
        Resources: { Limits: { NanoCPUs: Math.round(cpus * 1e9), MemoryBytes: memoryBytes, Pids: pids } },
        RestartPolicy: { Condition: 'none' },
      },
      Mode: { Replicated: { Replicas: 1 } },
      EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: PORT, PublishMode: 'host' }] },
    }
    await this.docker.createService(spec as unknown as Docker.CreateServiceOptions)
    try {
      return await awaitAddress(() => this.inspect(facts.id), facts.id, 'task', this.options.createTimeoutMs ?? 60_000)
    } catch (error) {
      // A desktop that did not start leaves nothing behind.
      await this.remove(facts.id).catch(() => {})
      throw error
    }
  }

  async claim (id: string, claim: ClaimFacts): Promise<void> {
    const service = this.docker.getService(this.name(id))
    const read = async () => await service.inspect() as { Version: { Index: number }, Spec: { Labels?: Record<string, string> } }
    const current = await read()
    if (readClaim(current.Spec.Labels ?? {})) throw new AlreadyClaimed(id)
    try {
      await service.update({ version: current.Version.Index, ...current.Spec, Labels: { ...current.Spec.Labels, ...claimLabels(claim) } })
    } catch (error) {
      // Out of sequence: another fleet updated it in between; if that was a claim, this one lost.
      if (readClaim((await read()).Spec.Labels ?? {})) throw new AlreadyClaimed(id)
      throw error
    }
  }

  async list (id?: string): Promise<Instance[]> {
    const label = [`${LABEL.fleet}=${this.options.fleetId}`, `${LABEL.kind}=desktop`, ...(id ? [`${LABEL.id}=${id}`] : [])]
    const services = await this.docker.listServices({ filters: { label } })
    if (!services.length) return []
    const [tasks, nodes] = await Promise.all([
      this.docker.listTasks({ filters: { service: services.map((s) => s.ID) } }) as Promise<Task[]>,
      this.docker.listNodes() as Promise<Node[]>,
    ])
    const nodeById = new Map(nodes.map((node) => [node.ID, node]))
    // A one-replica service that is never restarted has one task; the newest, should there be more.
    const newest = new Map<string, Task>()
    for (const task of tasks) {
      const seen = newest.get(task.ServiceID)
      if (!seen || seen.CreatedAt < task.CreatedAt) newest.set(task.ServiceID, task)
    }
    const instances: Instance[] = []
    for (const service of services) {
      const labels = service.Spec?.Labels ?? {}
      const facts = readFacts(labels)
      if (!facts) continue
      const claim = readClaim(labels)
      const task = newest.get(service.ID)
      const { state, url } = taskState(task, task?.NodeID ? nodeById.get(task.NodeID) : undefined)
      instances.push({ facts, ...(claim && { claim }), state, ...(url && { url }) })
    }
    return instances
  }

  async inspect (id: string): Promise<Instance | undefined> {
    return (await this.list(id))[0]
  }

  /** Swarm has no freezer for a service's task: the fleet answers the client 501, that this engine cannot pause. */
  async pause (id: string): Promise<void> {
    throw new CannotPause(`Docker Swarm cannot pause a service's task (desktop ${id}); run the fleet with --backend docker to pause desktops`)
  }

  async unpause (id: string): Promise<void> {
    throw new CannotPause(`Docker Swarm cannot pause a service's task (desktop ${id}), so there is nothing to resume`)
  }

  async remove (id: string): Promise<void> {
    try {
      await this.docker.getService(this.name(id)).remove()
    } catch (error) {
      if (statusOf(error) !== 404) throw error
    }
  }

  /** Reads the tasks every watchMs and reports each desktop once when it is seen exited or gone. */
  watch (onExit: (id: string) => void): () => void {
    const alive = new Set<string>()
    let stopped = false
    const tick = async () => {
      const instances = await this.list().catch(() => undefined)
      // A manager that does not answer has not lost its desktops: nothing is reported.
      if (!instances || stopped) return
      const now = new Set(instances.filter((i) => i.state !== 'exited').map((i) => i.facts.id))
      for (const instance of instances) if (instance.state === 'exited' && alive.has(instance.facts.id)) onExit(instance.facts.id)
      for (const id of alive) if (!instances.some((i) => i.facts.id === id)) onExit(id)
      alive.clear()
      for (const id of now) alive.add(id)
    }
    const timer = setInterval(() => { void tick() }, this.options.watchMs ?? 2000)
    timer.unref()
    void tick()
    return () => { stopped = true; clearInterval(timer) }
  }
}
