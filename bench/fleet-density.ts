/**
 * Density through the fleet: how many full desktops with a browser one host holds while each is
 * driven through the fleet's endpoint at one action a second, p99 ≤ 100 ms.
 *
 * The fleet runs as a process of its own, as users start it (`computer-gateway fleet`, built: the
 * Docker backend, the desktop image, no warm pool, `--on-exit end`) under a fleet id of this run's.
 * Desktops are added `--step` at a time up to `--max`; each is a full desktop (XFCE) whose Firefox
 * shows a local page of text and photographs (bench/photo.ts, uploaded into its home through the
 * fleet's /files, then opened with launch_app as the image's autostart would: a file URL under the
 * home). Once the new desktops' CPU has settled (settle()), every desktop gets one action a second
 * for `--seconds` (a click, a key, a PNG screenshot in turn, starts spread over the second), each
 * through POST /desktops/{id}/computer; the step reports p50/p99 (an action that failed counts as
 * slower than any), per kind, the host's load, CPU busy and stolen, available memory, and one
 * desktop's memory and CPU by part from its container's processes (PSS from /proc/PID/smaps_rollup
 * when readable, RSS else; the row says which), with the fleet's and this client's CPU beside. It
 * stops at an action that failed, at the second step in a row whose p99 passes 100 ms (overLine()),
 * or before a step whose desktops would not fit in the memory available, and prints the largest
 * count at p99 ≤ 100 ms against the target, and how many desktops the last step's CPU a desktop
 * would take to keep every core busy.
 *
 * Every container and volume it starts carries the fleet's labels (computer-gateway.fleet=ID)
 * and is removed on every path: the fleet ends them on SIGTERM (sent at the end, on SIGINT or
 * SIGTERM of this process, and by the kernel if this process dies: --pdeathsig), then whatever
 * is left with the label is removed here.
 *
 * Alone: `npx node --import tsx bench/fleet-density.ts [--quick|--smoke] [--max N] [--step N] [--seconds S]`
 * (final: 4, 8, … 40 desktops, 30 s each; --quick: 1 and 2, 10 s; --smoke: 1, 5 s).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import Docker from 'dockerode'
import { DEFAULT_IMAGE } from '../fleet/config.ts'
import { LABEL } from '../fleet/backends/docker/labels.ts'
import { DESKTOP_HOME } from '../fleet/options.ts'
import { cpuShares } from './cpu-shares.ts'
import { percentile } from './percentile.ts'
import { writePage } from './photo.ts'
import { cpuMs, freePort, root } from './servers.ts'
import { requireQuiet } from './quiet.ts'

export const P99_MS = 100
/** The target for a host of 2 cores and 24 GB. */
export const TARGET_DESKTOPS = 30
/** Memory kept free beyond the desktops': the fleet, this process, the engine. */
const RESERVE_MB = 1024
/** Assumed for a desktop before one has been measured. */
const ASSUMED_DESKTOP_MB = 1024
const ACTION_TIMEOUT_MS = 10_000
const START_TIMEOUT_MS = 300_000
/** Desktops started at once within a step: more only queue on the engine and the two cores. */
const START_CONCURRENCY = 4
const PAGE_DIR = 'bench-page'
const KINDS = ['click', 'key', 'screenshot'] as const
type Kind = typeof KINDS[number]

export const PARTS = ['Xvfb', 'session', 'Firefox', 'server'] as const
export type Part = typeof PARTS[number]
/** A figure for each part. */
const byPart = (value: (part: Part) => number) => Object.fromEntries(PARTS.map((part) => [part, value(part)])) as Record<Part, number>
const sumOfParts = (parts: Record<Part, number>) => PARTS.reduce((sum, part) => sum + parts[part], 0)
/** Firefox's processes by their comm (15 characters at most). */
const FIREFOX = /^(firefox|firefox-esr|Web Content|Isolated Web Co|WebExtensions|Privileged Cont|RDD Process|Socket Process|Utility Process|GPU Process|forkserver|file:\/\/ Content)$/

export interface DensityStep {
  desktops: number
  actions: number
  errors: string[]
  p50: number
  p99: number
  byKind: Record<Kind, { p50: number, p99: number, n: number }>
  /** Shares 0–1 of all cores' time over the window. */
  busy: number
  steal: number
  load1: number
  availableMb: number
  /** One desktop's mean memory by part, MB, and how it was read. */
  memory: { source: 'PSS' | 'RSS', parts: Record<Part, number>, totalMb: number, processes: number }
  /** CPU over the window, % of one core per desktop: its parts', and the fleet's and this client's shares. */
  cpu: DesktopCpu
  startS: number
  /** Seconds waited after the start for the new desktops' CPU to settle (settle()). */
  settleS: number
}

export interface DesktopCpu { parts: Record<Part, number>, total: number, fleet: number, client: number }

/**
 * What one action costs one desktop in CPU, by part: `n` of each kind at one every COST_PERIOD_MS
 * on one desktop (the others idle), less an idle window as long (the mean of one before and one
 * after: Firefox's idle work comes in bursts). Measured once, on the first step's first desktop.
 */
export interface ActionCosts {
  n: number
  /** CPU ms per action by part, the idle desktop's subtracted. */
  perKind: Record<Kind, Record<Part, number>>
  /** The idle desktop, % of one core by part. */
  idle: Record<Part, number>
}

export interface DensityBench {
  image: string
  quick: boolean
  host: { cores: number, memTotalMb: number }
  settings: { counts: number[], step: number, max: number, seconds: number, costActions: number }
  steps: DensityStep[]
  costs?: ActionCosts
  /** The largest count at p99 ≤ 100 ms (0 when none). */
  held: number
  stoppedBecause: string
  targets: Array<[string, boolean]>
}

/** One action each this often while costs are measured: a desktop's work for one ends well within it. */
const COST_PERIOD_MS = 500

export interface DensityOptions { smoke?: boolean, quick?: boolean, max?: number, step?: number, seconds?: number }

/** The steps a run makes: smoke 1; quick 1, 2; final 4, 8, … 40 (each overridable). */
export function densitySettings ({ smoke = false, quick = false, max, step, seconds }: DensityOptions) {
  const defaults = smoke ? { step: 1, max: 1, seconds: 5 } : quick ? { step: 1, max: 2, seconds: 10 } : { step: 4, max: 40, seconds: 30 }
  // ActionCosts: a burst of Firefox's idle work (~0.2 s of CPU) spread over 30 actions is ~7 ms each.
  const costActions = smoke ? 4 : quick ? 10 : 30
  const settings = { step: step ?? defaults.step, max: max ?? defaults.max, seconds: seconds ?? defaults.seconds }
  for (const [name, value] of Object.entries(settings)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number ≥ 1 (got ${value})`)
  }
  // Every step's count, the max the last even where the step does not divide it.
  const counts: number[] = []
  for (let n = Math.min(settings.step, settings.max); n <= settings.max; n = n === settings.max ? Infinity : Math.min(n + settings.step, settings.max)) counts.push(n)
  return { ...settings, counts, costActions }
}

/** ActionCosts as lines after the table. */
function printCosts (costs: ActionCosts): void {
  console.log(`  one desktop's CPU for one action (${costs.n} of each, one every ${COST_PERIOD_MS} ms, the idle desktop's subtracted), ms: Xvfb + session + Firefox + server`)
  for (const kind of KINDS) console.log(`    ${kind}: ${pct(sumOfParts(costs.perKind[kind]))} (${PARTS.map((part) => pct(costs.perKind[kind][part])).join(' + ')})`)
  console.log(`    idle, % of a core: ${pct(sumOfParts(costs.idle))} (${PARTS.map((part) => pct(costs.idle[part])).join(' + ')})`)
}

async function meminfo (): Promise<{ totalMb: number, availableMb: number }> {
  const text = await readFile('/proc/meminfo', 'utf8')
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) / 1024
  return { totalMb: field('MemTotal'), availableMb: field('MemAvailable') }
}

const load1 = async () => Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0])

/** Every process of a container: its init's tree (orphans are reparented to the init). */
async function treeOf (pid: number): Promise<number[]> {
  const all = [pid]
  for (let i = 0; i < all.length; i++) {
    const tasks = await readdir(`/proc/${all[i]}/task`).catch(() => [])
    for (const task of tasks) {
      const children = (await readFile(`/proc/${all[i]}/task/${task}/children`, 'utf8').catch(() => '')).split(' ').filter(Boolean).map(Number)
      all.push(...children.filter((child) => !all.includes(child)))
    }
  }
  return all
}

/** A process's part by its comm and its argv[0]. */
export function partOf (comm: string, argv0: string): Part {
  if (comm === 'Xvfb') return 'Xvfb'
  if (FIREFOX.test(comm)) return 'Firefox'
  // The server and its driver worker (whose comm is their main thread's name, MainThread).
  if (/(^|\/)node$/.test(argv0)) return 'server'
  // tini, xfce4-session, xfwm4, xfce4-panel, xfdesktop, xfsettingsd, the D-Bus daemons, …
  return 'session'
}

/** PSS (MB) of a process, or undefined when its smaps_rollup cannot be read (another user's, not root). */
async function pssMb (pid: number): Promise<number | undefined> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => undefined)
  const kb = rollup === undefined ? undefined : /^Pss:\s+(\d+)/m.exec(rollup)?.[1]
  return kb === undefined ? undefined : Number(kb) / 1024
}

async function rssMb (pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024
}

/** The fleet's desktops' processes (or one desktop's) as this host sees them (each container's init and its tree), by part. */
async function desktopProcesses (docker: Docker, fleetId: string, desktop?: string): Promise<{ containers: number, processes: Array<{ part: Part, pid: number }> }> {
  const label = [`${LABEL.fleet}=${fleetId}`, `${LABEL.kind}=desktop`, ...(desktop === undefined ? [] : [`${LABEL.id}=${desktop}`])]
  const containers = await docker.listContainers({ filters: { label } })
  const processes: Array<{ part: Part, pid: number }> = []
  for (const container of containers) {
    const pid = (await docker.getContainer(container.Id).inspect()).State.Pid
    if (!pid) continue
    for (const each of await treeOf(pid)) {
      const comm = (await readFile(`/proc/${each}/comm`, 'utf8').catch(() => '')).trim()
      const argv0 = (await readFile(`/proc/${each}/cmdline`, 'utf8').catch(() => '')).split('\0')[0] ?? ''
      if (comm) processes.push({ part: partOf(comm, argv0), pid: each })
    }
  }
  return { containers: containers.length, processes }
}

/** The mean memory of the fleet's desktops by part. */
async function desktopMemory (docker: Docker, fleetId: string): Promise<DensityStep['memory']> {
  const { containers, processes } = await desktopProcesses(docker, fleetId)
  const pss = await Promise.all(processes.map((p) => pssMb(p.pid)))
  // One measure for all: PSS where every process's is readable, RSS otherwise (RSS counts shared pages in full).
  const source = pss.every((value) => value !== undefined) ? 'PSS' : 'RSS'
  const sizes = source === 'PSS' ? pss as number[] : await Promise.all(processes.map((p) => rssMb(p.pid)))
  const parts = byPart(() => 0)
  processes.forEach((p, i) => { parts[p.part] += sizes[i]! / Math.max(1, containers) })
  return { source, parts, totalMb: sumOfParts(parts), processes: Math.round(processes.length / Math.max(1, containers)) }
}

/**
 * The fleet as a process of its own, started as users start it: `computer-gateway fleet`, the
 * compiled fleet under the bin's own Node flags (from the sources under Node's defaults the
 * fleet took about twice the CPU a desktop), on this process's Node. `npm run bench` builds first; alone, after a change,
 * `npm run build`. SIGTERM ends every desktop it started (--on-exit end).
 */
function startFleet ({ fleetId, image, port, key, max }: { fleetId: string, image: string, port: number, key: string, max: number }) {
  const bin = fileURLToPath(new URL('../bin/computer-gateway.js', import.meta.url))
  const args = [bin, 'fleet', '--fleet-id', fleetId, '--image', image, '--warm', '0', '--max', String(max), '--port', String(port), '--on-exit', 'end', '--start-timeout', String(START_TIMEOUT_MS / 1000)]
  // Should this process die without its finally (SIGKILL), the kernel sends the fleet the
  // SIGTERM on which it removes its desktops.
  const setpriv = spawnSync('sh', ['-c', 'command -v setpriv'], { encoding: 'utf8' }).stdout.trim()
  // The bin's `env -S … node` finds node on PATH: this one first. env and node exec in place, so
  // the death signal and the SIGTERM below reach the fleet itself.
  const [file, argv] = setpriv ? [setpriv, ['--pdeathsig', 'SIGTERM', '--', ...args]] : [args[0]!, args.slice(1)]
  const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`
  const child = spawn(file, argv, { cwd: fileURLToPath(root), env: { ...process.env, PATH, API_TOKEN: key, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  const keep = (chunk: Buffer) => { log = (log + chunk.toString()).slice(-4000) }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  return { child, log: () => log }
}

async function stopFleet (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  // Removing a few dozen desktops takes the engine a while; past this, the sweep below does it.
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000)
  await exited
  clearTimeout(timer)
}

/** Whatever carries this fleet's label, removed: what the fleet could not end (or a fleet that died). */
async function sweep (docker: Docker, fleetId: string): Promise<number> {
  const label = [`${LABEL.fleet}=${fleetId}`]
  const containers = await docker.listContainers({ all: true, filters: { label } })
  for (const c of containers) await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => {})
  const volumes = (await docker.listVolumes({ filters: { label } })).Volumes ?? []
  for (const v of volumes) await docker.getVolume(v.Name).remove({ force: true }).catch(() => {})
  return containers.length + volumes.length
}

/** CPU ms by part over a window: each process seen at the end, less what it had at the start (one that began in between counts whole). */
export function partsDelta (before: ReadonlyMap<number, { part: Part, ms: number }>, after: ReadonlyMap<number, { part: Part, ms: number }>): Record<Part, number> {
  const parts = byPart(() => 0)
  for (const [pid, { part, ms }] of after) parts[part] += ms - (before.get(pid)?.ms ?? 0)
  return parts
}

/** CPU ms per action by part: a window of `n` actions less an idle window as long. */
export function perAction (window: Record<Part, number>, idle: Record<Part, number>, n: number): Record<Part, number> {
  return byPart((part) => (window[part] - idle[part]) / n)
}

async function cpuByPid (docker: Docker, fleetId: string, desktop?: string): Promise<{ containers: number, byPid: Map<number, { part: Part, ms: number }> }> {
  const { containers, processes } = await desktopProcesses(docker, fleetId, desktop)
  return { containers, byPid: new Map(await Promise.all(processes.map(async (p) => [p.pid, { part: p.part, ms: await cpuMs(p.pid) }] as const))) }
}

/**
 * The CPU `work` cost, % of one core per desktop: the desktops' by part (their processes at the
 * start and the end: one that ended in between is missed, one that began counts whole), the
 * fleet's process and this one's (the client: on this host too, it takes from the same cores).
 */
async function cpuOver<T> (docker: Docker, fleetId: string, fleetPid: number, work: () => Promise<T>): Promise<{ result: T, cpu: DesktopCpu }> {
  const before = { ...await cpuByPid(docker, fleetId), fleet: await cpuMs(fleetPid) }
  const client = process.cpuUsage()
  const started = performance.now()
  const result = await work()
  const elapsed = performance.now() - started
  const { user, system } = process.cpuUsage(client)
  const after = { ...await cpuByPid(docker, fleetId), fleet: await cpuMs(fleetPid) }
  const share = (ms: number) => (ms / elapsed) * 100 / Math.max(1, after.containers)
  const delta = partsDelta(before.byPid, after.byPid)
  const parts = byPart((part) => share(delta[part]))
  return {
    result,
    cpu: { parts, total: sumOfParts(parts), fleet: share(after.fleet - before.fleet), client: share((user + system) / 1e3) },
  }
}

/** Busy share of the machine over `seconds`. */
async function busyOver (seconds: number): Promise<number> {
  return (await cpuShares(() => delay(seconds * 1000))).busy
}

const SETTLE_SAMPLE_S = 5
const SETTLE_MAX_S = 60
/**
 * New desktops keep the CPU busy for a while after their page shows (Firefox's first paint,
 * caches, the session's start-up): a step measures the desktops it holds, not their start.
 * Waits until a 5 s sample of the machine's busy share no longer falls by a tenth (60 s at most).
 */
async function settle (): Promise<number> {
  const started = performance.now()
  let last = await busyOver(SETTLE_SAMPLE_S)
  while ((performance.now() - started) / 1000 < SETTLE_MAX_S) {
    const now = await busyOver(SETTLE_SAMPLE_S)
    if (now >= last * 0.9) break
    last = now
  }
  return (performance.now() - started) / 1000
}

const pct = (value: number) => value.toFixed(1)

/**
 * Whether the steps so far end the run: an action that failed, or a second step in a row over
 * the line (a p99 over a few hundred actions is about their third-slowest: one step over it may
 * be one moment of the VM's host taking the CPU, `steal`; two are the desktops).
 */
export function overLine (steps: Array<Pick<DensityStep, 'desktops' | 'p99' | 'errors'>>): { stop?: string } {
  const [before, last] = [steps.at(-2), steps.at(-1)]
  if (!last) return {}
  if (last.errors.length > 0) return { stop: `${last.desktops} desktops: ${last.errors.length} actions failed` }
  if (last.p99 > P99_MS && before !== undefined && before.p99 > P99_MS) return { stop: `${before.desktops} and ${last.desktops} desktops: p99 ${ms(before.p99)} and ${ms(last.p99)} ms` }
  return {}
}

const ms = (value: number) => Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : '—'

export async function benchFleetDensity (options: DensityOptions = {}): Promise<DensityBench | undefined> {
  const quick = options.smoke === true || options.quick === true
  const settings = densitySettings(options)
  const image = process.env.BENCH_FLEET_IMAGE ?? DEFAULT_IMAGE
  const docker = new Docker()
  try {
    await docker.ping()
  } catch (error) {
    console.log(`fleet density: skipped: no Docker engine answers (${process.env.DOCKER_HOST ?? 'the local socket'}: ${(error as Error).message})`)
    return undefined
  }
  try {
    await docker.getImage(image).inspect()
  } catch {
    console.log(`fleet density: skipped: the engine has no image ${image} (npm run test:image builds it; BENCH_FLEET_IMAGE names another)`)
    return undefined
  }
  if (!existsSync(fileURLToPath(new URL('../dist/fleet/main.js', import.meta.url)))) {
    console.log('fleet density: skipped: the fleet is not built (`npm run build`; `npm run bench` builds first)')
    return undefined
  }

  const fleetId = `bench-density-${process.pid}-${randomBytes(3).toString('hex')}`
  const key = randomBytes(24).toString('hex')
  const port = await freePort()
  const pageDir = await mkdtemp(join(tmpdir(), 'cg-bench-density-'))
  const fleet = startFleet({ fleetId, image, port, key, max: settings.max })
  let cleaned: Promise<void> | undefined
  const cleanup = () => (cleaned ??= (async () => {
    await stopFleet(fleet.child)
    const left = await sweep(docker, fleetId).catch((error: Error) => { console.log(`fleet density: could not list what is left: ${error.message}`); return 0 })
    if (left > 0) console.log(`fleet density: removed ${left} containers and volumes the fleet left (fleet ${fleetId})`)
    await rm(pageDir, { recursive: true, force: true })
  })())
  // Interrupted: the desktops go before this process does.
  const onSignal = (signal: NodeJS.Signals) => { void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143)) }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const base = `http://127.0.0.1:${port}`
  const call = async (method: string, path: string, body?: unknown, timeoutMs = 60_000) => {
    const raw = Buffer.isBuffer(body)
    const started = performance.now()
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': raw ? 'application/octet-stream' : 'application/json' }) },
        ...(body !== undefined && { body: raw ? new Uint8Array(body) : JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      })
      return { status: response.status, text: await response.text() }
    } catch (error) {
      // Which request, and after how long: "aborted due to timeout" alone names neither.
      const action = raw || body === undefined ? '' : ` ${JSON.stringify(body).slice(0, 80)}`
      throw new Error(`${method} ${path}${action}: ${(error as Error).message} after ${Math.round(performance.now() - started)} ms`)
    }
  }
  /** `probe` until it is true, or the deadline (then why, with the fleet's log if it died). */
  const until = async (what: string, probe: () => Promise<boolean>, timeoutMs = START_TIMEOUT_MS) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (await probe().catch(() => false)) return
      if (fleet.child.exitCode !== null || fleet.child.signalCode !== null) throw new Error(`the fleet exited (${fleet.child.signalCode ?? fleet.child.exitCode}) while waiting for ${what}: ${fleet.log().trim().slice(-800)}`)
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s`)
      await delay(250)
    }
  }

  /** A full desktop through the fleet, its Firefox showing the page. */
  const startDesktop = async (): Promise<string> => {
    const created = await call('POST', '/desktops', { desktop: 'full', browser: 'firefox', labels: { bench: 'fleet-density' } })
    if (created.status !== 201) throw new Error(`POST /desktops answered ${created.status}: ${created.text.slice(0, 300)}`)
    const id = (JSON.parse(created.text) as { id: string }).id
    await until(`desktop ${id} acting`, async () => (await call('POST', `/desktops/${id}/computer`, { action: 'get_cursor_position' })).status === 200)
    for (const name of await readdir(pageDir)) {
      const put = await call('PUT', `/desktops/${id}/files/${PAGE_DIR}/${name}`, await readFile(join(pageDir, name)))
      if (put.status !== 201) throw new Error(`PUT ${name} into desktop ${id} answered ${put.status}: ${put.text.slice(0, 300)}`)
    }
    const launched = await call('POST', `/desktops/${id}/computer`, { action: 'launch_app', app: 'browser', target: `file://${DESKTOP_HOME}/${PAGE_DIR}/page.html` })
    if (launched.status !== 200) throw new Error(`launch_app browser on desktop ${id} answered ${launched.status}: ${launched.text.slice(0, 300)}`)
    await until(`Firefox showing the page on desktop ${id}`, async () => {
      const windows = await call('POST', `/desktops/${id}/computer`, { action: 'list_windows' })
      return windows.status === 200 && windows.text.includes('Bench page')
    })
    return id
  }

  const bodies: Record<Kind, (k: number) => unknown> = {
    click: (k) => ({ action: 'click_mouse', button: 'left', coordinates: [300 + (k * 37) % 700, 420 + (k * 53) % 300] }),
    key: (k) => ({ action: 'press_key', keys: [k % 2 === 0 ? 'Down' : 'Up'] }),
    screenshot: () => ({ action: 'take_screenshot' }),
  }
  /** One action a second on every desktop for `seconds`, their starts spread over the second. */
  const drive = async (ids: string[], seconds: number) => {
    const samples: Record<Kind, number[]> = { click: [], key: [], screenshot: [] }
    const errors: string[] = []
    const started = performance.now()
    await Promise.all(ids.map(async (id, i) => {
      for (let k = 0; k < seconds; k++) {
        const wait = started + k * 1000 + (i * 1000) / ids.length - performance.now()
        if (wait > 0) await delay(wait)
        const kind = KINDS[(k + i) % KINDS.length]!
        const sent = performance.now()
        try {
          const response = await call('POST', `/desktops/${id}/computer`, bodies[kind](k), ACTION_TIMEOUT_MS)
          if (response.status !== 200) throw new Error(`${response.status} ${response.text.slice(0, 160)}`)
          samples[kind].push(performance.now() - sent)
        } catch (error) {
          // Slower than any answer: a step with a failed action cannot pass.
          samples[kind].push(Number.POSITIVE_INFINITY)
          errors.push(`desktop ${i + 1} ${kind}: ${(error as Error).message}`)
        }
      }
    }))
    const all = KINDS.flatMap((kind) => samples[kind])
    return {
      actions: all.length,
      errors,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      byKind: Object.fromEntries(KINDS.map((kind) => [kind, { p50: percentile(samples[kind], 50), p99: percentile(samples[kind], 99), n: samples[kind].length }])) as DensityStep['byKind'],
    }
  }

  /** ActionCosts on desktop `id`, `n` of each kind. */
  const actionCosts = async (id: string, n: number): Promise<ActionCosts> => {
    const window = async (act?: (k: number) => Promise<void>) => {
      const before = await cpuByPid(docker, fleetId, id)
      const started = performance.now()
      for (let k = 0; k < n; k++) {
        await act?.(k)
        await delay(Math.max(0, started + (k + 1) * COST_PERIOD_MS - performance.now()))
      }
      return partsDelta(before.byPid, (await cpuByPid(docker, fleetId, id)).byPid)
    }
    const idleBefore = await window()
    const windows: Partial<Record<Kind, Record<Part, number>>> = {}
    for (const kind of KINDS) {
      windows[kind] = await window(async (k) => {
        const response = await call('POST', `/desktops/${id}/computer`, bodies[kind](k), ACTION_TIMEOUT_MS)
        if (response.status !== 200) throw new Error(`${kind} on desktop ${id} answered ${response.status}: ${response.text.slice(0, 160)}`)
      })
    }
    const idleAfter = await window()
    const idle = byPart((part) => (idleBefore[part] + idleAfter[part]) / 2)
    return {
      n,
      perKind: Object.fromEntries(KINDS.map((kind) => [kind, perAction(windows[kind]!, idle, n)])) as ActionCosts['perKind'],
      idle: byPart((part) => idle[part] * 100 / (n * COST_PERIOD_MS)),
    }
  }

  const { totalMb } = await meminfo()
  const host = { cores: availableParallelism(), memTotalMb: Math.round(totalMb) }
  const steps: DensityStep[] = []
  const ids: string[] = []
  let costs: ActionCosts | undefined
  let held = 0
  let stoppedBecause = `reached --max ${settings.max}`
  try {
    await writePage(pageDir)
    await until('the fleet answering', async () => (await call('GET', '/health')).status === 200, 60_000)
    console.log(`fleet density (${quick ? 'quick: not final numbers' : 'final'}; the fleet on Docker, ${image}, full desktops with Firefox on a local page; ` +
      `one action a second each through the fleet, ${settings.seconds} s a step; host ${host.cores} cores, ${(host.memTotalMb / 1024).toFixed(1)} GB; load ${(await load1()).toFixed(2)} at the start):`)
    console.log('desktops | p50 / p99 ms | click / key / screenshot p99 | errors | CPU busy / stolen | load 1 min | available MB | MB a desktop: Xvfb + session + Firefox + server | CPU a desktop, % of a core: Xvfb + session + Firefox + server; fleet + client | started in / settled in')
    for (const n of settings.counts) {
      const perDesktop = steps.at(-1)?.memory.totalMb ?? ASSUMED_DESKTOP_MB
      const { availableMb } = await meminfo()
      const need = (n - ids.length) * perDesktop + RESERVE_MB
      if (availableMb < need) {
        stoppedBecause = `${n} desktops would not fit: ${Math.round(availableMb)} MB available, ${n - ids.length} more need ~${Math.round(need)} MB (${Math.round(perDesktop)} each, ${RESERVE_MB} kept free)`
        break
      }
      const starting = performance.now()
      while (ids.length < n) {
        const batch = Math.min(START_CONCURRENCY, n - ids.length)
        ids.push(...await Promise.all(Array.from({ length: batch }, startDesktop)))
      }
      const startS = (performance.now() - starting) / 1000
      const settleS = await settle()
      costs ??= await actionCosts(ids[0]!, settings.costActions)
      const { result: { result, busy, steal }, cpu } = await cpuOver(docker, fleetId, fleet.child.pid!, () => cpuShares(() => drive(ids, settings.seconds)))
      const memory = await desktopMemory(docker, fleetId)
      const step: DensityStep = { desktops: n, ...result, busy, steal, load1: await load1(), availableMb: Math.round((await meminfo()).availableMb), memory, cpu, startS, settleS }
      steps.push(step)
      console.log(`${n} | ${ms(step.p50)} / ${ms(step.p99)} | ${KINDS.map((kind) => ms(step.byKind[kind].p99)).join(' / ')} | ${step.errors.length} of ${step.actions} | ` +
        `${Math.round(busy * 100)} % / ${Math.round(steal * 100)} % | ${step.load1.toFixed(2)} | ${step.availableMb} | ` +
        `${Math.round(memory.totalMb)} ${memory.source} (${PARTS.map((part) => Math.round(memory.parts[part])).join(' + ')}) | ` +
        `${pct(cpu.total)} (${PARTS.map((part) => pct(cpu.parts[part])).join(' + ')}); ${pct(cpu.fleet)} + ${pct(cpu.client)} | ${startS.toFixed(0)} s / ${settleS.toFixed(0)} s`)
      for (const error of step.errors.slice(0, 5)) console.log(`  error: ${error}`)
      const verdict = overLine(steps)
      if (verdict.stop) {
        stoppedBecause = verdict.stop
        break
      }
      if (step.p99 <= P99_MS) held = n
    }
  } catch (error) {
    stoppedBecause = `failed: ${(error as Error).message}`
    process.exitCode = 1
  } finally {
    await cleanup()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
  const met = held >= TARGET_DESKTOPS
  const targets: Array<[string, boolean]> = [[`fleet density: ≥ ${TARGET_DESKTOPS} full desktops with a browser at p99 ≤ ${P99_MS} ms, one action a second each (${held}; host ${host.cores} cores, ${(host.memTotalMb / 1024).toFixed(1)} GB)`, met]]
  if (costs) printCosts(costs)
  console.log(`  stopped: ${stoppedBecause}`)
  console.log(`  largest number of desktops at p99 ≤ ${P99_MS} ms: ${held}${quick ? ' (quick run: not final)' : ''}`)
  const last = steps.at(-1)
  if (last) {
    const perDesktop = last.cpu.total + last.cpu.fleet + last.cpu.client
    console.log(`  CPU: ${pct(perDesktop)} % of a core a desktop at ${last.desktops} (theirs, the fleet's and the client's): ${host.cores} cores all busy at ~${Math.floor(host.cores * 100 / perDesktop)} desktops`)
    const applications = last.cpu.parts.Xvfb + last.cpu.parts.session + last.cpu.parts.Firefox
    console.log(`  the applications alone (Xvfb, session, Firefox): ${pct(applications)} % of a core a desktop at ${last.desktops}; ${TARGET_DESKTOPS} desktops would keep ${Math.round(applications * TARGET_DESKTOPS / host.cores)} % of the ${host.cores} cores busy with them, before any screenshot is encoded`)
  }
  for (const [target, ok] of targets) console.log(`${ok ? 'MET ' : 'MISS'} ${target}`)
  return { image, quick, host, settings, steps, ...(costs && { costs }), held, stoppedBecause, targets }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [smoke, quick] = [process.argv.includes('--smoke'), process.argv.includes('--quick')]
  const arg = (name: string) => {
    const at = process.argv.indexOf(`--${name}`)
    if (at < 0) return undefined
    const text = process.argv[at + 1] ?? ''
    if (!/^\d+$/.test(text)) throw new Error(`--${name} must be a whole number ≥ 1 (got ${JSON.stringify(text)})`)
    return Number(text)
  }
  let options: DensityOptions
  try {
    options = { smoke, quick, max: arg('max'), step: arg('step'), seconds: arg('seconds') }
    densitySettings(options)
  } catch (error) {
    console.error((error as Error).message)
    process.exit(2)
  }
  // Final numbers only from a quiet machine (bench/quiet.ts): refused, with the load seen, otherwise.
  await requireQuiet(!smoke && !quick)
  await benchFleetDensity(options)
}
