/**
 * The fleet as a Swarm service (deploy/fleet.swarm.yaml, `docker stack deploy`) with --backend
 * swarm, on a real three-node Docker Swarm on this machine (scripts/swarm.sh up: three dockerd,
 * each in a network namespace of its own, all managers, the desktop image loaded on each).
 * Clients reach it through a balancer over the managers' fleet port that follows GET /health
 * (health-balancer.ts), as the stack file asks. The `scrapybara` SDK from npm, unchanged,
 * pointed at it: startUbuntu → a screenshot through computer and one through screenshot → stop
 * (its service gone). The pool's desktops land on different nodes. Two instances started; then
 * the node that runs the fleet's replica is lost (its dockerd SIGKILLed and its link cut, as a
 * dead host) → within a bounded time a replica on another manager answers for the same ids (get,
 * a screenshot, an action), reports the lost node's instance terminated, and refills the pool
 * once, on the nodes that remain.
 *
 * Minimal desktops (a window manager only), three at most: CI has 2 cores. `scripts/swarm.sh
 * down` runs on every path (tap's teardown, SIGINT, SIGTERM) and is asserted to leave nothing.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import Docker from 'dockerode'
import sharp from 'sharp'
import t from 'tap'
import { ScrapybaraClient, UbuntuInstance } from 'scrapybara'
import { run } from './engine.ts'
import { healthBalancer, type HealthBalancer } from './health-balancer.ts'
import { DEFAULT_IMAGE } from '../../fleet/config.ts'
import { LABEL } from '../../fleet/backends/docker/labels.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const SWARM_DIR = '/tmp/cgsw-swarm'
const SWARM = ['scripts/swarm.sh']
const FLEET_ID = `sw-${process.pid}-${randomBytes(3).toString('hex')}`
const KEY = randomBytes(24).toString('hex')
/** The image on every node, the fleet's and its desktops'; FLEET_TEST_IMAGE names another only to run against it by hand. */
const IMAGE = process.env.FLEET_TEST_IMAGE ?? DEFAULT_IMAGE
const STACK = 'cgsw-fleet'
const SERVICE = `${STACK}_fleet`
const SECRET = 'computer-gateway-fleet-token'
/** The fleet's port on each manager's address (the nodes' namespaces hold nothing else there). */
const FLEET_PORT = 8100
/**
 * How long the fleet may take to answer again after its node is lost: the swarm marks the node
 * down (~15 s, more when it was the Raft leader and a new one is elected first), starts the
 * replica on another manager, which adopts and answers; the balancer probes every 0.5 s.
 */
const FAILOVER_WITHIN_MS = 120_000

// Removing three engines' data roots (the image's layers three times) takes minutes on busy disks.
const down = () => run('bash', [...SWARM, 'down'], { env: { SWARM_DIR }, timeoutMs: 10 * 60_000 })
let balancer: HealthBalancer | undefined
t.teardown(async () => {
  await balancer?.close()
  await down()
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { void down().finally(() => process.exit(1)) })

/** What the swarm leaves on the host: links, namespaces, the FORWARD rule, its nodes' cgroups, its directory, processes and mounts under it. */
async function leftovers (): Promise<string[]> {
  const links = (await run('ip', ['-o', 'link', 'show'])).stdout.split('\n').filter((line) => /: cgsw/.test(line)).map((line) => line.split(':')[1]!.trim())
  const namespaces = (await run('ip', ['netns', 'list'])).stdout.split('\n').filter((line) => line.startsWith('cgsw'))
  const rule = (await run('iptables', ['-C', 'FORWARD', '-i', 'cgsw-br', '-o', 'cgsw-br', '-j', 'ACCEPT'])).code === 0 ? ['the FORWARD rule'] : []
  const processes = (await run('pgrep', ['-f', `[/]tmp/cgsw-swarm/`])).stdout.split('\n').filter(Boolean).map((pid) => `process ${pid}`)
  const mounts = readFileSync('/proc/self/mounts', 'utf8').split('\n').filter((line) => line.split(' ')[1]?.startsWith(`${SWARM_DIR}/`))
  const cgroups = (await run('find', ['/sys/fs/cgroup', '-maxdepth', '2', '-type', 'd', '-name', 'cgsw[0-9]*'])).stdout.split('\n').filter(Boolean)
  return [...links, ...namespaces, ...rule, ...processes, ...mounts, ...cgroups, ...(existsSync(SWARM_DIR) ? [SWARM_DIR] : [])]
}


t.test('the fleet as a service on a three-node Docker Swarm: the Scrapybara SDK, placement across nodes, the fleet\'s node lost and another replica serving', { timeout: 15 * 60_000 }, async (t) => {
  const inspected = await run('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE])
  if (!t.equal(inspected.code, 0, `${IMAGE} exists (built by test/docker/images.ts in this run): ${inspected.stderr}`)) return
  // A swarm left by a run that was SIGKILLed is ended first.
  await down()
  const started = Date.now()
  const up = await run('bash', [...SWARM, 'up'], { env: { SWARM_DIR, SWARM_IMAGE: IMAGE }, timeoutMs: 8 * 60_000 })
  if (!t.equal(up.code, 0, `scripts/swarm.sh up (${up.stderr.slice(-2000)})`)) return
  t.comment(`the swarm up, the image on three nodes, in ${Math.round((Date.now() - started) / 1000)} s`)
  const hosts = Object.fromEntries(up.stdout.split(/\s+/).filter((pair) => pair.includes('=')).map((pair) => { const at = pair.indexOf('='); return [pair.slice(0, at), pair.slice(at + 1)] }))
  const numbers = [1, 2, 3]
  const engines = new Map(numbers.map((n) => [n, new Docker({ socketPath: hosts[`SWARM_NODE${n}_HOST`]!.replace('unix://', '') })]))
  const lost = new Set<number>()
  /** A manager of a node still alive: every engine read goes through one. */
  const manager = () => engines.get(numbers.find((n) => !lost.has(n))!)!
  const nodes = await manager().listNodes() as { ID: string, Spec: { Role: string }, Status: { Addr: string, State: string } }[]
  t.strictSame(nodes.map((n) => [n.Spec.Role, n.Status.State]), [['manager', 'ready'], ['manager', 'ready'], ['manager', 'ready']], 'three nodes, all managers, all ready')
  const nodeOfAddr = new Map(nodes.map((n) => [n.Status.Addr, n.ID]))
  const numberOf = (nodeId: string) => numbers.find((n) => nodeOfAddr.get(hosts[`SWARM_NODE${n}_ADDR`]!) === nodeId)!
  const addrOf = (n: number) => hosts[`SWARM_NODE${n}_ADDR`]!

  /** The fleet's log without its requests (the balancer's health probes would fill it). */
  const serviceLog = async () => (await run('docker', ['-H', hosts[`SWARM_NODE${numbers.find((n) => !lost.has(n))}_HOST`]!, 'service', 'logs', '--raw', '--tail', '400', SERVICE], { timeoutMs: 20_000 }))
    .stdout.split('\n').filter((line) => !/"reqId"/.test(line)).join('\n').slice(-3000)
  /** Polls check() every half second until it holds or the deadline passes; then fails with the fleet's log. */
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 180_000) => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return true
      await delay(500)
    }
    t.fail(`${what}: not within ${timeoutMs / 1000} s (the fleet's log: ${await serviceLog()})`)
    return false
  }

  /** Every desktop service of this fleet and the node its running task is on. */
  const placement = async () => {
    const services = await manager().listServices({ filters: { label: [`${LABEL.fleet}=${FLEET_ID}`] } })
    const tasks = await manager().listTasks({ filters: { 'desired-state': ['running'] } }) as { ServiceID: string, NodeID: string, Status: { State: string } }[]
    return new Map(services.map((s) => [s.Spec!.Labels![LABEL.id]!, tasks.find((task) => task.ServiceID === s.ID && task.Status.State === 'running')?.NodeID]))
  }
  /** The nodes (by number) that run a task of the fleet's own service ('starting' until the image's health check first passes). */
  const fleetNodes = async () => {
    const tasks = await manager().listTasks({ filters: { service: [SERVICE], 'desired-state': ['running'] } }) as { NodeID: string, Status: { State: string } }[]
    return tasks.filter((task) => ['starting', 'running'].includes(task.Status.State)).map((task) => numberOf(task.NodeID))
  }

  // The fleet as the stack file runs it: its key a Swarm secret, the desktops small (CI has 2 cores).
  await manager().createSecret({ Name: SECRET, Data: Buffer.from(KEY).toString('base64') } as never)
  const deployed = await run('docker', ['-H', hosts.DOCKER_HOST!, 'stack', 'deploy', '-c', 'deploy/fleet.swarm.yaml', STACK], {
    timeoutMs: 60_000,
    env: {
      DOCKER_GID: String((await run('stat', ['-c', '%g', hosts.DOCKER_HOST!.replace('unix://', '')])).stdout),
      FLEET_DOCKER_SOCKET: hosts.SWARM_SOCKET_TEMPLATE!,
      FLEET_ID, FLEET_IMAGE: IMAGE, FLEET_PORT: String(FLEET_PORT), FLEET_DESKTOP: 'minimal', FLEET_WARM: '2', FLEET_MAX: '4',
      FLEET_CPUS: '0.5', FLEET_MEMORY_MB: '1024', FLEET_START_TIMEOUT: '120', FLEET_ON_EXIT: 'end',
    },
  })
  if (!t.equal(deployed.code, 0, `docker stack deploy (${deployed.stderr.slice(-1000)})`)) return
  balancer = await healthBalancer(numbers.map((n) => `${addrOf(n)}:${FLEET_PORT}`))
  const base = balancer.url
  const health = async () => await (await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) })).json() as { ready: boolean, warm: { ready: number }, desktops: number }
  if (!await until('the fleet\'s replica answering and its pool ready', async () => (await health()).warm.ready === 2)) return
  const [fleetNode, ...others] = await fleetNodes()
  t.strictSame(others, [], `one replica of the fleet, on node ${fleetNode}`)
  t.equal(balancer.target(), `${addrOf(fleetNode!)}:${FLEET_PORT}`, 'the balancer sends clients to the manager that runs it')

  // The pool's two desktops run on two different nodes.
  const pool = await placement()
  t.equal(pool.size, 2, 'two desktop services')
  t.equal(new Set(pool.values()).size, 2, `on two different nodes (${[...pool.values()].map((n) => n && numberOf(n)).join(', ')})`)

  // The SDK's lifecycle through the fleet's service.
  const client = new ScrapybaraClient({ apiKey: KEY, environment: base })
  const instance = await client.startUbuntu({ timeoutHours: 1 })
  t.type(instance, UbuntuInstance)
  t.equal(instance.status, 'running', 'a warm desktop, claimed: running at once')
  const { id } = instance
  const viaComputer = await instance.computer({ action: 'take_screenshot' })
  t.match(await sharp(Buffer.from(viaComputer.base64Image!, 'base64')).metadata(), { format: 'png', width: 1280, height: 800 }, 'computer take_screenshot: a PNG of the desktop on its node')
  const shot = await instance.screenshot()
  t.match(await sharp(Buffer.from(shot.base64Image, 'base64')).metadata(), { format: 'png', width: 1280, height: 800 }, 'screenshot: a PNG at 1280x800')
  t.strictSame(await instance.stop(), { status: 'terminated' }, 'stop')
  t.notOk((await placement()).has(id), "the instance's service is gone")

  // Two instances held by clients; the pool refills beside them.
  if (!await until('the pool refilled after the stop', async () => (await health()).warm.ready === 2)) return
  const held = [await client.startUbuntu({ timeoutHours: 1 }), await client.startUbuntu({ timeoutHours: 1 })]
  if (!await until('four desktops placed and the pool ready', async () => (await health()).warm.ready === 2 && (await placement()).size === 4 && [...(await placement()).values()].every(Boolean))) return
  const placed = await placement()
  const nodeOfHeld = held.map((i) => numberOf(placed.get(i.id)!))
  // Each desktop is a service of its own, which Swarm places by the nodes' task counts at that
  // moment: the four spread over the nodes, but two given ones may share one.
  const nodesUsed = new Set([...placed.values()].map((node) => numberOf(node!)))
  t.ok(nodesUsed.size >= 2, `the desktops on ${nodesUsed.size} nodes (held on ${nodeOfHeld.join(', ')}, pool on ${[...placed.entries()].filter(([d]) => !held.some((i) => i.id === d)).map(([, n]) => numberOf(n!)).join(', ')}; the fleet on ${fleetNode})`)
  const lostNodeId = [...nodeOfAddr.values()].find((n) => numberOf(n) === fleetNode)!
  const poolBefore = [...placed.entries()].filter(([d]) => !held.some((i) => i.id === d))
  const poolKept = poolBefore.filter(([, n]) => n !== lostNodeId).length

  // The fleet's node is lost: its daemon dies without a word and its link is cut. Its containers
  // (the old replica among them) keep running, unreachable, as on a dead host.
  const lostAt = Date.now()
  lost.add(fleetNode!)
  process.kill(Number(readFileSync(`${SWARM_DIR}/node${fleetNode}/docker.pid`, 'utf8')), 'SIGKILL')
  const cut = await run('ip', ['link', 'set', `cgsw-h${fleetNode}`, 'down'])
  t.equal(cut.code, 0, `node ${fleetNode}'s link cut (${cut.stderr})`)
  if (!await until('another replica answering', async () => Boolean(balancer!.target()) && balancer!.target() !== `${addrOf(fleetNode!)}:${FLEET_PORT}` && (await health()).ready !== undefined, FAILOVER_WITHIN_MS)) return
  const failoverS = Math.round((Date.now() - lostAt) / 1000)
  t.comment(`node ${fleetNode} lost: the fleet answered again from ${balancer.target()} after ${failoverS} s`)
  t.strictSame(await fleetNodes(), [numberOf(nodeOfAddr.get(balancer.target()!.split(':')[0]!)!)], 'one replica runs, on the node the balancer found answering')

  // It adopted every desktop: the same ids answer, those on live nodes running (once the new replica probed them ready) and acting, the lost node's terminated.
  const live = held.filter((_, index) => nodeOfHeld[index] !== fleetNode)
  if (!await until('the adopted instances probed ready', async () => (await Promise.all(live.map(async (i) => (await client.get(i.id)).status))).every((status) => status === 'running'), 60_000)) return
  for (const [index, held1] of held.entries()) {
    if (nodeOfHeld[index] === fleetNode) {
      t.match(await client.get(held1.id), { id: held1.id, status: 'terminated' }, `instance ${held1.id} on the lost node ${fleetNode}: terminated`)
      continue
    }
    t.match(await client.get(held1.id), { id: held1.id, status: 'running' }, `instance ${held1.id} on node ${nodeOfHeld[index]}: running, served by the new replica`)
    t.match(await sharp(Buffer.from((await held1.screenshot()).base64Image, 'base64')).metadata(), { format: 'png', width: 1280, height: 800 }, 'its screenshot through the new replica')
    t.match(await held1.computer({ action: 'get_cursor_position' }), { error: null }, 'and it acts')
  }

  // The pool refills once, on the nodes that remain: exactly the lost pool desktops are started again.
  if (!await until('the pool refilled on the remaining nodes', async () => (await health()).warm.ready === 2, 180_000)) return
  await delay(4000)
  const services = await manager().listServices({ filters: { label: [`${LABEL.fleet}=${FLEET_ID}`] } })
  const startedAfter = services.filter((s) => Date.parse(s.CreatedAt!) > lostAt).length
  t.equal(startedAfter, 2 - poolKept, `the pool refilled once: ${2 - poolKept} desktop(s) started after the loss (${poolKept} of the pool kept)`)
  t.equal((await health()).warm.ready, 2, 'and it stays at two warm desktops')
  t.equal(services.length, live.length + 2, `${services.length} desktop services: the ${live.length} held on live nodes and a pool of two, not two pools`)
  t.equal((await manager().listNodes() as { Status: { State: string } }[]).filter((n) => n.Status.State === 'down').length, 1, 'the swarm holds the lost node down')
  const after = await placement()
  t.notOk([...after.values()].some((n) => n === lostNodeId), `no desktop left on node ${fleetNode} (${[...after.entries()].map(([d, n]) => `${d}@${n ? numberOf(n) : '-'}`).join(', ')})`)

  // The stack removed: its replica ends every desktop first (FLEET_ON_EXIT=end), as one would on leaving.
  const removed = await run('docker', ['-H', hosts[`SWARM_NODE${numbers.find((n) => !lost.has(n))}_HOST`]!, 'stack', 'rm', STACK], { timeoutMs: 60_000 })
  t.equal(removed.code, 0, `docker stack rm (${removed.stderr})`)
  if (!await until('every desktop service removed by the leaving replica', async () => (await placement()).size === 0, 90_000)) return
  await manager().getSecret(SECRET).remove().catch(() => {})
  await balancer.close()
  balancer = undefined

  // down ends the swarm, the lost node's orphans included, and leaves nothing; a second down is a no-op.
  const first = await down()
  t.equal(first.code, 0, `swarm.sh down (${first.stderr.slice(-1000)})`)
  t.strictSame(await leftovers(), [], 'nothing of the swarm is left')
  const again = await down()
  t.strictSame([again.code, await leftovers()], [0, []], 'a second down succeeds and changes nothing')
  t.comment(`the whole run: ${Math.round((Date.now() - started) / 1000)} s`)
})
