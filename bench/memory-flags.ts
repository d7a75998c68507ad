/**
 * What `npm start`'s memory flags (bin/computer-gateway.js's shebang: MALLOC_ARENA_MAX=2,
 * --max-semi-space-size=2, --optimize-for-size) cost in CPU, against the same server without
 * them, on one Xvfb: CPU (server + driver worker, from /proc) per move and per PNG screenshot,
 * in interleaved blocks so a busy moment hits both alike, and each one's memory after (PSS of
 * server and worker). The screen shows a photograph, where a screenshot's strings are largest.
 * `node --import tsx bench/memory-flags.ts [--quick]`
 */
import { execFile } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { startXvfb } from '../drivers/x11/xvfb.ts'
import { spawnOwned, stopOwned } from '../test/helpers/processes.ts'
import { client } from './http-client.ts'
import { photoPixels } from './photo.ts'
import { childrenOf, cpuMs, freePort, root, waitHttp } from './servers.ts'

const quick = process.argv.includes('--quick')
const ROUNDS = quick ? 3 : 10
const MOVES = 200
const SHOTS = 10
const server = fileURLToPath(new URL('dist/src/runtime/server.js', root))

const variants = [
  { name: 'semi-space 2 MB, optimize-for-size, single-threaded GC', args: ['--max-semi-space-size=2', '--optimize-for-size', '--single-threaded-gc', server], env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'semi-space 2 MB, single-threaded GC', args: ['--max-semi-space-size=2', '--single-threaded-gc', server], env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'semi-space 2 MB, optimize-for-size', args: ['--max-semi-space-size=2', '--optimize-for-size', server], env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'single-threaded GC', args: ['--single-threaded-gc', server], env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'MALLOC_ARENA_MAX=2 only', args: [server], env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'without', args: [server], env: {} },
]

/** Proportional set size (MB) of a process: what it costs the host, shared pages split among their users. */
async function pssMb (pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises')
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '')
  return Math.round(Number(/Pss:\s+(\d+)/.exec(rollup)?.[1] ?? 0) / 1024)
}

const xvfb = await startXvfb({ screen: '1280x800x24' })
const photo = join(tmpdir(), `cg-bench-photo-${process.pid}.png`)
await sharp(await photoPixels(1280, 800, 7), { raw: { width: 1280, height: 800, channels: 3 } }).png().toFile(photo)
// display sets the root window's background and exits, with status 1 even when it did.
await new Promise((resolve) => execFile('display', ['-window', 'root', photo], { env: { ...process.env, DISPLAY: xvfb.display, XAUTHORITY: xvfb.authority }, timeout: 30_000 }, resolve))
await rm(photo, { force: true })
const started: Array<{ name: string, port: number, pid: number, child: ReturnType<typeof spawnOwned> }> = []
try {
  for (const variant of variants) {
    const port = await freePort()
    const child = spawnOwned(undefined, process.execPath, [...variant.args, '--port', String(port)], {
      cwd: root, stdio: 'ignore', env: { ...process.env, ...variant.env, DISPLAY: xvfb.display, XAUTHORITY: xvfb.authority, LOG_LEVEL: 'silent' },
    })
    started.push({ name: variant.name, port, pid: child.pid!, child })
  }
  for (const s of started) await waitHttp(s.port, { action: 'move_mouse', coordinates: [1, 1] }, 60_000)
  const cpu = started.map(() => ({ moves: 0, shots: 0 }))
  const of = async (pid: number) => (await Promise.all([pid, ...await childrenOf(pid)].map(cpuMs))).reduce((a, b) => a + b, 0)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, s] of started.entries()) {
      const http = client(s.port)
      let before = await of(s.pid)
      for (let k = 0; k < MOVES; k++) await http.post('/computer', { action: 'move_mouse', coordinates: [100 + k, 100 + round] })
      cpu[i]!.moves += await of(s.pid) - before
      before = await of(s.pid)
      for (let k = 0; k < SHOTS; k++) await http.post('/computer', { action: 'take_screenshot' })
      cpu[i]!.shots += await of(s.pid) - before
      http.close()
    }
  }
  console.log('server flags | CPU per move ms | CPU per photo screenshot ms | PSS server + worker MB')
  for (const [i, s] of started.entries()) {
    const pss = (await Promise.all([s.pid, ...await childrenOf(s.pid)].map(pssMb))).reduce((a, b) => a + b, 0)
    console.log(`${s.name} | ${(cpu[i]!.moves / (ROUNDS * MOVES)).toFixed(2)} | ${(cpu[i]!.shots / (ROUNDS * SHOTS)).toFixed(1)} | ${pss}`)
  }
} finally {
  await Promise.all(started.map((s) => stopOwned(s.child)))
  await xvfb.stop()
}
