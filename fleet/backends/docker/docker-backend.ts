/**
 * The fleet's engine on the Docker Engine API, through dockerode (DOCKER_HOST, else the local
 * socket). A desktop is a container of the desktop image run with the image tests' hardening
 * (test/docker/images.ts, deploy/compose.yaml: uid 1000, read-only root, tmpfs /tmp, every
 * capability dropped, no-new-privileges), CPU, memory and process limits, a home volume of its
 * own, and its port published on 127.0.0.1 only. Its files and clipboard actions are on: the
 * desktop is one agent's alone, and a reset ends both with it. Everything it creates carries the fleet's
 * labels (labels.ts), which are how `list` finds it again after the fleet restarts.
 */
import Docker from 'dockerode'
import type { Backend, ClaimFacts, DesktopFacts, Instance } from '../backend.ts'
import { AlreadyClaimed, DESKTOP_HOME as HOME } from '../backend.ts'
import { claimLabels, factLabels, LABEL, ownership, readClaim, readFacts } from './labels.ts'
import { desktopEnv, GUEST_PORT } from './desktop-env.ts'

export interface DockerBackendOptions {
  fleetId: string
  image: string
  /** CPUs, bytes of memory, and processes each desktop may use. */
  cpus: number
  memoryBytes: number
  pids: number
  /** Every desktop runs the server's shell (SHELL_TOOL=1): commands as its uid 1000 user, inside its own container. */
  shell?: boolean
  /** Every desktop serves OSWorld's guest protocol (OSWORLD=1), its port published on 127.0.0.1 beside the desktop's own. */
  osworld?: boolean
  /** Passed to dockerode; by default it reads DOCKER_HOST or uses the local socket. */
  docker?: Docker
}

const PORT = '8000/tcp'
const GUEST = `${GUEST_PORT}/tcp`
/** Browsers keep renderers' memory in /dev/shm: Docker's 64 MB crashes their tabs (as deploy/compose.yaml says). */
const SHM_BYTES = 512 * 1024 * 1024

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode

/** 404 (gone already) and 304 (already in that state) are the outcome asked for. */
async function idempotent (call: () => Promise<unknown>): Promise<void> {
  try {
    await call()
  } catch (error) {
    if (statusOf(error) !== 404 && statusOf(error) !== 304) throw error
  }
}

export class DockerBackend implements Backend {
  readonly docker: Docker
  constructor (private readonly options: DockerBackendOptions) {
    this.docker = options.docker ?? new Docker()
  }

  private name (id: string, part?: 'home' | 'claim') {
    return `cg-fleet-${this.options.fleetId}-${id}${part ? `-${part}` : ''}`
  }

  async create (facts: DesktopFacts, claim?: ClaimFacts): Promise<Instance> {
    const { fleetId, image, cpus, memoryBytes, pids, osworld } = this.options
    // An empty HostPort: the engine picks a free one, on loopback only.
    const loopback = [{ HostIp: '127.0.0.1', HostPort: '' }]
    const home = this.name(facts.id, 'home')
    await this.docker.createVolume({ Name: home, Labels: ownership(fleetId, 'home', facts.id) })
    try {
      const container = await this.docker.createContainer({
        name: this.name(facts.id),
        Image: image,
        User: '1000',
        Env: desktopEnv(facts, { shell: this.options.shell ?? false, osworld: osworld ?? false }),
        Labels: { ...ownership(fleetId, 'desktop', facts.id), ...factLabels(facts), ...(claim && claimLabels(claim)) },
        ExposedPorts: { [PORT]: {}, ...(osworld && { [GUEST]: {} }) },
        // The fleet probes a desktop's /health itself as it starts or resumes it (probe.ts), and
        // GET /desktops/{id}/health asks it at once; the image's HEALTHCHECK would add an exec in
        // every desktop every 30 s, ~70 ms of the host's CPU each through the engine and runc
        // (bench/README.md, *The health check's CPU*), for a state nothing here reads.
        Healthcheck: { Test: ['NONE'] },
        HostConfig: {
          PortBindings: { [PORT]: loopback, ...(osworld && { [GUEST]: loopback }) },
          Binds: [`${home}:${HOME}`],
          ReadonlyRootfs: true,
          Tmpfs: { '/tmp': '' },
          CapDrop: ['ALL'],
          SecurityOpt: ['no-new-privileges:true'],
          ShmSize: SHM_BYTES,
          Memory: memoryBytes,
          NanoCpus: Math.round(cpus * 1e9),
          PidsLimit: pids,
          RestartPolicy: { Name: 'no' },
        },
      })
      await container.start()
    } catch (error) {
      // A desktop that did not start leaves nothing behind.
      await this.remove(facts.id).catch(() => {})
      throw error
    }
    const instance = await this.inspect(facts.id)
    if (!instance) throw new Error(`desktop ${facts.id} was removed while it started`)
    return instance
  }

  async claim (id: string, claim: ClaimFacts): Promise<void> {
    const name = this.name(id, 'claim')
    // Creating a volume whose name exists answers with that volume: read it back to know whose it is.
    const wanted = { ...ownership(this.options.fleetId, 'claim', id), ...claimLabels(claim) }
    await this.docker.createVolume({ Name: name, Labels: wanted })
    const made = await this.docker.getVolume(name).inspect()
    if (Object.entries(wanted).some(([key, value]) => made.Labels?.[key] !== value)) throw new AlreadyClaimed(id)
  }

  async inspect (id: string): Promise<Instance | undefined> {
    return (await this.list(id))[0]
  }

  async list (id?: string): Promise<Instance[]> {
    const label = [`${LABEL.fleet}=${this.options.fleetId}`, `${LABEL.kind}=desktop`, ...(id ? [`${LABEL.id}=${id}`] : [])]
    const [containers, volumes] = await Promise.all([
      this.docker.listContainers({ all: true, filters: { label } }),
      this.docker.listVolumes({ filters: { label: [`${LABEL.fleet}=${this.options.fleetId}`, `${LABEL.kind}=claim`] } }),
    ])
    const claims = new Map((volumes.Volumes ?? []).map((volume) => [volume.Labels?.[LABEL.id], readClaim(volume.Labels ?? {})]))
    const instances: Instance[] = []
    for (const container of containers) {
      const facts = readFacts(container.Labels)
      if (!facts) continue
      const claim = readClaim(container.Labels) ?? claims.get(facts.id)
      const published = (inside: number) => container.Ports.find((p) => p.PrivatePort === inside && p.IP === '127.0.0.1' && p.PublicPort)?.PublicPort
      const port = published(8000)
      const guest = published(GUEST_PORT)
      // A paused container keeps its ports: its URLs are where it answers once thawed.
      const state = container.State === 'running' || container.State === 'paused' ? container.State : 'exited'
      instances.push({ facts, ...(claim && { claim }), state, ...(state !== 'exited' && port && { url: `http://127.0.0.1:${port}` }), ...(state !== 'exited' && guest && { osworldUrl: `http://127.0.0.1:${guest}` }) })
    }
    return instances
  }

  async pause (id: string): Promise<void> {
    await this.freezer(id, 'pause')
  }

  async unpause (id: string): Promise<void> {
    await this.freezer(id, 'unpause')
  }

  /** The engine's freezer (cgroup freezer): one already in the state asked for is left as it is. */
  private async freezer (id: string, call: 'pause' | 'unpause'): Promise<void> {
    const container = this.docker.getContainer(this.name(id))
    const { State } = await container.inspect()
    if (State.Paused === (call === 'pause')) return
    if (!State.Running) throw new Error(`desktop ${id} is not running (${State.Status})`)
    await container[call]()
  }

  async remove (id: string): Promise<void> {
    // Killed, not stopped: its home goes with it, so there is nothing a graceful stop would save.
    await idempotent(() => this.docker.getContainer(this.name(id)).remove({ force: true, v: true }))
    await idempotent(() => this.docker.getVolume(this.name(id, 'home')).remove())
    await idempotent(() => this.docker.getVolume(this.name(id, 'claim')).remove())
  }

  watch (onExit: (id: string) => void): () => void {
    let stopped = false
    let stream: NodeJS.ReadableStream | undefined
    let retry: NodeJS.Timeout | undefined
    const filters = { type: ['container' as const], event: ['die', 'destroy'], label: [`${LABEL.fleet}=${this.options.fleetId}`, `${LABEL.kind}=desktop`] }
    // The engine restarted or the connection broke: watch again (the control plane's own sweep
    // finds what died in between). Once per stream, whichever of end, error or close comes first.
    const again = () => {
      if (stopped || retry) return
      retry = setTimeout(() => { retry = undefined; open() }, 1000)
    }
    const open = () => {
      if (stopped) return
      this.docker.getEvents({ filters }).then((events) => {
        stream = events
        if (stopped) { (events as unknown as { destroy(): void }).destroy(); return }
        let pending = ''
        events.on('data', (chunk: Buffer) => {
          pending += chunk.toString('utf8')
          const lines = pending.split('\n')
          pending = lines.pop() ?? ''
          for (const line of lines.filter(Boolean)) {
            const id = (JSON.parse(line) as { Actor?: { Attributes?: Record<string, string> } }).Actor?.Attributes?.[LABEL.id]
            if (id) onExit(id)
          }
        })
        let lost = false
        const broken = () => { if (!lost) { lost = true; again() } }
        events.on('end', broken)
        events.on('error', broken)
        events.on('close', broken)
      }, again)
    }
    open()
    return () => {
      stopped = true
      clearTimeout(retry)
      ;(stream as unknown as { destroy?(): void } | undefined)?.destroy?.()
    }
  }
}
