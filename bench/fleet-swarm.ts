/**
 * The fleet across nodes: claim → first action when the warm pool's desktops run on the nodes of
 * a Docker Swarm (--backend swarm on scripts/swarm.sh's three nodes on this machine: each its own
 * dockerd in its own network namespace, reached over a bridge), beside the same on one Docker
 * engine, measured by the same code at the same moment. POST /desktops served from the pool,
 * then get_cursor_position through the fleet answered; p50/p99 over every claim. Their ratio
 * (across nodes ÷ one engine) is the row to read: what reaching a desktop on another node costs.
 *
 * Minimal desktops (a window manager only) on both, so the two pools fit a 2-core machine; the
 * fleet runs in this process as main.ts runs it. The bench brings the swarm up and takes it down
 * (`swarm.sh down`, on every path), and removes every desktop it started on the host's engine.
 * It needs root (the swarm's namespaces and daemons) and the image; without them, or with a
 * swarm already up, it prints why and measures nothing.
 * Run alone: `npx node --import tsx bench/fleet-swarm.ts [--quick]`; `npm run bench` runs it
 * after bench/fleet.ts (not with --smoke: the swarm's three image loads take minutes).
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import Docker from 'dockerode'
import type { Backend } from '../fleet/backends/backend.ts'
import { DockerBackend } from '../fleet/backends/docker/docker-backend.ts'
import { SwarmBackend } from '../fleet/backends/swarm/swarm-backend.ts'
import { buildFleetApp } from '../fleet/app.ts'
import { DEFAULT_IMAGE } from '../fleet/config.ts'
import { Fleet } from '../fleet/fleet.ts'
import { healthReady } from '../fleet/probe.ts'
import { warmUp } from '../fleet/warm-up.ts'
import { percentile } from './percentile.ts'

export interface FleetSwarmBench {
  image: string
  oneEngineMs: { p50: number, p99: number, n: number }
  acrossNodesMs: { p50: number, p99: number, n: number, nodes: number }
  /** across nodes p50 ÷ one engine p50. */
  ratio: number
}

const SWARM = new URL('../scripts/swarm.sh', import.meta.url).pathname
const SWARM_DIR = '/tmp/cgsw-swarm'
const READY_MS = 300_000
const DESKTOP = { cpus: 1, memoryBytes: 1024 * 1024 * 1024, pids: 1024 }

const swarm = (command: 'up' | 'down') => new Promise<{ ok: boolean, stdout: string, stderr: string }>((resolve) => {
  execFile('bash', [SWARM, command], { timeout: 10 * 60_000, killSignal: 'SIGKILL', env: { ...process.env, SWARM_DIR }, maxBuffer: 16e6 },
    (error, stdout, stderr) => resolve({ ok: !error, stdout: String(stdout), stderr: String(stderr) }))
})

/** Claims every warm desktop `rounds` times on a fleet over `backend`; each claim's ms to its first action, and the hosts the desktops ran on. */
async function claimsOn (backend: Backend, warm: number, rounds: number): Promise<{ ms: number[], hosts: Set<string> }> {
  const key = randomBytes(24).toString('hex')
  const fleet = new Fleet({ backend, warm, max: warm, screen: { width: 1280, height: 800 }, desktop: 'minimal', probe: healthReady, warmUp, startTimeoutMs: READY_MS, sweepMs: 2000 })
  const app = await buildFleetApp({ fleet, token: key })
  try {
    await fleet.start()
    await app.listen({ host: '127.0.0.1', port: 0 })
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    const send = async (method: string, path: string, json?: unknown) => {
      const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, signal: AbortSignal.timeout(60_000) }
      const response = await fetch(`${origin}${path}`, json === undefined ? { ...init, headers: { authorization: `Bearer ${key}` } } : { ...init, body: JSON.stringify(json) })
      return { status: response.status, json: await response.json().catch(() => undefined) as { id?: string, url?: string } | undefined }
    }
    // The app's first request compiles its schemas: not timed.
    await send('GET', '/desktops')
    const ms: number[] = []
    const hosts = new Set<string>()
    for (let round = 0; round < rounds; round++) {
      for (const deadline = Date.now() + READY_MS; !fleet.health().ready; await delay(200)) {
        if (Date.now() > deadline) throw new Error(`the warm pool was not ready within ${READY_MS / 1000} s`)
      }
      const held: string[] = []
      while (held.length < warm) {
        const t0 = performance.now()
        const claimed = await send('POST', '/desktops', {})
        if (claimed.status !== 201 || !claimed.json?.id) throw new Error(`POST /desktops answered ${claimed.status}`)
        const acted = await send('POST', `/desktops/${claimed.json.id}/computer`, { action: 'get_cursor_position' })
        if (acted.status !== 200) throw new Error(`the first action answered ${acted.status}`)
        ms.push(performance.now() - t0)
        held.push(claimed.json.id)
        if (claimed.json.url) hosts.add(new URL(claimed.json.url).hostname)
      }
      for (const id of held) await send('DELETE', `/desktops/${id}`)
    }
    return { ms, hosts }
  } finally {
    await app.close()
    await fleet.close(true).catch((error: Error) => console.log(`fleet across nodes: could not remove every desktop: ${error.message}`))
  }
}

const summary = (ms: number[]) => ({ p50: percentile(ms, 50), p99: percentile(ms, 99), n: ms.length })

export async function benchFleetSwarm ({ quick = false } = {}): Promise<FleetSwarmBench | undefined> {
  const image = process.env.BENCH_FLEET_IMAGE ?? DEFAULT_IMAGE
  const skip = (why: string) => { console.log(`fleet across nodes: skipped: ${why}`); return undefined }
  if (process.getuid?.() !== 0) return skip('needs root (scripts/swarm.sh makes network namespaces and runs three dockerd)')
  if (existsSync(SWARM_DIR)) return skip(`${SWARM_DIR} exists: a swarm is up (scripts/swarm.sh down ends it)`)
  const fleetId = `bench-sw-${process.pid}-${randomBytes(3).toString('hex')}`
  const host = new DockerBackend({ fleetId, image, ...DESKTOP })
  try {
    await host.docker.getImage(image).inspect()
  } catch (error) {
    return skip(`the engine has no image ${image}, or no engine answers (${(error as Error).message})`)
  }
  const warm = quick ? 2 : 3
  const rounds = quick ? 2 : 4

  const one = summary((await claimsOn(host, warm, rounds)).ms)
  const up = await swarm('up')
  try {
    if (!up.ok) return skip(`scripts/swarm.sh up failed: ${up.stderr.slice(-500)}`)
    const socketPath = /DOCKER_HOST=unix:\/\/(\S+)/.exec(up.stdout)![1]!
    const across = await claimsOn(new SwarmBackend({ fleetId, image, ...DESKTOP, docker: new Docker({ socketPath }) }), warm, rounds)
    const acrossNodesMs = { ...summary(across.ms), nodes: across.hosts.size }
    const ratio = acrossNodesMs.p50 / one.p50
    console.log(`fleet across nodes (${image}, minimal desktops, the fleet in this process; ${one.n} claims on one engine, ${acrossNodesMs.n} on a three-node swarm):`)
    console.log(`  claim → first action, one Docker engine        p50 ${one.p50.toFixed(1)} ms   p99 ${one.p99.toFixed(1)} ms`)
    console.log(`  claim → first action, across ${acrossNodesMs.nodes} swarm nodes     p50 ${acrossNodesMs.p50.toFixed(1)} ms   p99 ${acrossNodesMs.p99.toFixed(1)} ms`)
    console.log(`  across nodes ÷ one engine (p50)                ${ratio.toFixed(2)}`)
    return { image, oneEngineMs: one, acrossNodesMs, ratio }
  } finally {
    const down = await swarm('down')
    if (!down.ok) console.log(`fleet across nodes: scripts/swarm.sh down failed: ${down.stderr.slice(-500)}`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchFleetSwarm({ quick: process.argv.includes('--quick') })
}
