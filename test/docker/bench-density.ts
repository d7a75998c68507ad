/**
 * bench/fleet-density.ts in its smoke mode on the real engine, so the density bench cannot rot:
 * one full desktop through the fleet (its Firefox on the bench's page), driven for 5 s; the step's
 * row with every part of the desktop's memory measured, what each action costs the desktop by
 * part, the verdict lines, and, once it exits,
 * nothing left on the engine under its fleet id (the containers are seen labelled while it runs).
 * How fast is the bench's business (bench/README.md), not this test's.
 */
import t from 'tap'
import { spawnOwned, stopOwned } from '../helpers/processes.ts'
import { run } from './engine.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const DEADLINE_MS = 240_000

/** Containers and volumes whose fleet label is the bench's (bench-density-PID-…): `name label` lines. */
async function leftOf (pid: number): Promise<string[]> {
  const prefix = `bench-density-${pid}-`
  const containers = (await run('docker', ['ps', '-a', '--filter', 'label=computer-gateway.fleet', '--format', '{{.ID}} {{.Label "computer-gateway.fleet"}}'])).stdout.split('\n')
  const volumes = (await run('docker', ['volume', 'ls', '--filter', 'label=computer-gateway.fleet', '--format', '{{.Name}} {{.Label "computer-gateway.fleet"}}'])).stdout.split('\n')
  return [...containers, ...volumes].filter((line) => line.split(' ')[1]?.startsWith(prefix))
}

t.test('the density bench runs a step through the fleet and leaves nothing behind', { timeout: DEADLINE_MS + 60_000 }, async (t) => {
  const bench = spawnOwned(t, process.execPath, ['--import', 'tsx', 'bench/fleet-density.ts', '--smoke'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  const pid = bench.pid!
  // Whatever a failure left under the bench's fleet id, removed.
  t.teardown(async () => {
    for (const line of await leftOf(pid)) {
      const [id] = line.split(' ')
      await run('docker', ['rm', '-f', '-v', id!])
      await run('docker', ['volume', 'rm', '-f', id!])
    }
  })
  let stdout = ''
  let stderr = ''
  bench.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  bench.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-4000) })
  const exit = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => bench.once('close', (...args) => resolve(args)))
  const deadline = setTimeout(() => { void stopOwned(bench) }, DEADLINE_MS)
  // While it runs: its desktop's container, labelled with the bench's fleet id.
  let seen = 0
  const watch = (async () => {
    while (bench.exitCode === null && bench.signalCode === null) {
      seen = Math.max(seen, (await leftOf(pid)).length)
      await new Promise((resolve) => setTimeout(resolve, 2000))
    }
  })()
  const [code, signal] = await exit
  clearTimeout(deadline)
  await watch
  t.equal(code, 0, `the bench exits with 0 (${signal ?? `code ${code}`}): ${stderr.trim().slice(-1500)}\n${stdout.slice(-1500)}`)
  t.ok(seen > 0, 'its desktop ran labelled with the bench\'s fleet id')
  t.match(stdout, /^fleet density \(quick: not final numbers; .* 5 s a step; host \d+ cores, [\d.]+ GB; load [\d.]+ at the start\):$/m)
  const row = /^1 \| ([\d.]+) \/ ([\d.]+) \| [\d.]+ \/ [\d.]+ \/ [\d.]+ \| (\d+) of 5 \| \d+ % \/ \d+ % \| [\d.]+ \| \d+ \| (\d+) (PSS|RSS) \((\d+) \+ (\d+) \+ (\d+) \+ (\d+)\) \| ([\d.]+) \(([\d.]+) \+ ([\d.]+) \+ ([\d.]+) \+ ([\d.]+)\); ([\d.]+) \+ ([\d.]+) \| \d+ s \/ \d+ s$/m.exec(stdout)
  if (t.ok(row, `a row for the one desktop: ${stdout}`)) {
    const [, , , errors, total, , xvfb, session, firefox, server, cpu, cpuXvfb, cpuSession, cpuFirefox, cpuServer, cpuFleet, cpuClient] = row!.map(Number)
    t.equal(errors, 0, 'every action answered')
    t.ok(xvfb! > 0 && session! > 0 && firefox! > 0 && server! > 0, `every part of the desktop measured: Xvfb ${xvfb}, session ${session}, Firefox ${firefox}, server ${server}`)
    t.ok(Math.abs(total! - (xvfb! + session! + firefox! + server!)) <= 2, 'the parts add up to the total')
    // A screenshot's PNG is the server's ~20 ms; the fleet forwards every action; the client sends them. Xvfb's
    // share of 5 s (~1 ms a screenshot, a scroll's frames) may round to no tick of 10 ms: the key's cost below shows it.
    t.ok(cpuServer! > 0 && cpuFleet! > 0 && cpuClient! > 0, `the CPU of the server, of the fleet and of the client measured: ${row![0]}`)
    t.ok(cpuXvfb! >= 0 && cpuSession! >= 0 && cpuFirefox! >= 0 && Math.abs(cpu! - (cpuXvfb! + cpuSession! + cpuFirefox! + cpuServer!)) <= 0.25, 'the CPU parts add up to the total')
  }
  // What each action costs the one desktop: a screenshot's PNG is the server's work, a key's scroll (Down, Up, Down, Up) Firefox's and Xvfb's.
  const cost = (kind: string) => new RegExp(`^ {4}${kind}: (-?[\\d.]+) \\((-?[\\d.]+) \\+ (-?[\\d.]+) \\+ (-?[\\d.]+) \\+ (-?[\\d.]+)\\)$`, 'm').exec(stdout)?.slice(1).map(Number)
  t.match(stdout, /^ {2}one desktop's CPU for one action \(4 of each, one every 500 ms, the idle desktop's subtracted\), ms: Xvfb \+ session \+ Firefox \+ server$/m)
  const [click, key, screenshot, idle] = ['click', 'key', 'screenshot', 'idle, % of a core'].map(cost)
  if (t.ok(click && key && screenshot && idle, `a cost line for each action and the idle desktop: ${stdout}`)) {
    for (const [name, parts] of [['click', click!], ['key', key!], ['screenshot', screenshot!], ['idle', idle!]] as const) {
      t.ok(Math.abs(parts[0]! - (parts[1]! + parts[2]! + parts[3]! + parts[4]!)) <= 0.25, `${name}: the parts add up to the total (${parts})`)
    }
    t.ok(screenshot![4]! > 0, `a screenshot costs the server CPU: ${screenshot![4]} ms`)
    t.ok(key![1]! > 0 && key![3]! > 0, `a key that scrolls costs Xvfb and Firefox CPU: ${key}`)
  }
  t.match(stdout, /^ {2}stopped: reached --max 1$/m)
  t.match(stdout, /^ {2}largest number of desktops at p99 ≤ 100 ms: [01] \(quick run: not final\)$/m)
  t.match(stdout, /^ {2}CPU: [\d.]+ % of a core a desktop at 1 \(theirs, the fleet's and the client's\): \d+ cores all busy at ~\d+ desktops$/m)
  t.match(stdout, /^ {2}the applications alone \(Xvfb, session, Firefox\): [\d.]+ % of a core a desktop at 1; 30 desktops would keep \d+ % of the \d+ cores busy with them, before any screenshot is encoded$/m)
  t.match(stdout, /^MISS fleet density: ≥ 30 full desktops with a browser at p99 ≤ 100 ms, one action a second each \([01]; host \d+ cores, [\d.]+ GB\)$/m)
  t.strictSame(await leftOf(pid), [], 'no container or volume of its fleet is left')
})
