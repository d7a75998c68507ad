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
import { ASCII_LINE, photoEffect, selectionEffect, typedEffect, type RawImage } from './effects.ts'
import { measureFootprint, printFootprint, type Footprint } from './footprint.ts'
import { SENTENCE, SENTINEL, startTerminal, type Terminal } from './xterm-app.ts'
import { PHOTO_AREA, startPhotoPage } from './photo-page.ts'
import { officeTrees, type OfficeTrees } from './office.ts'
import { requireQuiet } from '../quiet.ts'
import { machineLine, machineSnapshot } from '../cpu-shares.ts'
import { anthropicDriver, cuaDriver, openaiDriver, oursDriver, pyautoguiDriver, type PeerDriver } from './peer-drivers.ts'

const run = promisify(execFile)

/** 40 code points: ASCII letters, digits and punctuation, Latin accents, €, an em dash, ✓. */
export const MIXED_TEXT = 'Grüße, señor! Ça coûte 42 € — naïve ✓ ok'
/** On Chromium's event page. */
const PAGE_KINDS = ['click', 'type 40 mixed', 'type 95 ASCII (Chromium)', 'key combo ctrl+a', 'scroll 3 notches', 'screenshot PNG'] as const
/** In an xterm over it (bench/peers/xterm-app.ts); typing last, as its lines scroll the sentence away. */
const TERMINAL_KINDS = ['double click a word (xterm)', 'drag to select (xterm)', 'type 95 ASCII (xterm)'] as const
/** Firefox over both, showing a page of one large JPEG. */
const PHOTO_KINDS = ['screenshot PNG, photo in Firefox'] as const
type Kind = typeof PAGE_KINDS[number] | typeof TERMINAL_KINDS[number] | typeof PHOTO_KINDS[number]
/** Rows whose floor is screens.ts's, not an input's. */
const SCREENSHOT_KINDS = new Set<Kind>(['screenshot PNG', 'screenshot PNG, photo in Firefox'])
/** The text each typing row types, and whether the Chromium textarea (else the terminal) receives it. */
const TYPED: Partial<Record<Kind, string>> = { 'type 40 mixed': MIXED_TEXT, 'type 95 ASCII (Chromium)': ASCII_LINE, 'type 95 ASCII (xterm)': ASCII_LINE }
/** The page's red target (#target: 900,100 100x60): a screenshot must show it. */
const TARGET = { x: 950, y: 130 }
const TEXTAREA = { x: 300, y: 100 }
/** Events that stopped this long ago are all a peer's action made (what it typed, its wheel notches). */
const SETTLED_MS = 1000

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
  /** Per typing row, per peer: the typed text arrived exactly in every sample. */
  typingExact: Record<string, Record<string, boolean>>
  /** Memory by part and CPU per 1000 moves, ours and cua beside an empty Fastify POST. */
  footprint: Footprint | { error: string }
  /** LibreOffice Calc's accessibility tree as ours and cua read it. */
  accessibility: OfficeTrees
  /** The issue's: each action ≥ 3x faster (p50) than the fastest peer; ours typing exactly. */
  targets: Array<[string, boolean]>
  /** The sample counts the run took (peerCounts). */
  counts: ReturnType<typeof peerCounts>
}

/** Ours at least this many times faster (p50) than the fastest peer, on every action. */
const PEER_RATIO = 3

/**
 * How many samples a run takes. Each round gives every peer one sample of a row and ours
 * `oursPerRound` (ours costs milliseconds, a reference loop seconds: the Anthropic demo sleeps
 * 2 s in every action), so ours' p99 is over enough samples to mean something (40 in a final
 * run: between its two slowest) while a peer's p99 is its slowest of `rounds`. A final run's
 * counts keep it within ~12 minutes on a 2-core VM: ~55 s a round, ~3 minutes for the rest.
 */
export function peerCounts ({ smoke = false, quick = false } = {}) {
  if (smoke) return { rounds: 1, oursPerRound: 1, moves: 200, calcSnapshots: 1 }
  if (quick) return { rounds: 3, oursPerRound: 2, moves: 1000, calcSnapshots: 3 }
  return { rounds: 8, oursPerRound: 5, moves: 3000, calcSnapshots: 10 }
}

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
  const counts = peerCounts({ smoke, quick })
  const iterations = counts.rounds
  const done = teardowns()
  const unavailable: Record<string, string> = {}
  const start = await machineSnapshot()
  console.log(`peers: at the start, ${machineLine(start)}`)
  try {
    const xvfb = await startXvfb({ screen: '1280x800x24' })
    done.teardown(() => xvfb.stop())
    const oracle = await startOracle(done, xvfb.display)
    // XAUTHORITY as a desktop session has it: python-xlib (pyautogui, pynput) reads the cookie there.
    const xEnv: NodeJS.ProcessEnv = { ...process.env, DISPLAY: xvfb.display, XAUTHORITY: xvfb.authority }
    const bench = (...args: string[]) => run('xdotool', args, { env: xEnv })

    const drivers: PeerDriver[] = []
    let cuaPid: number | undefined
    let cuaPort: number | undefined
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
        ;[cuaPid, cuaPort] = [cua.pid, port]
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
    let floorChild: ChildProcess | undefined
    const probes = { xtest: await xtestProbe(xvfb.display), http: await httpProbe(floorPort, (child) => { floorChild = child; done.teardown(() => stopOwned(child)) }) }
    done.teardown(() => { probes.http.close(); probes.xtest.close() })

    /**
     * Each peer's own point, never where the one before it left the pointer: the Anthropic
     * demo's `mousemove --sync` waits for the pointer to move, and where it is already there
     * its xdotool waited ~15 s (its own behaviour, but not what a model's next click meets).
     */
    const point = (i: number): [number, number] => [100 + (i * 97) % 1000, 320 + (i * 53) % 420]
    let terminal: Terminal | undefined
    let photo: RawImage | undefined
    /** The terminal's words as [first column, last column]. */
    const words = [...SENTENCE.matchAll(/\S+/g)].map((m) => [m.index, m.index + m[0].length - 1] as const)
    const DRAGS = [[0, 2], [1, 3], [0, 1], [1, 2], [2, 3]] as const
    /** The selection's effect, once the primary selection holds `expected` or 2 s have passed. */
    const selected = async (expected: string) => {
      const deadline = Date.now() + 2000
      let primary = await terminal!.primary()
      while (primary !== expected && Date.now() < deadline) { await delay(50); primary = await terminal!.primary() }
      return selectionEffect(expected, primary, SENTINEL)
    }
    /** Times one action of `kind` through `d` and checks its effect: [ms, undefined] or [ms, what went wrong]. */
    const once = async (d: PeerDriver, kind: Kind, i: number): Promise<[number, string | undefined]> => {
      const k = i * drivers.length + drivers.indexOf(d)
      const text = TYPED[kind]
      // Not timed: what each sample starts from.
      if (text !== undefined && kind !== 'type 95 ASCII (xterm)') {
        // The textarea focused and emptied by the bench's own xdotool.
        await bench('mousemove', String(TEXTAREA.x), String(TEXTAREA.y), 'click', '1', 'key', 'ctrl+a', 'BackSpace')
        await oracle.until((events) => events.some((e) => e.type === 'keyup' && e.key === 'Backspace') && lastValue(events) === '', 3000)
      }
      if (kind === 'type 95 ASCII (xterm)') await terminal!.focus()
      if (kind === 'double click a word (xterm)' || kind === 'drag to select (xterm)') {
        await terminal!.resetSelection()
        // Past xterm's multi-click interval (250 ms): the peer's first click starts a new count.
        await delay(300)
      }
      oracle.clear()
      const [x, y] = point(k)
      const word = words[k % words.length]!
      const [fromWord, toWord] = DRAGS[k % DRAGS.length]!
      const started = performance.now()
      let png: Buffer | undefined
      switch (kind) {
        case 'click': await d.click(x, y); break
        case 'type 40 mixed': case 'type 95 ASCII (Chromium)': case 'type 95 ASCII (xterm)': await d.type(text!); break
        case 'key combo ctrl+a': await d.keyCombo(['ctrl', 'a']); break
        case 'scroll 3 notches': await d.scroll(x, y, 3); break
        case 'screenshot PNG': case 'screenshot PNG, photo in Firefox': png = await d.screenshot(); break
        // A column of the word that moves with k, so the pointer is never already there.
        case 'double click a word (xterm)': await d.doubleClick(...terminal!.cell(word[0] + (k % (word[1] - word[0] + 1)), 0)); break
        // From the first word's first cell (its left part: xterm starts at the cell's edge) to
        // the cell after the last word (a release there ends the selection before it).
        case 'drag to select (xterm)': {
          const [fx, fy] = terminal!.cell(words[fromWord]![0], 0)
          await d.drag([fx - 2, fy], terminal!.cell(words[toWord]![1] + 1, 0))
          break
        }
      }
      const ms = performance.now() - started
      switch (kind) {
        case 'click': {
          const events = await oracle.until((ev) => ev.some((e) => e.type === 'click'))
          return [ms, events.some((e) => e.type === 'click' && e.x === x && e.y === y) ? undefined : `no click at ${x},${y}: ${JSON.stringify(events.filter((e) => e.type === 'click').map((e) => [e.x, e.y]))}`]
        }
        case 'type 40 mixed': case 'type 95 ASCII (Chromium)': {
          // Done once the textarea holds the text, or once its events have settled for a second
          // with something else in it: a peer that typed it wrong is done typing too (waiting
          // out the whole deadline for each such sample took a final run minutes).
          let [seen, since] = [-1, Date.now()]
          const events = await oracle.until((ev) => {
            if (lastValue(ev) === text) return true
            if (ev.length !== seen) [seen, since] = [ev.length, Date.now()]
            return ev.length > 0 && Date.now() - since >= SETTLED_MS
          }, 5000)
          return [ms, typedEffect(text!, lastValue(events) ?? '')]
        }
        case 'type 95 ASCII (xterm)': return [ms, typedEffect(text!, await terminal!.typedLine())]
        case 'double click a word (xterm)': return [ms, await selected(SENTENCE.slice(word[0], word[1] + 1))]
        case 'drag to select (xterm)': return [ms, await selected(SENTENCE.slice(words[fromWord]![0], words[toWord]![1] + 1))]
        case 'key combo ctrl+a': {
          const events = await oracle.until((ev) => ev.some((e) => e.type === 'keydown' && e.key === 'a'))
          return [ms, events.some((e) => e.type === 'keydown' && e.key === 'a' && e.ctrl === true) ? undefined : 'no ctrl+a keydown']
        }
        case 'scroll 3 notches': {
          // Three wheel events, or fewer that settled for a second (a peer may send fewer, or
          // Chromium coalesce them): not the whole deadline each sample.
          let [seen, since] = [-1, Date.now()]
          const events = await oracle.until((ev) => {
            const wheels = ev.filter((e) => e.type === 'wheel').length
            if (wheels !== seen) [seen, since] = [wheels, Date.now()]
            return wheels >= 3 || (wheels > 0 && Date.now() - since >= SETTLED_MS)
          })
          const down = events.filter((e) => e.type === 'wheel' && Number(e.dy) > 0).length
          return [ms, down >= 1 ? undefined : `no wheel event down (${events.length} events)`]
        }
        case 'screenshot PNG': case 'screenshot PNG, photo in Firefox': {
          const image = sharp(png!)
          const meta = await image.metadata()
          if (meta.format !== 'png' || meta.width !== 1280 || meta.height !== 800) return [ms, `not a 1280x800 PNG: ${meta.format} ${meta.width}x${meta.height}`]
          if (kind !== 'screenshot PNG') {
            const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true })
            return [ms, photoEffect(photo!, { width: info.width, height: info.height, channels: info.channels, data }, PHOTO_AREA)]
          }
          const { data, info } = await image.extract({ left: TARGET.x, top: TARGET.y, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true })
          const red = data[0]! > 200 && data[1]! < 60 && data[2]! < 60 && info.channels >= 3
          return [ms, red ? undefined : `the page's red target not in the image: ${[...data].join(',')}`]
        }
      }
    }

    const rows: PeerRow[] = []
    const peers = drivers.map((d) => d.name)
    // The table is printed as it is measured, a row at a time; the rest comes at the end.
    for (const [name, why] of Object.entries(unavailable)) console.log(`  ${name}: not measured: ${why}`)
    console.log(`peers (one Xvfb: Chromium's event page, then an xterm, then Firefox on a photo; each action's effect checked; p50 / p99 ms, effective of n; ` +
      `${iterations} round${iterations === 1 ? '' : 's'}: ${iterations} sample${iterations === 1 ? '' : 's'} a row per peer, ${iterations * counts.oursPerRound} for ours):`)
    console.log(tableHeader(peers))
    const measureRows = async (kinds: readonly Kind[]) => {
      for (const kind of kinds) {
        const began = performance.now()
        const samples = drivers.map(() => [] as number[])
        const effective = drivers.map(() => 0)
        const misses: Array<string | undefined> = drivers.map(() => undefined)
        const errors: Array<string | undefined> = drivers.map(() => undefined)
        const floors: number[] = []
        for (let i = 0; i < iterations; i++) {
          for (const [k, d] of drivers.entries()) {
            // Ours several times a round, each sample its own point (once's index).
            const reps = k === 0 ? counts.oursPerRound : 1
            for (let r = 0; r < reps && !errors[k]; r++) {
              try {
                const [ms, miss] = await once(d, kind, i * reps + r)
                samples[k]!.push(ms)
                if (miss === undefined) effective[k]!++
                else misses[k] ??= miss
              } catch (error) { errors[k] = (error as Error).message }
            }
          }
          if (!SCREENSHOT_KINDS.has(kind)) floors.push(await probes.http.sample(i) + await probes.xtest.sample(i))
        }
        rows.push({
          kind,
          results: Object.fromEntries(drivers.map((d, k) => [d.name, errors[k] && samples[k]!.length === 0
            ? { error: errors[k]! }
            : { p50: percentile(samples[k]!, 50), p99: percentile(samples[k]!, 99), n: samples[k]!.length, effective: effective[k]!, ...(misses[k] && { firstMiss: misses[k] }), ...(errors[k] && { firstMiss: errors[k] }) }])),
          ...(floors.length > 0 && { floor: { p50: percentile(floors, 50), n: floors.length } }),
        })
        console.log(`${formatRow(rows.at(-1)!, peers)}   (${((performance.now() - began) / 1000).toFixed(0)} s)`)
      }
    }
    await measureRows(PAGE_KINDS)

    // What each costs, measured while the page's Chromium runs (the browser of this desktop).
    const footprint = await measureFootprint({ xvfb: xvfb.pid, ours: ours.pid!, ourPort, cua: cuaPid, cuaPort, floor: floorChild!.pid!, floorProbe: probes.http, moves: counts.moves })
      .catch((error: unknown) => ({ error: (error as Error).message }))

    /** A phase whose application does not start: its rows say why in every column, the rest go on. */
    const failedRows = (kinds: readonly Kind[], error: unknown) => {
      for (const kind of kinds) {
        rows.push({ kind, results: Object.fromEntries(drivers.map((d) => [d.name, { error: `not started: ${(error as Error).message}` }])) })
        console.log(formatRow(rows.at(-1)!, peers))
      }
    }
    try {
      terminal = await startTerminal(xEnv)
      await measureRows(TERMINAL_KINDS)
    } catch (error) { failedRows(TERMINAL_KINDS.filter((k) => !rows.some((r) => r.kind === k)), error) } finally { await terminal?.stop() }

    try {
      const page = await startPhotoPage(xEnv, () => drivers[0]!.screenshot())
      try {
        photo = page.photo
        await measureRows(PHOTO_KINDS)
      } finally { await page.stop() }
    } catch (error) { failedRows(PHOTO_KINDS.filter((k) => !rows.some((r) => r.kind === k)), error) }

    const accessibility = await officeTrees({ display: xvfb.display, env: xEnv, ourPort, cuaPort, snapshots: counts.calcSnapshots })
      .catch((error: unknown): OfficeTrees => ({ error: (error as Error).message }))

    const typingExact = Object.fromEntries(rows.filter((r) => TYPED[r.kind] !== undefined).map((row) => [row.kind, Object.fromEntries(drivers.map((d) => {
      const result = row.results[d.name]!
      return [d.name, !('error' in result) && result.effective === result.n]
    }))]))
    const targets: Array<[string, boolean]> = rows.map((row) => {
      const p50 = (name: string) => { const r = row.results[name]!; return 'error' in r ? Infinity : r.p50 }
      const fastest = drivers.slice(1).map((d) => d.name).sort((a, b) => p50(a) - p50(b))[0]
      const ratio = fastest === undefined ? Infinity : p50(fastest) / p50(drivers[0]!.name)
      return [`peers: ${row.kind} ≥ ${PEER_RATIO}x faster than the fastest peer (${fastest ?? 'none'}: ${ratio.toFixed(1)}x)`, ratio >= PEER_RATIO]
    })
    for (const [kind, exact] of Object.entries(typingExact)) targets.push([`peers: ours types ${kind}'s text exactly`, exact[drivers[0]!.name] === true])
    const result: PeersBench = { peers, unavailable, rows, typingExact, footprint, accessibility, targets, counts }
    print(result)
    console.log(`peers: at the end, ${machineLine(await machineSnapshot(), start)}`)
    return result
  } finally {
    await done.run()
  }
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : ms.toFixed(0))

/** One row of the table: each peer's p50 / p99 (effective/n), the floor, ours ÷ floor, each peer ÷ ours. */
export function formatRow (row: PeerRow, peers: string[]): string {
  const [ours, ...others] = peers
  const cell = (name: string) => {
    const r = row.results[name]
    if (r === undefined) return 'not measured'
    return 'error' in r ? `failed: ${r.error.slice(0, 80)}` : `${fmt(r.p50)} / ${fmt(r.p99)} (${r.effective}/${r.n})`
  }
  const ourResult = row.results[ours!]
  const ourP50 = ourResult === undefined || 'error' in ourResult ? NaN : ourResult.p50
  return [
    row.kind, ...peers.map(cell),
    row.floor ? fmt(row.floor.p50) : 'bench/screens.ts',
    row.floor ? `${(ourP50 / row.floor.p50).toFixed(1)}x` : '—',
    ...others.map((n) => { const r = row.results[n]; return r === undefined || 'error' in r || Number.isNaN(ourP50) ? '—' : `${(r.p50 / ourP50).toFixed(1)}x` }),
  ].join(' | ')
}

/** The table's header line: the columns formatRow fills. */
export function tableHeader (peers: string[]): string {
  return ['action', ...peers, 'floor ms', 'ours ÷ floor', ...peers.slice(1).map((n) => `÷ ${n.split(' ')[0]}`)].join(' | ')
}

/** What follows the table (printed a row at a time as measured): the misses, typing, footprint, accessibility, targets. */
function print ({ unavailable, rows, typingExact, footprint, accessibility, targets }: PeersBench): void {
  for (const row of rows) {
    for (const [name, r] of Object.entries(row.results)) if (!('error' in r) && r.firstMiss) console.log(`  ${row.kind}, ${name}: ${r.effective} of ${r.n} had their effect; first miss: ${r.firstMiss}`)
  }
  for (const [kind, exact] of Object.entries(typingExact)) console.log(`  ${kind}, typed exactly in every sample: ${Object.entries(exact).map(([n, ok]) => `${n} ${ok ? 'yes' : 'NO'}`).join(', ')}`)
  if ('error' in footprint) console.log(`density and CPU per move: not measured: ${footprint.error}`)
  else printFootprint(footprint)
  if ('error' in accessibility) console.log(`accessibility (LibreOffice Calc): not measured: ${accessibility.error}`)
  else {
    console.log(`accessibility (LibreOffice Calc, the foreground window): ours ${accessibility.ours.nodes} nodes, p50 ${fmt(accessibility.ours.p50)} ms (n ${accessibility.ours.n}); ` +
      (accessibility.cua ? `cua get_accessibility_tree ${accessibility.cua.nodes} node${accessibility.cua.nodes === 1 ? '' : 's'} (${accessibility.cua.note}), p50 ${fmt(accessibility.cua.p50)} ms` : 'cua: not running') +
      `; ${accessibility.others}`)
  }
  for (const [name, why] of Object.entries(unavailable)) console.log(`  ${name}: not measured: ${why}`)
  for (const [target, met] of targets) console.log(`${met ? 'MET ' : 'MISS'} ${target}`)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [smoke, quick] = [process.argv.includes('--smoke'), process.argv.includes('--quick')]
  // Final numbers only from a quiet machine (bench/quiet.ts): refused, with the load seen, otherwise.
  await requireQuiet(!smoke && !quick)
  await benchPeers({ smoke, quick })
}
