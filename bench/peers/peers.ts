/**
 * Ours beside the peers users would otherwise run, on one Xvfb in one run: cua's
 * computer-server, OSWorld's pyautogui per call, the Anthropic and OpenAI reference loops'
 * xdotool (bench/peers/peer-drivers.ts says how each acts). The same actions through each,
 * interleaved (ours, cua, pyautogui, Anthropic, OpenAI, ours …), on the Chromium event page
 * of the tests (test/fixtures/oracle/page.html), which records what arrived: every action's
 * effect is checked after it is timed (a click where it was sent, the text typed exactly,
 * ctrl+a as a key with ctrl, wheel notches down, a 1280x800 PNG showing the page's red
 * target). p50/p99 per action and peer, each peer's p50 ÷ ours, and beside them the input
 * floor (an empty Fastify POST plus an XTest round trip, bench/floor.ts) measured between
 * the row's own rounds. The peers are installed by bench/peers/setup.sh; one that cannot be
 * installed or started is reported with the reason and its columns say so.
 * Alone: `npx node --import tsx bench/peers/peers.ts [--quick|--smoke]`.
 */
import { execFile, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import sharp from 'sharp'
import { COOKIE_NAME, cookieFor } from '../../drivers/x11/authority.ts'
import { startXvfb } from '../../drivers/x11/xvfb.ts'
import { startOracle, type OracleEvent } from '../../test/helpers/oracle.ts'
import { spawnOwned, stopOwned } from '../../test/helpers/processes.ts'
import { difference } from '../../test/helpers/typing.ts'
import { httpProbe, xtestProbe } from '../floor.ts'
import { percentile } from '../percentile.ts'
import { freePort, startOurs, waitHttp } from '../servers.ts'
import { anthropicDriver, cuaDriver, openaiDriver, oursDriver, pyautoguiDriver, type PeerDriver } from './peer-drivers.ts'

const run = promisify(execFile)

/** 40 code points: ASCII letters, digits and punctuation, Latin accents, €, an em dash, ✓. */
export const MIXED_TEXT = 'Grüße, señor! Ça coûte 42 € — naïve ✓ ok'
const KINDS = ['click', 'type 40 mixed', 'key combo ctrl+a', 'scroll 3 notches', 'screenshot PNG'] as const
type Kind = typeof KINDS[number]
/** The page's red target (#target: 900,100 100x60): a screenshot must show it. */
const TARGET = { x: 950, y: 130 }
const TEXTAREA = { x: 300, y: 100 }

export interface PeerRow {
  kind: Kind
  /** Per peer: p50/p99 ms, samples, how many had their effect, and what went wrong first. */
  results: Record<string, { p50: number, p99: number, n: number, effective: number, firstMiss?: string } | { error: string }>
  floor?: { p50: number, n: number }
}

export interface PeersBench {
  peers: string[]
  unavailable: Record<string, string>
  rows: PeerRow[]
  /** Per peer: the typed text arrived exactly in every sample. */
  typingExact: Record<string, boolean>
  /** The issue's: each action ≥ 3x faster (p50) than the fastest peer; ours typing exactly. */
  targets: Array<[string, boolean]>
}

/** Ours at least this many times faster (p50) than the fastest peer, on every action. */
const PEER_RATIO = 3

interface Teardowns { teardown: (fn: () => unknown) => void, run: () => Promise<void> }
function teardowns (): Teardowns {
  const fns: Array<() => unknown> = []
  return {
    teardown: (fn) => { fns.push(fn) },
    run: async () => { for (const fn of fns.reverse()) await Promise.resolve().then(fn).catch(() => {}) },
  }
}

/** bench/peers/setup.sh: the cache directory, or why the Python peers are not there. */
function setupPeers (): { dir?: string, why?: string } {
  const script = fileURLToPath(new URL('./setup.sh', import.meta.url))
  const done = spawnSync('bash', [script], { encoding: 'utf8', timeout: 600_000 })
  if (done.status === 0) return { dir: done.stdout.trim().split('\n').pop() }
  return { why: `bench/peers/setup.sh failed (${done.status ?? done.signal}): ${(done.stderr ?? '').trim().split('\n').pop()}` }
}

/** cua's server as its README starts it (`python -m computer_server`), until GET /status answers. */
async function startCua (python: string, port: number, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawnOwned(undefined, python, ['-m', 'computer_server', '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warning'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  // The last line of its stderr, for the reason when it does not start.
  let lastLine = ''
  child.stderr!.on('data', (chunk: Buffer) => { lastLine = chunk.toString().trim().split('\n').pop() ?? lastLine })
  const deadline = Date.now() + 60_000
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/status`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false)
    if (ok) return child
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopOwned(child)
      throw new Error(`python -m computer_server did not answer GET /status within 60 s (exit ${child.exitCode ?? 'none'}): ${lastLine}`)
    }
    await delay(200)
  }
}

/**
 * The display's cookie in an Xauthority file of its own, as `xauth add` writes it for a
 * session (this host's name, the display's number): python-xlib matches only such entries,
 * not the any-address entry our Xvfb's file holds, and without one pyautogui cannot connect.
 */
async function localAuthority (display: string, done: Teardowns): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cg-bench-peers-xauth-'))
  done.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'Xauthority')
  await run('xauth', ['-f', file, 'add', display, COOKIE_NAME, cookieFor(display)!.toString('hex')])
  return file
}

const lastValue = (events: OracleEvent[]) => events.at(-1)?.value as string | undefined

export async function benchPeers ({ smoke = false, quick = false } = {}): Promise<PeersBench> {
  const iterations = smoke ? 1 : quick ? 3 : 15
  const done = teardowns()
  const unavailable: Record<string, string> = {}
  try {
    const xvfb = await startXvfb({ screen: '1280x800x24' })
    done.teardown(() => xvfb.stop())
    const oracle = await startOracle(done, xvfb.display)
    // XAUTHORITY as a desktop session has it: python-xlib (pyautogui, pynput) reads the cookie there.
    const xEnv: NodeJS.ProcessEnv = { ...process.env, DISPLAY: xvfb.display, XAUTHORITY: xvfb.authority }
    const bench = (...args: string[]) => run('xdotool', args, { env: xEnv })

    const drivers: PeerDriver[] = []
    const ourPort = await freePort()
    const ours = startOurs(xvfb.display, ourPort)
    done.teardown(() => stopOwned(ours))
    await waitHttp(ourPort, { action: 'move_mouse', coordinates: [5, 5] }, 60_000)
    drivers.push(oursDriver(ourPort))

    const installed = setupPeers()
    const names = { cua: 'cua computer-server', pyautogui: 'OSWorld pyautogui per call', anthropic: 'Anthropic demo (xdotool)', openai: 'OpenAI sample (xdotool)' }
    if (installed.dir) {
      // What a desktop session sets: pyautogui's screenshot looks for XDG_SESSION_TYPE=x11 before
      // it runs scrot. CONTAINER_NAME makes cua's server ask its cloud for every command: removed.
      const pyEnv: NodeJS.ProcessEnv = { ...xEnv, XAUTHORITY: await localAuthority(xvfb.display, done), XDG_SESSION_TYPE: 'x11', PATH: `${installed.dir}/debian/usr/bin:${process.env.PATH}` }
      delete pyEnv.CONTAINER_NAME
      const python = `${installed.dir}/venv/bin/python`
      try {
        const port = await freePort()
        const cua = await startCua(python, port, pyEnv)
        done.teardown(() => stopOwned(cua))
        drivers.push(cuaDriver(port))
      } catch (error) { unavailable[names.cua] = (error as Error).message }
      drivers.push(pyautoguiDriver(python, pyEnv))
      drivers.push(anthropicDriver(pyEnv))
    } else {
      unavailable[names.cua] = installed.why!
      unavailable[names.pyautogui] = installed.why!
      unavailable[names.anthropic] = `${installed.why!} (Debian's scrot, its screenshot, comes from there)`
    }
    drivers.push(openaiDriver(xEnv))
    done.teardown(() => { for (const d of drivers) d.close() })

    const floorPort = await freePort()
    const probes = { xtest: await xtestProbe(xvfb.display), http: await httpProbe(floorPort, (child) => done.teardown(() => stopOwned(child))) }
    done.teardown(() => { probes.http.close(); probes.xtest.close() })

    /**
     * Each peer's own point, never where the one before it left the pointer: the Anthropic
     * demo's `mousemove --sync` waits for the pointer to move, and where it is already there
     * its xdotool waited ~15 s (its own behaviour, but not what a model's next click meets).
     */
    const point = (i: number): [number, number] => [100 + (i * 97) % 1000, 320 + (i * 53) % 420]
    /** Times one action of `kind` through `d` and checks its effect: [ms, undefined] or [ms, what went wrong]. */
    const once = async (d: PeerDriver, kind: Kind, i: number): Promise<[number, string | undefined]> => {
      if (kind === 'type 40 mixed') {
        // Not timed: the textarea focused and emptied by the bench's own xdotool.
        await bench('mousemove', String(TEXTAREA.x), String(TEXTAREA.y), 'click', '1', 'key', 'ctrl+a', 'BackSpace')
        await oracle.until((events) => events.some((e) => e.type === 'keyup' && e.key === 'Backspace') && lastValue(events) === '', 3000)
      }
      oracle.clear()
      const [x, y] = point(i * drivers.length + drivers.indexOf(d))
      const started = performance.now()
      let png: Buffer | undefined
      switch (kind) {
        case 'click': await d.click(x, y); break
        case 'type 40 mixed': await d.type(MIXED_TEXT); break
        case 'key combo ctrl+a': await d.keyCombo(['ctrl', 'a']); break
        case 'scroll 3 notches': await d.scroll(x, y, 3); break
        case 'screenshot PNG': png = await d.screenshot(); break
      }
      const ms = performance.now() - started
      switch (kind) {
        case 'click': {
          const events = await oracle.until((ev) => ev.some((e) => e.type === 'click'))
          return [ms, events.some((e) => e.type === 'click' && e.x === x && e.y === y) ? undefined : `no click at ${x},${y}: ${JSON.stringify(events.filter((e) => e.type === 'click').map((e) => [e.x, e.y]))}`]
        }
        case 'type 40 mixed': {
          const events = await oracle.until((ev) => lastValue(ev) === MIXED_TEXT, 5000)
          const value = lastValue(events) ?? ''
          return [ms, value === MIXED_TEXT ? undefined : `typed ${difference(MIXED_TEXT, value)}`]
        }
        case 'key combo ctrl+a': {
          const events = await oracle.until((ev) => ev.some((e) => e.type === 'keydown' && e.key === 'a'))
          return [ms, events.some((e) => e.type === 'keydown' && e.key === 'a' && e.ctrl === true) ? undefined : 'no ctrl+a keydown']
        }
        case 'scroll 3 notches': {
          const events = await oracle.until((ev) => ev.filter((e) => e.type === 'wheel').length >= 3)
          const down = events.filter((e) => e.type === 'wheel' && Number(e.dy) > 0).length
          return [ms, down >= 1 ? undefined : `no wheel event down (${events.length} events)`]
        }
        case 'screenshot PNG': {
          const image = sharp(png!)
          const meta = await image.metadata()
          if (meta.format !== 'png' || meta.width !== 1280 || meta.height !== 800) return [ms, `not a 1280x800 PNG: ${meta.format} ${meta.width}x${meta.height}`]
          const { data, info } = await image.extract({ left: TARGET.x, top: TARGET.y, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true })
          const red = data[0]! > 200 && data[1]! < 60 && data[2]! < 60 && info.channels >= 3
          return [ms, red ? undefined : `the page's red target not in the image: ${[...data].join(',')}`]
        }
      }
    }

    const rows: PeerRow[] = []
    for (const kind of KINDS) {
      const samples = drivers.map(() => [] as number[])
      const effective = drivers.map(() => 0)
      const misses: Array<string | undefined> = drivers.map(() => undefined)
      const errors: Array<string | undefined> = drivers.map(() => undefined)
      const floors: number[] = []
      for (let i = 0; i < iterations; i++) {
        for (const [k, d] of drivers.entries()) {
          if (errors[k]) continue
          try {
            const [ms, miss] = await once(d, kind, i)
            samples[k]!.push(ms)
            if (miss === undefined) effective[k]!++
            else misses[k] ??= miss
          } catch (error) { errors[k] = (error as Error).message }
        }
        if (kind !== 'screenshot PNG') floors.push(await probes.http.sample(i) + await probes.xtest.sample(i))
      }
      rows.push({
        kind,
        results: Object.fromEntries(drivers.map((d, k) => [d.name, errors[k] && samples[k]!.length === 0
          ? { error: errors[k]! }
          : { p50: percentile(samples[k]!, 50), p99: percentile(samples[k]!, 99), n: samples[k]!.length, effective: effective[k]!, ...(misses[k] && { firstMiss: misses[k] }), ...(errors[k] && { firstMiss: errors[k] }) }])),
        ...(floors.length > 0 && { floor: { p50: percentile(floors, 50), n: floors.length } }),
      })
    }
    const typing = rows.find((r) => r.kind === 'type 40 mixed')!
    const typingExact = Object.fromEntries(drivers.map((d) => {
      const result = typing.results[d.name]!
      return [d.name, !('error' in result) && result.effective === result.n]
    }))
    const targets: Array<[string, boolean]> = rows.map((row) => {
      const p50 = (name: string) => { const r = row.results[name]!; return 'error' in r ? Infinity : r.p50 }
      const fastest = drivers.slice(1).map((d) => d.name).sort((a, b) => p50(a) - p50(b))[0]
      const ratio = fastest === undefined ? Infinity : p50(fastest) / p50(drivers[0]!.name)
      return [`peers: ${row.kind} ≥ ${PEER_RATIO}x faster than the fastest peer (${fastest ?? 'none'}: ${ratio.toFixed(1)}x)`, ratio >= PEER_RATIO]
    })
    targets.push([`peers: ours types ${JSON.stringify(MIXED_TEXT)} exactly`, typingExact[drivers[0]!.name] === true])
    const result: PeersBench = { peers: drivers.map((d) => d.name), unavailable, rows, typingExact, targets }
    print(result)
    return result
  } finally {
    await done.run()
  }
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : ms.toFixed(0))

function print ({ peers, unavailable, rows, typingExact, targets }: PeersBench): void {
  const [ours, ...others] = peers
  console.log(`peers (one Xvfb, Chromium's event page; each action's effect checked; p50 / p99 ms, effective of n):`)
  console.log(['action', ...peers, 'floor ms', 'ours ÷ floor', ...others.map((n) => `÷ ${n.split(' ')[0]}`)].join(' | '))
  for (const row of rows) {
    const cell = (name: string) => {
      const r = row.results[name]!
      return 'error' in r ? `failed: ${r.error.slice(0, 80)}` : `${fmt(r.p50)} / ${fmt(r.p99)} (${r.effective}/${r.n})`
    }
    const ourResult = row.results[ours!]!
    const ourP50 = 'error' in ourResult ? NaN : ourResult.p50
    console.log([
      row.kind, ...peers.map(cell),
      row.floor ? fmt(row.floor.p50) : 'bench/screens.ts',
      row.floor ? `${(ourP50 / row.floor.p50).toFixed(1)}x` : '—',
      ...others.map((n) => { const r = row.results[n]!; return 'error' in r ? '—' : `${(r.p50 / ourP50).toFixed(1)}x` }),
    ].join(' | '))
  }
  for (const row of rows) {
    for (const [name, r] of Object.entries(row.results)) if (!('error' in r) && r.firstMiss) console.log(`  ${row.kind}, ${name}: ${r.effective} of ${r.n} had their effect; first miss: ${r.firstMiss}`)
  }
  console.log(`  typing ${JSON.stringify(MIXED_TEXT)} exactly: ${Object.entries(typingExact).map(([n, ok]) => `${n} ${ok ? 'yes' : 'NO'}`).join(', ')}`)
  for (const [name, why] of Object.entries(unavailable)) console.log(`  ${name}: not measured: ${why}`)
  for (const [target, met] of targets) console.log(`${met ? 'MET ' : 'MISS'} ${target}`)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchPeers({ smoke: process.argv.includes('--smoke'), quick: process.argv.includes('--quick') })
}
