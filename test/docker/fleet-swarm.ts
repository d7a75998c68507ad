/**
 * The fleet with --backend swarm on a real three-node Docker Swarm on this machine
 * (scripts/swarm.sh up: three dockerd, each in a network namespace of its own, the desktop image
 * loaded on each). The `scrapybara` SDK from npm, unchanged, pointed at the fleet: startUbuntu →
 * a screenshot through computer and one through screenshot → stop (its service gone). The pool's
 * desktops land on different nodes. Two instances started; the daemon of a node (not the
 * manager's) that runs one of them is SIGKILLed → that instance is reported terminated within a
 * bounded time, and the pool refills on the nodes that remain.
 *
 * Minimal desktops (a window manager only), three at most: CI has 2 cores. `scripts/swarm.sh
 * down` runs on every path (tap's teardown, SIGINT, SIGTERM) and is asserted to leave nothing.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import Docker from 'dockerode'
import sharp from 'sharp'
import t from 'tap'
import { ScrapybaraClient, UbuntuInstance } from 'scrapybara'
import { freePort } from '../helpers/net.ts'
import { pollFleet, run } from './engine.ts'
import { DEFAULT_IMAGE } from '../../fleet/config.ts'
import { LABEL } from '../../fleet/backends/docker/labels.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const SWARM_DIR = '/tmp/cgsw-swarm'
const SWARM = ['scripts/swarm.sh']
const FLEET_ID = `sw-${process.pid}-${randomBytes(3).toString('hex')}`
const KEY = randomBytes(24).toString('hex')
/** How long a lost node's desktop may take to be reported: the swarm's heartbeat marks the node down (~15 s), the fleet reads it within 2 s. */
const LOST_WITHIN_MS = 90_000

// Removing three engines' data roots (the image's layers three times) takes minutes on busy disks.
const down = () => run('bash', [...SWARM, 'down'], { env: { SWARM_DIR }, timeoutMs: 10 * 60_000 })
let fleetChild: ReturnType<typeof spawn> | undefined
t.teardown(async () => {
  if (fleetChild && fleetChild.exitCode === null && fleetChild.signalCode === null) fleetChild.kill('SIGKILL')
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

t.test('the fleet on a three-node Docker Swarm: the Scrapybara SDK, placement across nodes, a node lost and the pool refilled', { timeout: 15 * 60_000 }, async (t) => {
  const inspected = await run('docker', ['image', 'inspect', '-f', '{{.Id}}', DEFAULT_IMAGE])
  if (!t.equal(inspected.code, 0, `${DEFAULT_IMAGE} exists (built by test/docker/images.ts in this run): ${inspected.stderr}`)) return
  // A swarm left by a run that was SIGKILLed is ended first.
  await down()
  const started = Date.now()
  const up = await run('bash', [...SWARM, 'up'], { env: { SWARM_DIR }, timeoutMs: 8 * 60_000 })
  if (!t.equal(up.code, 0, `scripts/swarm.sh up (${up.stderr.slice(-2000)})`)) return
  t.comment(`the swarm up, the image on three nodes, in ${Math.round((Date.now() - started) / 1000)} s`)
  const hosts = Object.fromEntries(up.stdout.split(/\s+/).filter((pair) => pair.includes('=')).map((pair) => pair.split('=') as [string, string]))
  const manager = new Docker({ socketPath: hosts.DOCKER_HOST!.replace('unix://', '') })
  const nodes = await manager.listNodes() as { ID: string, Status: { Addr: string, State: string } }[]
  t.strictSame(nodes.map((n) => n.Status.State), ['ready', 'ready', 'ready'], 'three nodes, all ready')
  const nodeOfAddr = new Map(nodes.map((n) => [n.Status.Addr, n.ID]))
  const numberOf = (nodeId: string) => [1, 2, 3].find((n) => nodeOfAddr.get(hosts[`SWARM_NODE${n}_ADDR`]!) === nodeId)!

  /** Every desktop service of this fleet and the node its running task is on. */
  const placement = async () => {
    const services = await manager.listServices({ filters: { label: [`${LABEL.fleet}=${FLEET_ID}`] } })
    const tasks = await manager.listTasks({ filters: { 'desired-state': ['running'] } }) as { ServiceID: string, NodeID: string, Status: { State: string } }[]
    return new Map(services.map((s) => [s.Spec!.Labels![LABEL.id]!, tasks.find((task) => task.ServiceID === s.ID && task.Status.State === 'running')?.NodeID]))
  }

  const port = await freePort()
  let log = ''
  fleetChild = spawn(process.execPath, ['--import', 'tsx', 'fleet/main.ts', '--backend', 'swarm', '--fleet-id', FLEET_ID, '--image', DEFAULT_IMAGE, '--desktop', 'minimal',
    '--warm', '2', '--max', '3', '--port', String(port), '--cpus', '0.5', '--memory', '1024', '--start-timeout', '120', '--on-exit', 'end'], {
    cwd: ROOT,
    env: { ...process.env, API_TOKEN: KEY, LOG_LEVEL: 'warn', DOCKER_HOST: hosts.DOCKER_HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const child = fleetChild
  child.stdout!.on('data', (chunk) => { log += chunk })
  child.stderr!.on('data', (chunk) => { log += chunk })
  const base = `http://127.0.0.1:${port}`
  const until = (what: string, check: () => Promise<boolean>, timeoutMs?: number) => pollFleet(t, { child: () => child, log: () => log }, what, check, timeoutMs)
  const health = async () => await (await fetch(`${base}/health`)).json() as { ready: boolean, warm: { ready: number }, desktops: number }
  if (!await until('the pool ready', async () => (await health()).warm.ready === 2)) return

  // The pool's two desktops run on two different nodes.
  const pool = await placement()
  t.equal(pool.size, 2, 'two desktop services')
  t.equal(new Set(pool.values()).size, 2, `on two different nodes (${[...pool.values()].map((n) => n && numberOf(n)).join(', ')})`)

  // The SDK's lifecycle through the fleet on the swarm.
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

  // Two instances held by clients, on two nodes; the third node may hold the pool's desktop.
  if (!await until('the pool refilled after the stop', async () => (await health()).warm.ready === 2)) return
  const a = await client.startUbuntu({ timeoutHours: 1 })
  const b = await client.startUbuntu({ timeoutHours: 1 })
  if (!await until('every desktop placed', async () => [...(await placement()).values()].every(Boolean) && (await placement()).size === 3)) return
  const placed = await placement()
  t.equal(new Set(placed.values()).size, 3, `three desktops on three nodes (${[...placed.entries()].map(([d, n]) => `${d}@${numberOf(n!)}`).join(', ')})`)
  const managerId = nodeOfAddr.get(hosts.SWARM_NODE1_ADDR!)
  const victim = [a, b].find((i) => placed.get(i.id) !== managerId)!
  const survivor = victim === a ? b : a
  const lostNode = numberOf(placed.get(victim.id)!)

  // The node's daemon dies without a word; its containers keep running, unreachable to the swarm, as on a dead host.
  const lostAt = Date.now()
  const pid = Number(readFileSync(`${SWARM_DIR}/node${lostNode}/docker.pid`, 'utf8'))
  process.kill(pid, 'SIGKILL')
  if (!await until(`instance ${victim.id} on node ${lostNode} reported terminated`, async () => (await client.get(victim.id)).status === 'terminated', LOST_WITHIN_MS)) return
  t.comment(`node ${lostNode} lost: its desktop reported terminated after ${Math.round((Date.now() - lostAt) / 1000)} s`)
  t.match(await client.get(survivor.id), { id: survivor.id, status: 'running' }, 'the instance on a live node still runs')
  t.match(await survivor.computer({ action: 'get_cursor_position' }), { error: null }, 'and acts')

  // The pool refills on the nodes that remain: none is placed on the lost one.
  if (!await until('the pool refilled on the remaining nodes', async () => (await health()).warm.ready === 2, 180_000)) return
  t.equal((await manager.listNodes() as { Status: { State: string } }[]).filter((n) => n.Status.State === 'down').length, 1, 'the swarm holds the lost node down')
  const after = await placement()
  const lostId = [...nodeOfAddr.values()].find((n) => numberOf(n) === lostNode)
  t.notOk([...after.entries()].some(([d, n]) => d !== victim.id && n === lostId), `no live desktop on node ${lostNode} (${[...after.entries()].map(([d, n]) => `${d}@${n ? numberOf(n) : '-'}`).join(', ')})`)

  child.kill('SIGTERM')
  const [code] = await Promise.race([once(child, 'exit'), delay(60_000).then(() => ['timeout'])])
  t.equal(code, 0, `the fleet exited cleanly (${log.slice(-2000)})`)
  t.strictSame([...(await placement()).keys()], [], '--on-exit end removed every service, the lost node\'s too')

  // down ends the swarm, the killed node's orphans included, and leaves nothing; a second down is a no-op.
  const first = await down()
  t.equal(first.code, 0, `swarm.sh down (${first.stderr.slice(-1000)})`)
  t.strictSame(await leftovers(), [], 'nothing of the swarm is left')
  const again = await down()
  t.strictSame([again.code, await leftovers()], [0, []], 'a second down succeeds and changes nothing')
})
