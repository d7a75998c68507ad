/**
 * `npm run bench` in its shortest mode, so it cannot rot: it runs every action kind against
 * every server, prints the table and the targets, and writes its JSON. How fast is the
 * bench's business (bench/README.md), not this test's.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { spawnOwned, stopOwned } from './helpers/processes.ts'

const DEADLINE_MS = 170_000
const KINDS = ['move', 'click', 'double click', 'key combo ctrl+a', 'type 20 ASCII', 'type 20 non-ASCII', 'type 40 non-ASCII, a rebind', 'scroll 3 notches',
  'drag 10 points', 'screenshot 1280x800', 'screenshot → 1024x768', 'batch of 10']

t.test('the bench runs end to end and reports every row', { timeout: 180_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cg-bench-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const out = join(dir, 'bench.json')
  // Owned (ended at teardown, and with this process if it is killed), as its own servers are the bench's.
  const bench = spawnOwned(t, process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke', '--out', out], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  bench.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  bench.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-4000) })
  const deadline = setTimeout(() => { void stopOwned(bench) }, DEADLINE_MS)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => bench.once('close', (...exit) => resolve(exit)))
  clearTimeout(deadline)
  t.equal(code, 0, `the bench exits with 0 (${signal ?? `code ${code}`}): ${stderr.trim().slice(-1500)}`)
  for (const kind of KINDS) t.match(stdout, new RegExp(`^${kind.replace(/[+→]/g, '.')} \\| [\\d.]+ / [\\d.]+ \\|`, 'm'), `row ${kind}`)
  t.match(stdout, /^floor: XTest fake input \+ reply .* [\d.]+ \/ [\d.]+ ms; empty Fastify POST .* [\d.]+ \/ [\d.]+ ms/m)
  t.match(stdout, /^(MET |MISS) click ≤ 3x its floor/m)
  t.match(stdout, /^throughput: \d+ moves\/s/m)
  t.match(stdout, /^cold start .*: \d+ ms$/m)
  t.match(stdout, /^(MET |MISS) click p50/m)
  t.match(stdout, /bench: done/)
  const json = JSON.parse(await readFile(out, 'utf8'))
  t.equal(json.smoke, true)
  t.ok(json.floors.xtest.p50 > 0 && json.floors.http.p50 > 0, 'both floors measured')
  t.strictSame(json.rows.map((row: { kind: string }) => row.kind), KINDS)
  for (const row of json.rows) {
    for (const [name, result] of Object.entries(row.results as Record<string, { p50: number }>)) {
      t.ok(result.p50 > 0, `${row.kind} measured on ${name}`)
    }
  }
})
