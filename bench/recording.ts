/**
 * The cost of --record: the same click and screenshot on two servers over one Xvfb, one plain
 * and one recording (ffmpeg's video at 5 fps running, each request stored as a step of an
 * episode with its screenshots), interleaved (plain, recorded, plain, …) so drift hits both
 * alike. Run alone: `node --import tsx bench/recording.ts [--quick]`; prints one row per action.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { startXvfb } from '../drivers/x11/xvfb.ts'
import { spawnOwned, stopOwned } from '../test/helpers/processes.ts'
import { client } from './http-client.ts'
import { type Stats, fmt, stats } from './percentile.ts'

export interface RecordingRow { kind: string, plain: Stats, recorded: Stats }

const point = (i: number): [number, number] => [200 + (i * 37) % 800, 150 + (i * 53) % 500]
const root = fileURLToPath(new URL('..', import.meta.url))

const KINDS: Array<{ kind: string, body: (i: number) => unknown }> = [
  { kind: 'click', body: (i) => ({ action: 'click_mouse', button: 'left', coordinates: point(i) }) },
  { kind: 'screenshot 1280x800', body: () => ({ action: 'take_screenshot' }) },
]

function server (display: string, port: number, extra: string[]): ChildProcess {
  return spawnOwned(undefined, process.execPath, ['--import', 'tsx', 'src/runtime/server.ts', '--port', String(port), '--log-level', 'silent', ...extra], {
    cwd: root, env: { ...process.env, DISPLAY: display }, stdio: 'ignore',
  })
}

async function ready (port: number): Promise<void> {
  const http = client(port)
  try {
    for (let i = 0; i < 400; i++) {
      if (await http.get('/health').then((r) => r.status === 200, () => false)) return
      await delay(50)
    }
    throw new Error(`no server on port ${port}`)
  } finally { http.close() }
}

/** The rows on `display` (its own servers, ended before it returns). */
export async function recordingBench (display: string, iterations: number, ports: [number, number]): Promise<RecordingRow[]> {
  const store = await mkdtemp(join(tmpdir(), 'cg-bench-recordings-'))
  const children = [
    server(display, ports[0], []),
    server(display, ports[1], ['--record', '--record-dir', store, '--record-min-free-mb', '0']),
  ]
  const plain = client(ports[0])
  const recorded = client(ports[1], 1, { 'x-recording-id': 'bench' })
  try {
    await Promise.all(ports.map(ready))
    // The episode (and its video) starts with its first request, which is not measured.
    await recorded.post('/computer', { action: 'get_cursor_position' })
    await plain.post('/computer', { action: 'get_cursor_position' })
    const rows: RecordingRow[] = []
    for (const { kind, body } of KINDS) {
      const samples: [number[], number[]] = [[], []]
      for (let i = 0; i < iterations; i++) {
        for (const [side, http] of [plain, recorded].entries()) {
          const started = performance.now()
          const response = await http.post('/computer', body(i))
          samples[side]!.push(performance.now() - started)
          if (response.status !== 200) throw new Error(`${kind}: ${response.status} ${response.body.slice(0, 200)}`)
        }
      }
      rows.push({ kind, plain: stats(samples[0]), recorded: stats(samples[1]) })
    }
    const episode = JSON.parse((await recorded.get('/recordings')).body) as { recordings: Array<{ steps: number, bytes: number, video: boolean }> }
    const [made] = episode.recordings
    console.log(`recorded: ${made?.steps} steps, ${((made?.bytes ?? 0) / 1024 / 1024).toFixed(1)} MB with video: ${made?.video}`)
    return rows
  } finally {
    plain.close()
    recorded.close()
    await Promise.all(children.map((child) => stopOwned(child)))
    await rm(store, { recursive: true, force: true })
  }
}

export function printRows (rows: RecordingRow[]): void {
  console.log('| action | plain p50/p95 ms | --record p50/p95 ms | recording costs (p50) |')
  console.log('|---|---|---|---|')
  for (const row of rows) {
    console.log(`| ${row.kind} | ${fmt(row.plain.p50)} / ${fmt(row.plain.p95)} | ${fmt(row.recorded.p50)} / ${fmt(row.recorded.p95)} | ${fmt(row.recorded.p50 - row.plain.p50)} ms |`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick')
  const xvfb = await startXvfb({ screen: '1280x800x24' })
  try {
    const { freePort } = await import('../test/helpers/net.ts')
    printRows(await recordingBench(xvfb.display, quick ? 5 : 30, [await freePort(), await freePort()]))
  } finally {
    await xvfb.stop()
  }
}
