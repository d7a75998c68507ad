/**
 * What one desktop costs, by part, for ours and for the peers on the same display: memory as
 * PSS (/proc/PID/smaps_rollup: shared pages split between the processes that map them, so the
 * parts add up), and CPU time per 1000 mouse moves (/proc/PID/stat utime + stime) against an
 * empty Fastify POST's, the physical floor of an HTTP round trip.
 */
import { readFile } from 'node:fs/promises'
import { client } from '../http-client.ts'
import { childrenOf, commandLine, cpuMs } from '../servers.ts'

/** A process and everything under it. */
export async function tree (pid: number): Promise<number[]> {
  const below = await Promise.all((await childrenOf(pid)).map(tree))
  return [pid, ...below.flat()]
}

/** PSS in MB of the processes (0 for one that is gone). */
export async function pssMb (pids: number[]): Promise<number> {
  let kb = 0
  for (const pid of pids) {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '')
    kb += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0)
  }
  return kb / 1024
}

/** This process's children whose command line matches `pattern` (the programs the bench started). */
export async function ownChildren (pattern: RegExp): Promise<number[]> {
  const found: number[] = []
  for (const pid of await childrenOf(process.pid)) {
    const argv = await commandLine(pid)
    // setpriv --pdeathsig execs the program in place: its command line is the program's.
    if (argv?.some((arg) => pattern.test(arg))) found.push(pid)
  }
  return found
}

/** CPU ms of the processes, summed. */
export async function cpuOf (pids: number[]): Promise<number> {
  let ms = 0
  for (const pid of pids) ms += await cpuMs(pid)
  return ms
}

/** CPU ms per 1000 of `n` calls of `act`, of the processes `pids` (read before and after, in ticks of 10 ms). */
export async function cpuPer1000 (n: number, act: (i: number) => Promise<unknown>, pids: number[], also: number[] = []): Promise<{ ms: number, alsoMs: number, n: number }> {
  const [before, alsoBefore] = [await cpuOf(pids), await cpuOf(also)]
  for (let i = 0; i < n; i++) await act(i)
  const [after, alsoAfter] = [await cpuOf(pids), await cpuOf(also)]
  return { ms: (after - before) * 1000 / n, alsoMs: (alsoAfter - alsoBefore) * 1000 / n, n }
}

/** Desktops whose parts sum to `mb` that one GiB holds. */
export const perGiB = (mb: number) => 1024 / mb

export interface MemoryPart { part: string, mb: number }

/** One line per part and the desktops per GiB of a stack of parts (e.g. Xvfb + browser + server). */
export function densityLine (name: string, parts: MemoryPart[]): string {
  const total = parts.reduce((sum, p) => sum + p.mb, 0)
  return `${name}: ${parts.map((p) => `${p.part} ${p.mb.toFixed(1)}`).join(' + ')} = ${total.toFixed(1)} MB, ${perGiB(total).toFixed(2)} desktops per GiB`
}

export interface Footprint {
  /** PSS MB of each part of this desktop, read while the page's Chromium runs. */
  memory: { xvfb: number, windowManager: number, browser: number, ours: number, cua?: number }
  /** Desktops per GiB: Xvfb + window manager + browser + the server. */
  perGiB: { ours: number, cua?: number }
  /** CPU ms per 1000 moves of the server (ours: with its worker) and, apart, of Xvfb meanwhile. */
  cpuPer1000Moves: { moves: number, ours: { server: number, xvfb: number }, cua?: { server: number, xvfb: number }, emptyPost: number }
}

export interface FootprintOptions {
  xvfb: number
  ours: number
  ourPort: number
  cua?: number
  cuaPort?: number
  /** The empty Fastify POST's server and its probe (bench/floor.ts). */
  floor: number
  floorProbe: { sample (i: number): Promise<number> }
  moves: number
}

export async function measureFootprint (options: FootprintOptions): Promise<Footprint> {
  const browser = (await Promise.all((await ownChildren(/chrom/i)).map(tree))).flat()
  const memory = {
    xvfb: await pssMb([options.xvfb]),
    windowManager: await pssMb(await ownChildren(/(^|\/)jwm$/)),
    browser: await pssMb(browser),
    ours: await pssMb(await tree(options.ours)),
    ...(options.cua !== undefined && { cua: await pssMb(await tree(options.cua)) }),
  }
  const desktop = memory.xvfb + memory.windowManager + memory.browser
  const point = (i: number) => [100 + (i * 7) % 1000, 100 + (i * 13) % 600]
  // Moves in turn, each server's own window of `moves` calls: ours, cua, the empty POST.
  const http = client(options.ourPort)
  let ours, cua
  try {
    const ourPids = await tree(options.ours)
    ours = await cpuPer1000(options.moves, async (i) => {
      const answer = await http.post('/computer', { action: 'move_mouse', coordinates: point(i) })
      if (answer.status !== 200) throw new Error(`ours move_mouse: ${answer.status} ${answer.body.slice(0, 200)}`)
    }, ourPids, [options.xvfb])
  } finally { http.close() }
  if (options.cua !== undefined && options.cuaPort !== undefined) {
    const cuaHttp = client(options.cuaPort)
    try {
      cua = await cpuPer1000(options.moves, async (i) => {
        const [x, y] = point(i)
        const answer = await cuaHttp.post('/cmd', { command: 'move_cursor', params: { x, y } })
        if (answer.status !== 200 || !answer.body.includes('"success": true')) throw new Error(`cua move_cursor: ${answer.status} ${answer.body.slice(0, 200)}`)
      }, await tree(options.cua), [options.xvfb])
    } finally { cuaHttp.close() }
  }
  const empty = await cpuPer1000(options.moves, (i) => options.floorProbe.sample(i), [options.floor])
  return {
    memory,
    perGiB: { ours: perGiB(desktop + memory.ours), ...(memory.cua !== undefined && { cua: perGiB(desktop + memory.cua) }) },
    cpuPer1000Moves: {
      moves: options.moves,
      ours: { server: ours.ms, xvfb: ours.alsoMs },
      ...(cua && { cua: { server: cua.ms, xvfb: cua.alsoMs } }),
      emptyPost: empty.ms,
    },
  }
}

/** The footprint's lines: memory by part and desktops per GiB, then CPU per 1000 moves as ratios. */
export function footprintLines ({ memory, cpuPer1000Moves: cpu }: Footprint): string[] {
  const desktop: MemoryPart[] = [{ part: 'Xvfb', mb: memory.xvfb }, { part: 'window manager (jwm)', mb: memory.windowManager }, { part: 'browser (Chromium)', mb: memory.browser }]
  const lines = [
    'density (PSS MB by part, this desktop; OSWorld pyautogui per call and the xdotool loops keep no process between actions):',
    `  ${densityLine('ours', [...desktop, { part: 'server + worker', mb: memory.ours }])}`,
  ]
  if (memory.cua !== undefined) lines.push(`  ${densityLine('cua computer-server', [...desktop, { part: 'server', mb: memory.cua }])}; its server ${(memory.cua / memory.ours).toFixed(2)}x ours`)
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(1)}x` : '—')
  lines.push(`CPU per 1000 moves (${cpu.moves} each, /proc/PID/stat, ticks of 10 ms): ours ${cpu.ours.server.toFixed(0)} ms (+ Xvfb ${cpu.ours.xvfb.toFixed(0)}); empty Fastify POST ${cpu.emptyPost.toFixed(0)} ms; ours ÷ empty POST ${ratio(cpu.ours.server, cpu.emptyPost)}` +
    (cpu.cua ? `; cua move_cursor ${cpu.cua.server.toFixed(0)} ms (+ Xvfb ${cpu.cua.xvfb.toFixed(0)}), cua ÷ ours ${ratio(cpu.cua.server, cpu.ours.server)}, cua ÷ empty POST ${ratio(cpu.cua.server, cpu.emptyPost)}` : ''))
  return lines
}

export function printFootprint (footprint: Footprint): void {
  for (const line of footprintLines(footprint)) console.log(line)
}
