/**
 * npm run stress — the server as users (and abusers) meet it: fuzzed requests, browsers,
 * misbehaving clients, mixed load, X and worker deaths, a hung worker, a soak. Prints a table
 * and every check, writes the figures to stress/last-run.json, and exits non-zero when a check
 * fails. `--help` for the options.
 */
import { existsSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { execFileSync } from 'node:child_process'
import { Checks, Processes, ROOT, workdir } from './harness.ts'
import { clients, faults, fuzz, hung, load, soak, web, type Context } from './phases.ts'

const PHASES = ['fuzz', 'web', 'clients', 'load', 'hung', 'faults', 'soak'] as const
type Phase = typeof PHASES[number]

const HELP = `Usage: npm run stress -- [options]

  --quick              a short version of every phase (5–8 minutes: each request beyond a
                       bound that a server accepts costs up to its 15 s deadline and a fresh server)
  --only a,b           run only these phases: ${PHASES.join(', ')}
  --seed N             fuzz and load seed (default 1)
  --fuzz-cases N       fuzz requests (default 20000; quick 2000)
  --load-s S           mixed load duration (default 60; quick 10)
  --soak-s S           soak duration (default 300; quick 20)
  --clients N          concurrent clients under load (default 10)
  --xvfb-kills N       Xvfb kill -9 under load (default 5; quick 2)
  --worker-kills N     driver worker kills under load (default 3; quick 1)
  --deadline-ms MS     longest any request may go unanswered (default 15000)
  --slow-cut-s S       how soon slowloris connections must be cut (default 95)
  --app-via-server     the xterm is launched by the server (launch_app, --allow-app), not spawned here
  --xauthority FILE    X authority file for the application, when the server does not say
  --out FILE           where the JSON goes (default stress/last-run.json)
`

function args (argv: string[]) {
  const value = (name: string) => {
    const i = argv.indexOf(name)
    return i >= 0 ? argv[i + 1] : undefined
  }
  const num = (name: string, full: number, short: number) => {
    const v = value(name)
    if (v === undefined) return quick ? short : full
    const n = Number(v)
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} wants a number, got ${v}`)
    return n
  }
  const quick = argv.includes('--quick')
  const only = value('--only')?.split(',').map((s) => s.trim()).filter(Boolean) as Phase[] | undefined
  for (const p of only ?? []) if (!PHASES.includes(p)) throw new Error(`unknown phase ${p} (phases: ${PHASES.join(', ')})`)
  return {
    help: argv.includes('--help'),
    quick,
    phases: only ?? [...PHASES],
    seed: num('--seed', 1, 1),
    fuzzCases: num('--fuzz-cases', 20_000, 2000),
    loadMs: num('--load-s', 60, 10) * 1000,
    soakMs: num('--soak-s', 300, 20) * 1000,
    clients: num('--clients', 10, 10),
    xvfbKills: num('--xvfb-kills', 5, 2),
    workerKills: num('--worker-kills', 3, 1),
    deadlineMs: num('--deadline-ms', 15_000, 15_000),
    // Node's own guard cuts a request whose headers take over 60 s, checked every 30 s: 95 s
    // leaves a server that relies on it room to pass, and none that never cuts.
    slowCutMs: num('--slow-cut-s', 95, 95) * 1000,
    xauthority: value('--xauthority') ?? process.env.STRESS_XAUTHORITY,
    appVia: argv.includes('--app-via-server') ? 'launch_app' as const : 'spawn' as const,
    out: value('--out') ?? new URL('./last-run.json', import.meta.url).pathname,
  }
}

async function main (): Promise<number> {
  let options
  try { options = args(process.argv.slice(2)) } catch (e) { process.stderr.write(`stress: ${(e as Error).message}\n${HELP}`); return 2 }
  if (options.help) { process.stdout.write(HELP); return 0 }
  if (!existsSync(`${ROOT}dist/src/runtime/server.js`)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' })

  const procs = new Processes()
  let interrupted = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return
    interrupted = true
    process.stderr.write(`stress: ${signal}; ending every process started\n`)
    void procs.endAll().finally(() => process.exit(130))
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)

  const dir = await workdir()
  const checks = new Checks()
  const started = Date.now()
  const ctx: Context = {
    procs, checks, workdir: dir, deadlineMs: options.deadlineMs,
    log: (line) => process.stdout.write(`  ${new Date().toISOString().slice(11, 19)} ${line}\n`),
    ...(options.xauthority && { xauthority: options.xauthority }),
    appVia: options.appVia,
  }
  const results: Record<string, unknown> = {}
  try {
    for (const phase of options.phases) {
      const t0 = Date.now()
      process.stdout.write(`stress: ${phase}…\n`)
      try {
        results[phase] = await run(phase, ctx, options)
      } catch (error) {
        // A phase that could not run is a failed check, never a silent skip.
        checks.add(phase, 'the phase ran to its end', false, (error as Error).stack?.split('\n').slice(0, 3).join(' ') ?? String(error))
        results[phase] = { error: (error as Error).message }
      }
      const failed = checks.list.filter((c) => c.phase === phase && !c.ok).length
      process.stdout.write(`stress: ${phase} done in ${Math.round((Date.now() - t0) / 1000)} s, ${failed} failed check(s)\n`)
    }
  } finally {
    await procs.endAll()
  }
  const report = { date: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), options, results, checks: checks.list }
  await writeFile(options.out, JSON.stringify(report, null, 2))
  print(results, checks)
  process.stdout.write(`\nfigures: ${options.out}; server logs were in ${dir}\n`)
  if (checks.failed.length === 0) await rm(dir, { recursive: true, force: true })
  if (checks.failed.length > 0) {
    process.stdout.write(`\nstress: ${checks.failed.length} of ${checks.list.length} checks FAILED:\n`)
    for (const c of checks.failed) process.stdout.write(`  ✗ [${c.phase}] ${c.name}: ${c.detail}\n`)
    return 1
  }
  process.stdout.write(`\nstress: all ${checks.list.length} checks passed\n`)
  return 0
}

function run (phase: Phase, ctx: Context, o: ReturnType<typeof args>) {
  const recoveryDeadlineMs = 30_000
  switch (phase) {
    case 'fuzz': return fuzz(ctx, { seed: o.seed, count: o.fuzzCases, concurrency: 8 })
    case 'web': return web(ctx)
    case 'clients': return clients(ctx, { idleSockets: 200, slowSockets: 25, slowCutMs: o.slowCutMs })
    case 'load': return load(ctx, { clients: o.clients, durationMs: o.loadMs, seed: o.seed })
    case 'hung': return (async () => ({
      worker: await hung(ctx, { target: 'worker', clients: o.clients, dwellMs: 2000, recoveryDeadlineMs, seed: o.seed }),
      xvfb: await hung(ctx, { target: 'Xvfb', clients: o.clients, dwellMs: 2000, recoveryDeadlineMs, seed: o.seed }),
    }))()
    case 'faults': return faults(ctx, { xvfbKills: o.xvfbKills, workerKills: o.workerKills, clients: o.clients, dwellMs: o.quick ? 1500 : 3000, recoveryDeadlineMs, seed: o.seed })
    case 'soak': return soak(ctx, { clients: o.clients, durationMs: o.soakMs, sampleMs: o.quick ? 2000 : 10_000, seed: o.seed })
  }
}

function print (results: Record<string, unknown>, checks: Checks) {
  const r = results as Record<string, Record<string, any>> // eslint-disable-line @typescript-eslint/no-explicit-any
  const rows: Array<[string, string]> = []
  const statuses = (s: Record<string, number> | undefined) => Object.entries(s ?? {}).map(([k, v]) => `${k}×${v}`).join(' ')
  if (r.fuzz && !r.fuzz.error) {
    rows.push(['fuzz', `${r.fuzz.cases} cases in ${r.fuzz.seconds} s (${r.fuzz.perSecond}/s, seed ${r.fuzz.seed}): ${statuses(r.fuzz.statuses)}`])
    for (const h of r.fuzz.heavy ?? []) rows.push(['fuzz bound', `${h.kind} → ${h.status} in ${h.ms} ms; held after: ${h.heldAfter.join(', ') || 'nothing'}; ready after: ${h.readyAfter}${h.freshServer ? ' (on a fresh server)' : ''}`])
  }
  if (r.web && !r.web.error) for (const [k, v] of Object.entries(r.web.results)) rows.push(['web', `${k} → ${v}`])
  if (r.clients && !r.clients.error) {
    const c = r.clients
    if (c.idle) rows.push(['clients', `${c.idle.sockets} idle sockets: a move answered in ${c.idle.moveMs} ms`])
    for (const k of ['slow_headers', 'slow_body']) if (c[k]) rows.push(['clients', `slowloris ${k.slice(5)}: ${c[k].cut}/${c[k].sockets} cut, last after ${c[k].lastCutS} s`])
  }
  const loadRow = (name: string, l: any) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    if (!l) return
    rows.push([name, `${l.requests} requests in ${l.seconds} s (${l.perSecond}/s): ${statuses(l.statuses)}; p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms`])
  }
  if (r.load && !r.load.error) {
    loadRow('load', r.load)
    rows.push(['load', `markers: ${r.load.markers.typed} typed, ${r.load.markers.found} found, ${r.load.markers.missing} missing, ${r.load.markers.fragments} fragments`])
    rows.push(['load', Object.entries(r.load.byKind as Record<string, { n: number, p50: number, p99: number }>).map(([k, v]) => `${k} ${v.p50}/${v.p99}`).join(', ') + ' (p50/p99 ms)'])
  }
  if (r.hung && !r.hung.error) {
    for (const h of [r.hung.worker, r.hung.xvfb]) {
      rows.push(['hung', `${h.target} (pid ${h.pid}) stopped: back in ${h.recoveredMs ?? 'never'} ms`])
      loadRow(`hung ${h.target} load`, h.load)
    }
  }
  if (r.faults && !r.faults.error) {
    for (const f of r.faults.faults) rows.push(['faults', `${f.fault} kill (pid ${f.pid ?? '?'}): back in ${f.recoveredMs ?? 'never'} ms, application in ${f.appBackMs ?? 'never'} ms${f.note ? ` — ${f.note}` : ''}`])
    loadRow('faults load', r.faults.load)
  }
  if (r.soak && !r.soak.error) {
    const s = r.soak.rss
    rows.push(['soak', `RSS (server + children) start ${s.startMb} MB, end ${s.endMb} MB, max ${s.maxMb} MB, trend ${s.trendMbPerMin} MB/min (${s.samples.length} samples)`])
    loadRow('soak load', r.soak.load)
  }
  process.stdout.write('\n| phase | figures |\n|---|---|\n')
  for (const [p, f] of rows) process.stdout.write(`| ${p} | ${f} |\n`)
  process.stdout.write('\n')
  for (const c of checks.list) process.stdout.write(`${c.ok ? 'PASS' : 'FAIL'} [${c.phase}] ${c.name}${c.detail ? ` — ${c.detail}` : ''}\n`)
}

process.exitCode = await main()
