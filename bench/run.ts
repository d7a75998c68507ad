/**
 * npm run bench — our server (nut driver) side by side with the approaches users would
 * otherwise pick, on one Xvfb, in one run, interleaved (A B C D A B C D …) so drift hits all
 * alike, printed as p50/p95 and ratios; then, ours alone, accessibility snapshots of Chromium
 * showing the test page. `--quick` runs a short version; `--smoke` the shortest, which the
 * test suite runs so the bench cannot rot; `--out FILE` writes the JSON elsewhere.
 * `--only peers,density` runs just those parts (the peers, bench/peers/peers.ts; the density
 * through the fleet, bench/fleet-density.ts), in that order, with the same quiet-machine gate:
 * the one command for their final run on a quiet machine.
 */
import { execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { readBusAddress } from '../drivers/atspi/root-address.ts'
import { startXvfb } from '../drivers/x11/xvfb.ts'
import { chromiumBinary, spawnOwned, stopOwned } from '../test/helpers/processes.ts'
import { client } from './http-client.ts'
import { freePort, root, startOurs, waitHttp } from './servers.ts'
import { benchScreens } from './screens.ts'
import { backToBack, httpProbe, xtestProbe, type FloorProbe } from './floor.ts'
import { mcpBench } from './mcp.ts'
import { percentile } from './percentile.ts'
import { requireQuiet } from './quiet.ts'

const smoke = process.argv.includes('--smoke')
const quick = smoke || process.argv.includes('--quick')
const ITERATIONS = smoke ? 1 : quick ? 3 : 30
const KIND_BUDGET_MS = smoke ? 400 : quick ? 1500 : 6000
const THROUGHPUT_MS = smoke ? 300 : quick ? 1000 : 10_000
const SNAPSHOTS = smoke ? 2 : quick ? 5 : 30
const FLOOR_SAMPLES = smoke ? 20 : quick ? 300 : 2000
/** The parts `--only` may name, in the order they run. */
const ONLY_PARTS = ['peers', 'density'] as const
const onlyIndex = process.argv.indexOf('--only')
const ONLY = onlyIndex > 0 ? (process.argv[onlyIndex + 1] ?? '').split(',').filter(Boolean) : undefined
if (ONLY !== undefined && (ONLY.length === 0 || ONLY.some((part) => !(ONLY_PARTS as readonly string[]).includes(part)))) {
  console.error(`--only takes a comma-separated list of ${ONLY_PARTS.join(', ')} (got ${JSON.stringify(process.argv[onlyIndex + 1] ?? '')})`)
  process.exit(2)
}
const outIndex = process.argv.indexOf('--out')
const OUT = outIndex > 0
  ? new URL(process.argv[outIndex + 1]!, `file://${process.cwd()}/`)
  : new URL(ONLY ? `./results/${ONLY.join('-')}.json` : './results/latest.json', import.meta.url)

interface Server { name: string, port: number, process: ChildProcess }

function startBaseline (mode: string, display: string, port: number): ChildProcess {
  return spawnOwned(undefined, process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./baseline-server.ts', import.meta.url)), mode, String(port)], {
    cwd: root, env: { ...process.env, DISPLAY: display }, stdio: 'ignore',
  })
}

const point = (i: number): [number, number] => [200 + (i * 37) % 800, 150 + (i * 53) % 500]
/** The input actions: their floor is one empty HTTP POST plus one XTest request with a reply. */
const INPUT_KINDS = new Set(['move', 'click', 'double click', 'key combo ctrl+a', 'type 20 ASCII', 'type 20 non-ASCII', 'scroll 3 notches', 'drag 10 points', 'batch of 10'])
/** Each input action at most this many times its floor (p50). */
const FLOOR_RATIO = 3
const kinds: Array<{ name: string, path: string, body: (i: number) => unknown }> = [
  { name: 'move', path: '/computer', body: (i) => ({ action: 'move_mouse', coordinates: point(i) }) },
  { name: 'click', path: '/computer', body: (i) => ({ action: 'click_mouse', button: 'left', coordinates: point(i) }) },
  { name: 'double click', path: '/computer', body: (i) => ({ action: 'click_mouse', button: 'left', coordinates: point(i), num_clicks: 2 }) },
  { name: 'key combo ctrl+a', path: '/computer', body: () => ({ action: 'press_key', keys: ['ctrl', 'a'] }) },
  { name: 'type 20 ASCII', path: '/computer', body: () => ({ action: 'type_text', text: 'abcdefghij0123456789' }) },
  { name: 'type 20 non-ASCII', path: '/computer', body: () => ({ action: 'type_text', text: 'éèêëàâäôöûüçñßøåæœ€£' }) },
  // More distinct characters off the keymap than spare keycodes (32): each call rebinds at least
  // once, after the xterm has handled the keys of the binding before (its redraw of an Expose).
  { name: 'type 40 non-ASCII, a rebind', path: '/computer', body: () => ({ action: 'type_text', text: 'абвгдежзийклмнопрстуфхцчшщъыьэюяαβγδεζηθ' }) },
  { name: 'scroll 3 notches', path: '/computer', body: (i) => ({ action: 'scroll', coordinates: point(i), delta_y: 3 }) },
  { name: 'drag 10 points', path: '/computer', body: (i) => ({ action: 'drag_mouse', path: Array.from({ length: 10 }, (_, k) => point(i + k)) }) },
  { name: 'screenshot 1280x800', path: '/computer', body: () => ({ action: 'take_screenshot' }) },
  { name: 'screenshot → 1024x768', path: '/computer?display_width_px=1024&display_height_px=768', body: () => ({ action: 'take_screenshot' }) },
  { name: 'batch of 10', path: '/computer/batch', body: (i) => ({ actions: Array.from({ length: 10 }, (_, k) => ({ action: 'move_mouse', coordinates: point(i + k) })) }) },
]

/**
 * Each kind's requests, interleaved across the servers; after each round, one sample of the
 * input floor (an empty POST plus an XTest round trip) in the same conditions: a request that
 * follows others' (a baseline's 100 ms click) finds its processes asleep, and on a VM waking
 * each costs far more than the back-to-back floor shows, so each row gets a floor measured as it was.
 */
async function latency (servers: Server[], floor: { http: FloorProbe, xtest: FloorProbe }) {
  const clients = servers.map((s) => client(s.port))
  const rows: Array<{ kind: string, results: Record<string, { p50: number, p95: number, n: number }>, floor: { p50: number, n: number } }> = []
  for (const kind of kinds) {
    const samples = servers.map(() => [] as number[])
    const floors: number[] = []
    const spent = servers.map(() => 0)
    for (let i = 0; i < ITERATIONS; i++) {
      for (const [s, http] of clients.entries()) {
        if (samples[s]!.length >= 2 && spent[s]! > KIND_BUDGET_MS) continue
        const started = performance.now()
        const response = await http.post(kind.path, kind.body(i))
        const ms = performance.now() - started
        if (response.status !== 200) throw new Error(`${servers[s]!.name} ${kind.name}: ${response.status} ${response.body.slice(0, 200)}`)
        samples[s]!.push(ms)
        spent[s]! += ms
      }
      floors.push(await floor.http.sample(i) + await floor.xtest.sample(i))
    }
    rows.push({
      kind: kind.name,
      results: Object.fromEntries(servers.map((s, k) => [s.name, { p50: percentile(samples[k]!, 50), p95: percentile(samples[k]!, 95), n: samples[k]!.length }])),
      floor: { p50: percentile(floors, 50), n: floors.length },
    })
  }
  for (const http of clients) http.close()
  return rows
}

async function throughput (port: number) {
  const http = client(port, 10)
  const latencies: number[] = []
  let errors = 0
  const end = Date.now() + THROUGHPUT_MS
  await Promise.all(Array.from({ length: 10 }, async (_, worker) => {
    for (let i = 0; Date.now() < end; i++) {
      const started = performance.now()
      const response = await http.post('/computer', { action: 'move_mouse', coordinates: point(worker * 1000 + i) }).catch(() => ({ status: 0 }))
      latencies.push(performance.now() - started)
      if (response.status !== 200) errors++
    }
  }))
  http.close()
  return { requests: latencies.length, perSecond: Math.round(latencies.length / (THROUGHPUT_MS / 1000)), p99: percentile(latencies, 99), errors }
}

/** RSS of a process and each of its children (the driver worker), in MB. */
async function rssMb (pid: number): Promise<{ total: number, server: number, children: number[] }> {
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).split(' ').filter(Boolean).map(Number)
  const of = async (id: number) => {
    const status = await readFile(`/proc/${id}/status`, 'utf8').catch(() => '')
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
  }
  const server = await of(pid)
  const each = await Promise.all(children.map(of))
  return { total: server + each.reduce((a, b) => a + b, 0), server, children: each }
}

/** The median of `runs` cold starts (one start is one sample of a noisy VM, as one request would be). */
async function coldStarts (runs: number): Promise<{ median: number, each: number[] }> {
  const each: number[] = []
  for (let i = 0; i < runs; i++) each.push(await coldStart())
  return { median: percentile(each, 50), each }
}

async function coldStart (): Promise<number> {
  const port = await freePort()
  const started = performance.now()
  const child = startOurs(undefined, port)
  try {
    await waitHttp(port, { action: 'move_mouse', coordinates: [1, 1] })
    return Math.round(performance.now() - started)
  } finally {
    await stopOwned(child)
  }
}

const TEST_PAGE = new URL('../test/fixtures/accessibility/page.html', import.meta.url).href
export const SNAPSHOT_KIND = 'accessibility snapshot (foreground)'

/**
 * GET /accessibility (foreground) on our server while Chromium shows the accessibility test
 * page: p50/p95 of whole snapshots, once the page's tree is there. The server's first snapshot
 * starts its accessibility bus, whose address is then on the root window; Chromium is given it
 * (and --force-renderer-accessibility: it builds the web content's tree only for a screen reader).
 */
async function accessibilitySnapshots (port: number, display: string) {
  const http = client(port)
  const profile = await mkdtemp(join(tmpdir(), 'cg-bench-chromium-'))
  let chromium: ChildProcess | undefined
  try {
    const first = await http.get('/accessibility')
    if (first.status !== 200) throw new Error(`GET /accessibility: ${first.status} ${first.body.slice(0, 200)}`)
    const address = await waitFor(() => readBusAddress(display), 5000, 'the accessibility bus on the root window')
    chromium = spawnOwned(undefined, chromiumBinary(), [
      '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', `--user-data-dir=${profile}`, '--password-store=basic', '--noerrdialogs', '--disable-infobars',
      '--hide-crash-restore-bubble', '--force-renderer-accessibility', '--kiosk', TEST_PAGE,
    ], { env: { ...process.env, DISPLAY: display, AT_SPI_BUS_ADDRESS: address }, stdio: 'ignore', group: true })
    const started = performance.now()
    await waitFor(async () => {
      const response = await http.get('/accessibility')
      return response.status === 200 && response.body.includes('"name":"Save"') ? true : undefined
    }, 60_000, "Chromium's test page in the tree")
    const readyMs = Math.round(performance.now() - started)
    const samples: number[] = []
    let nodes = 0
    for (let i = 0; i < SNAPSHOTS; i++) {
      const begun = performance.now()
      const response = await http.get('/accessibility')
      samples.push(performance.now() - begun)
      if (response.status !== 200) throw new Error(`GET /accessibility: ${response.status} ${response.body.slice(0, 200)}`)
      nodes = (response.body.match(/"id":"e\d+"/g) ?? []).length
    }
    return { kind: SNAPSHOT_KIND, p50: percentile(samples, 50), p95: percentile(samples, 95), n: samples.length, nodes, chromiumReadyMs: readyMs }
  } finally {
    http.close()
    if (chromium) await stopOwned(chromium, true)
    await rm(profile, { recursive: true, force: true })
  }
}

async function waitFor<T> (probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`no ${what} after ${timeoutMs} ms`)
    await delay(100)
  }
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1))

/** `--only`: the named parts alone, their targets and JSON. */
async function onlyParts (parts: string[]) {
  const peers = parts.includes('peers') ? await (await import('./peers/peers.ts')).benchPeers({ smoke, quick }) : undefined
  const density = parts.includes('density') ? await (await import('./fleet-density.ts')).benchFleetDensity({ smoke, quick }) : undefined
  const targets = [...peers?.targets ?? [], ...density?.targets ?? []]
  for (const [target, met] of targets) console.log(`${met ? 'MET ' : 'MISS'} ${target}`)
  await mkdir(new URL('.', OUT), { recursive: true })
  await writeFile(OUT, JSON.stringify({ quick, smoke, only: parts, date: new Date().toISOString(), peers, density, targets }, null, 2))
  console.log('bench: done')
}

async function main () {
  // Final numbers only from a quiet machine (bench/quiet.ts): refused, with the load seen, otherwise.
  await requireQuiet(!quick)
  if (ONLY) return await onlyParts(ONLY)
  if (!existsSync(new URL('dist/src/runtime/server.js', root))) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' })
  const xvfb = await startXvfb({ screen: '1280x800x24' })
  const processes: ChildProcess[] = []
  try {
    // A window to act on: typing and clicks land in an xterm that discards its input.
    processes.push(spawnOwned(undefined, 'xterm', ['-geometry', '200x60+0+0', '-e', 'cat > /dev/null'], { env: { ...process.env, DISPLAY: xvfb.display }, stdio: 'ignore' }))
    const servers: Server[] = []
    const ours = { name: 'ours (nut)', port: await freePort() }
    servers.push({ ...ours, process: startOurs(xvfb.display, ours.port) })
    for (const [name, mode] of [['(a) xdotool', 'xdotool'], ['(b) xdotool --delay 0', 'xdotool-nodelay'], ['(c) nut-js defaults', 'nut-default']]) {
      const port = await freePort()
      servers.push({ name: name!, port, process: startBaseline(mode!, xvfb.display, port) })
    }
    processes.push(...servers.map((s) => s.process))
    for (const s of servers) {
      await waitHttp(s.port, { action: 'move_mouse', coordinates: [5, 5] }).catch((error: Error) => {
        throw new Error(`${s.name}: ${error.message} (exit ${s.process.exitCode ?? s.process.signalCode ?? 'none yet'}; BENCH_SERVER_LOG=1 shows its log)`)
      })
    }

    const probes = {
      xtest: await xtestProbe(xvfb.display),
      http: await httpProbe(await freePort(), (child) => processes.push(child)),
    }
    const floors = { xtest: await backToBack(probes.xtest, FLOOR_SAMPLES), http: await backToBack(probes.http, FLOOR_SAMPLES) }
    const inputFloor = floors.xtest.p50 + floors.http.p50
    const rows = await latency(servers, probes).finally(() => { probes.http.close(); probes.xtest.close() })
    /** An input row's floor: measured between its own requests. */
    const floorOf = (kind: string) => rows.find((r) => r.kind === kind)!.floor.p50
    const load = await throughput(ours.port)
    const rss = await rssMb(servers[0]!.process.pid!)
    const load1 = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')
    const colds = await coldStarts(smoke ? 1 : 3)
    const cold = colds.median
    // Chromium on a loaded machine may not show its tree in time: the other rows still print.
    const snapshots = await accessibilitySnapshots(ours.port, xvfb.display).catch((error: Error) => {
      process.exitCode = 1
      return { kind: SNAPSHOT_KIND, error: error.message }
    })
    const screens = await benchScreens({ display: xvfb.display, port: ours.port, smoke, quick })

    const names = servers.map((s) => s.name)
    console.log(`floor: XTest fake input + reply (node-x11, this process) ${fmt(floors.xtest.p50)} / ${fmt(floors.xtest.p95)} ms; empty Fastify POST (same client) ${fmt(floors.http.p50)} / ${fmt(floors.http.p95)} ms; n=${floors.http.n} each`)
    console.log(`  their sum, back to back: ${fmt(inputFloor)} ms (p50); each input row's floor is the same sum measured between that row's requests (one sample a round)`)
    const header = ['action', ...names.map((n) => `${n} p50/p95 ms`), 'floor ms', 'ours ÷ floor', ...names.slice(1).map((n) => `÷ ${n.split(' ')[0]}`)]
    console.log(header.join(' | '))
    for (const row of rows) {
      const ourP50 = row.results[names[0]!]!.p50
      const input = INPUT_KINDS.has(row.kind)
      console.log([
        row.kind,
        ...names.map((n) => `${fmt(row.results[n]!.p50)} / ${fmt(row.results[n]!.p95)}`),
        input ? fmt(row.floor.p50) : 'bench/screens.ts',
        input ? `${(ourP50 / row.floor.p50).toFixed(1)}x` : '—',
        ...names.slice(1).map((n) => `${(row.results[n]!.p50 / ourP50).toFixed(1)}x`),
      ].join(' | '))
    }
    // No baseline reads an accessibility tree: ours alone, no ratios.
    if ('error' in snapshots) {
      console.log(`${snapshots.kind} | not measured: ${snapshots.error}`)
    } else {
      console.log([
        `${snapshots.kind}`, `${fmt(snapshots.p50)} / ${fmt(snapshots.p95)}`,
        ...names.slice(1).map(() => 'no baseline'), ...names.slice(1).map(() => '—'),
      ].join(' | '))
      console.log(`  (Chromium's test page, ${snapshots.nodes} nodes, ${snapshots.n} snapshots; the page's tree took ${snapshots.chromiumReadyMs} ms to appear)`)
    }
    console.log(`throughput: ${load.perSecond} moves/s with 10 keep-alive clients (${load.requests} requests, p99 ${fmt(load.p99)} ms, ${load.errors} errors)`)
    console.log(`cold start (npm start's server with its own Xvfb → first action): ${cold} ms${colds.each.length > 1 ? ` (median of ${colds.each.join(', ')})` : ''}`)
    console.log(`RSS after the run (server + driver worker): ${rss.total} MB (server ${rss.server} MB, worker ${rss.children.join(' + ') || 0} MB)`)
    console.log(`load average while measuring (1/5/15 min): ${load1}`)
    const mcp = await mcpBench(ours.port, ITERATIONS)
    // Servers of its own (three desktops, XFCE and Firefox among them): too long for --smoke,
    // which the test suite runs; `node --import tsx bench/real-content.ts --smoke` runs it alone.
    // Imported only when run: loaded into this process under the test runner's loader, its
    // modules kept our server from answering within waitHttp's 20 s (not understood yet).
    const realContent = smoke ? undefined : await (await import('./real-content.ts')).benchRealContent({ smoke, quick })
    if (!realContent) console.log('real content: not run with --smoke (node --import tsx bench/real-content.ts --smoke runs it alone)')
    // The peers (bench/peers/peers.ts) on an Xvfb and Chromium of their own; installing them
    // (a venv from PyPI, bench/peers/setup.sh) needs the network, which --smoke must not.
    const peers = smoke ? undefined : await (await import('./peers/peers.ts')).benchPeers({ smoke, quick })
    if (smoke) console.log('peers: not run with --smoke (node --import tsx bench/peers/peers.ts --smoke runs them alone)')
    // The fleet on the Docker engine (bench/fleet.ts): it says why when no engine or image is there.
    const fleet = smoke ? undefined : await (await import('./fleet.ts')).benchFleet({ smoke, quick })
    if (smoke) console.log('fleet: not run with --smoke (a full desktop\'s cold start takes tens of seconds; node --import tsx bench/fleet.ts --smoke runs it alone)')
    // The same claim across a three-node swarm's nodes beside one engine (bench/fleet-swarm.ts): it says why when it cannot run.
    const fleetSwarm = smoke ? undefined : await (await import('./fleet-swarm.ts')).benchFleetSwarm({ quick })
    if (smoke) console.log('fleet across nodes: not run with --smoke (it brings a three-node swarm up, loading the image three times; node --import tsx bench/fleet-swarm.ts --quick runs it alone)')
    // Full desktops with Firefox through the fleet, stepped up to where p99 passes 100 ms (bench/fleet-density.ts).
    const density = smoke ? undefined : await (await import('./fleet-density.ts')).benchFleetDensity({ smoke, quick })
    if (smoke) console.log('fleet density: not run with --smoke (each desktop is a full one with Firefox; node --import tsx bench/fleet-density.ts --smoke runs it alone)')

    const get = (kind: string, name = names[0]!) => rows.find((r) => r.kind === kind)!.results[name]!.p50
    const p95 = (kind: string) => rows.find((r) => r.kind === kind)!.results[names[0]!]!.p95
    const targets: Array<[string, boolean]> = [
      ['move p50 ≤ 1 ms', get('move') <= 1],
      ['click p50 ≤ 2 ms', get('click') <= 2],
      ['double click p50 ≤ 3 ms', get('double click') <= 3],
      ['scroll 3 notches p50 ≤ 1.5 ms', get('scroll 3 notches') <= 1.5],
      ['key combo p50 ≤ 1.5 ms', get('key combo ctrl+a') <= 1.5],
      ['drag 10 points p50 ≤ 15 ms', get('drag 10 points') <= 15],
      ['type 20 non-ASCII p95 ≤ 30 ms', p95('type 20 non-ASCII') <= 30],
      ['type 40 non-ASCII, a rebind, p50 ≤ 100 ms', get('type 40 non-ASCII, a rebind') <= 100],
      ...rows.filter((row) => INPUT_KINDS.has(row.kind)).map((row): [string, boolean] =>
        [`${row.kind} ≤ ${FLOOR_RATIO}x its floor (${fmt(get(row.kind))} ÷ ${fmt(floorOf(row.kind))} = ${(get(row.kind) / floorOf(row.kind)).toFixed(1)}x)`, get(row.kind) <= FLOOR_RATIO * floorOf(row.kind)]),
      ['click ≥ 30x faster than (a)', get('click', names[1]) / get('click') >= 30],
      ['type 20 ASCII ≤ 40 ms', get('type 20 ASCII') <= 40],
      ['screenshot 1280x800 p50 ≤ 12 ms', get('screenshot 1280x800') <= 12],
      ['screenshot → 1024x768 p50 ≤ 12 ms', get('screenshot → 1024x768') <= 12],
      ['screenshot ≥ 4x faster than screenshot-desktop', get('screenshot 1280x800', names[1]) / get('screenshot 1280x800') >= 4],
      ['≥ 3000 moves/s with 10 clients, no errors', load.perSecond >= 3000 && load.errors === 0],
      ['cold start ≤ 1.5 s', cold <= 1500],
      ['RSS server + worker ≤ 200 MB', rss.total <= 200],
      ...peers?.targets ?? [],
      ...fleet?.targets ?? [],
      ...density?.targets ?? [],
    ]
    for (const [target, met] of targets) console.log(`${met ? 'MET ' : 'MISS'} ${target}`)
    await mkdir(new URL('.', OUT), { recursive: true })
    await writeFile(OUT, JSON.stringify({ quick, smoke, date: new Date().toISOString(), loadAverage: load1, floors, inputFloorMs: inputFloor, rows, mcp, accessibility: snapshots, realContent, fleet, fleetSwarm, density, throughput: load, coldStartMs: cold, coldStartsMs: colds.each, rssMb: rss.total, rss, targets, screens, peers }, null, 2))
    console.log('bench: done')
  } finally {
    // SIGTERM first: our server ends what it started (the accessibility bus among them);
    // whatever has not exited a second later is killed.
    await Promise.all(processes.map((child) => stopOwned(child)))
    await xvfb.stop()
  }
}

await main()
