/**
 * Desktops per machine: full desktops (`--desktop full`, each its own server, Xvfb and XFCE
 * session) side by side, the browser of each open on a page of text and photographs, as a host
 * of agents runs them. Desktops are added `--step` at a time up to `--max`; at each level every
 * desktop is driven at one action a second (a click, a typed word, a PNG screenshot, in turn)
 * for `--seconds`, and the level reports p50/p99 latency, errors, the machine's CPU use and the
 * memory of one desktop by part (PSS: Xvfb, session, browser, server, driver worker). It stops
 * at the second level in a row over p99 100 ms or with an error, or when memory runs short, and
 * names the largest level that held. Not part of `npm test` (it takes minutes and the whole machine).
 * `node --import tsx bench/desktops.ts [--max 24] [--step 2] [--seconds 30]`
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import type { ChildProcess } from 'node:child_process'
import { stopOwned } from '../test/helpers/processes.ts'
import { cpuShares } from './cpu-shares.ts'
import { client } from './http-client.ts'
import { percentile } from './percentile.ts'
import { writePage } from './photo.ts'
import { childrenOf, commandLine, desktopOf, freePort, startOurs, waitHttp } from './servers.ts'

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`)
  return at > 0 ? Number(process.argv[at + 1]) : fallback
}
const MAX = arg('max', 24)
const STEP = arg('step', 2)
const SECONDS = arg('seconds', 30)
const P99_MS = 100
/** Below this much available memory no desktop is added: the next one could push the host into the OOM killer. */
const MIN_AVAILABLE_MB = 2048
const ACTION_TIMEOUT_MS = 10_000
const START_TIMEOUT_MS = 180_000

type Part = 'Xvfb' | 'session' | 'browser' | 'server' | 'worker'
const PARTS: Part[] = ['Xvfb', 'session', 'browser', 'server', 'worker']
const BROWSER = /^(firefox|firefox-esr|chromium|chrome|Web Content|Isolated Web Co|WebExtensions|Privileged Cont|RDD Process|Socket Process|Utility Process|GPU Process|forkserver|file:\/\/ Content)$/

interface Desktop { index: number, server: ChildProcess, port: number, display: string, home: string, http: ReturnType<typeof client> }

async function startDesktop (index: number): Promise<Desktop> {
  const home = await mkdtemp(join(tmpdir(), `cg-bench-desktop-${index}-`))
  // The desktop opens files of its home only.
  const page = await writePage(home)
  const port = await freePort()
  const server = startOurs(undefined, port, ['--desktop', 'full', '--autostart', `browser=file://${page}`, '--home', home], { SCREEN: '1280x800x24' }, true)
  const exited = new Promise<never>((_resolve, reject) => server.once('exit', (code, signal) => reject(new Error(`desktop ${index}: the server exited: ${signal ?? `code ${code}`} (BENCH_SERVER_LOG=1 shows its log)`))))
  exited.catch(() => undefined)
  const http = client(port)
  const desktop = { index, server, port, display: '', home, http }
  try {
    await Promise.race([waitHttp(port, { action: 'move_mouse', coordinates: [1, 1] }, START_TIMEOUT_MS), exited])
    desktop.display = (await desktopOf(server.pid!)).display
    const deadline = Date.now() + START_TIMEOUT_MS
    for (;;) {
      const windows = await http.post('/computer', { action: 'list_windows' }, ACTION_TIMEOUT_MS).catch(() => ({ status: 0, body: '' }))
      if (windows.status === 200 && windows.body.includes('Bench page')) break
      if (Date.now() > deadline) throw new Error(`desktop ${index}: the browser did not show the page within ${START_TIMEOUT_MS / 1000} s`)
      await delay(500)
    }
    return desktop
  } catch (error) {
    await stopDesktop(desktop)
    throw error
  }
}

async function stopDesktop (desktop: Desktop): Promise<void> {
  desktop.http.close()
  await stopOwned(desktop.server, true, 15_000)
  await rm(desktop.home, { recursive: true, force: true })
}

/** One action a second on every desktop for `seconds`, their starts spread over the second. */
async function drive (desktops: Desktop[], seconds: number) {
  const samples: Record<string, number[]> = { click: [], type: [], screenshot: [] }
  const errors: string[] = []
  const actions = [
    { kind: 'click', body: (k: number) => ({ action: 'click_mouse', button: 'left', coordinates: [300 + (k * 37) % 700, 420 + (k * 53) % 300] }) },
    { kind: 'type', body: () => ({ action: 'type_text', text: 'word' }) },
    { kind: 'screenshot', body: () => ({ action: 'take_screenshot' }) },
  ]
  const started = performance.now()
  await Promise.all(desktops.map(async (desktop, i) => {
    for (let k = 0; k < seconds; k++) {
      const at = started + k * 1000 + (i * 1000) / desktops.length
      const wait = at - performance.now()
      if (wait > 0) await delay(wait)
      const action = actions[(k + i) % actions.length]!
      const sent = performance.now()
      try {
        const response = await desktop.http.post('/computer', action.body(k), ACTION_TIMEOUT_MS)
        if (response.status !== 200) throw new Error(`${response.status} ${response.body.slice(0, 160)}`)
        samples[action.kind]!.push(performance.now() - sent)
      } catch (error) {
        errors.push(`desktop ${desktop.index} ${action.kind}: ${(error as Error).message}`)
      }
    }
  }))
  const all = Object.values(samples).flat()
  return {
    actions: all.length + errors.length,
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    byKind: Object.fromEntries(Object.entries(samples).map(([kind, times]) => [kind, { p50: percentile(times, 50), p99: percentile(times, 99) }])),
    errors,
  }
}

async function pssMb (pid: number): Promise<number> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '')
  return Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024
}

const comm = async (pid: number) => (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim()

/**
 * Every process of a desktop: the server's tree, and what runs on its display but left the tree
 * (the session's D-Bus daemons detach), by the DISPLAY in its environment.
 */
async function processesOf (desktop: Desktop): Promise<Map<number, Part>> {
  const parts = new Map<number, Part>()
  const walk = async (pid: number, inherited: Part | undefined): Promise<void> => {
    const name = await comm(pid)
    const argv0 = (await commandLine(pid))?.[0] ?? ''
    let part: Part = inherited ?? 'session'
    if (pid === desktop.server.pid) part = 'server'
    else if (inherited === 'server' || inherited === undefined) {
      if (name === 'Xvfb') part = 'Xvfb'
      else if (/(^|\/)node$/.test(argv0) && inherited === 'server') part = 'worker'
      else if (BROWSER.test(name)) part = 'browser'
      else part = 'session'
    } else if (BROWSER.test(name)) part = 'browser'
    parts.set(pid, part)
    for (const child of await childrenOf(pid)) await walk(child, part === 'server' ? 'server' : part)
  }
  await walk(desktop.server.pid!, undefined)
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || parts.has(pid)) continue
    const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '')
    if (!environ.split('\0').includes(`DISPLAY=${desktop.display}`)) continue
    await walk(pid, BROWSER.test(await comm(pid)) ? 'browser' : 'session')
  }
  return parts
}

async function memoryOf (desktop: Desktop): Promise<Record<Part, number> & { processes: number }> {
  const memory = Object.fromEntries(PARTS.map((part) => [part, 0])) as Record<Part, number>
  const parts = await processesOf(desktop)
  for (const [pid, part] of parts) memory[part] += await pssMb(pid)
  return { ...memory, processes: parts.size }
}

async function availableMb (): Promise<number> {
  const meminfo = await readFile('/proc/meminfo', 'utf8')
  return Number(/MemAvailable:\s+(\d+)/.exec(meminfo)?.[1] ?? 0) / 1024
}

const ms = (value: number) => Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : '—'

const running: Desktop[] = []
const levels: Array<{ n: number, held: boolean }> = []
let stopReason = `reached --max ${MAX}`
try {
  console.log(`desktops per machine: full desktops with the browser on a page, one action a second each for ${SECONDS} s a level`)
  console.log('desktops | p50 / p99 ms | click p99 | type p99 | screenshot p99 | errors | CPU busy | MB per desktop (Xvfb + session + browser + server + worker) | available MB')
  for (let n = Math.min(STEP, MAX); n <= MAX; n += STEP) {
    if (await availableMb() < MIN_AVAILABLE_MB + (n - running.length) * 1024) { stopReason = `${Math.round(await availableMb())} MB available: too little for ${n - running.length} more`; break }
    const starting = performance.now()
    while (running.length < n) running.push(await startDesktop(running.length))
    const startedS = (performance.now() - starting) / 1000
    // The last page's pictures decode after its title shows.
    await delay(3000)
    const { result, busy } = await cpuShares(() => drive(running, SECONDS))
    const memories = await Promise.all(running.map(memoryOf))
    const mean = (part: Part) => memories.reduce((sum, m) => sum + m[part], 0) / memories.length
    const total = PARTS.reduce((sum, part) => sum + mean(part), 0)
    const held = result.p99 <= P99_MS && result.errors.length === 0
    levels.push({ n, held })
    console.log(`${n} | ${ms(result.p50)} / ${ms(result.p99)} | ${ms(result.byKind.click!.p99)} | ${ms(result.byKind.type!.p99)} | ${ms(result.byKind.screenshot!.p99)} | ${result.errors.length} of ${result.actions} | ${Math.round(busy * 100)} % | ${Math.round(total)} (${PARTS.map((part) => Math.round(mean(part))).join(' + ')}) | ${Math.round(await availableMb())}   (${STEP} started in ${startedS.toFixed(0)} s)`)
    for (const error of result.errors.slice(0, 5)) console.log(`  error: ${error}`)
    // One level over the line may be a moment's noise (p99 of a few dozen screenshots is about
    // their slowest): the ramp goes on, and ends at the second level in a row that misses.
    if (!held && levels.at(-2)?.held === false) { stopReason = `${n} desktops: the second level in a row over the line (${result.errors.length ? `${result.errors.length} errors` : `p99 ${ms(result.p99)} ms`})`; break }
  }
} finally {
  await Promise.all(running.map(stopDesktop))
}
const best = Math.max(0, ...levels.filter((level) => level.held).map((level) => level.n))
console.log(`stopped: ${stopReason}`)
console.log(`largest number of desktops that held p99 ≤ ${P99_MS} ms with 0 errors: ${best}`)
console.log(`${best >= 20 ? 'MET ' : 'MISS'} ≥ 20 full desktops with a browser open at p99 ≤ ${P99_MS} ms and 0 errors (${best})`)
