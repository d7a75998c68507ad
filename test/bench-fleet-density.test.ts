/**
 * The density bench's and the peers' parts off the engine: the steps a run makes (and a bad flag
 * said), which part of a desktop a process is, what an action costs by part, when a run stops, a
 * process's CPU time, and the
 * peers' sample counts and table header. The
 * bench on the engine is test/docker/bench-density.ts.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { densitySettings, overLine, partOf, partsDelta, perAction } from '../bench/fleet-density.ts'
import { cpuMs } from '../bench/servers.ts'
import { peerCounts, tableHeader } from '../bench/peers/peers.ts'

t.test('densitySettings: the steps of a smoke, quick and final run, and overrides', async (t) => {
  const cases: Array<[string, Parameters<typeof densitySettings>[0], ReturnType<typeof densitySettings>]> = [
    ['smoke', { smoke: true }, { step: 1, max: 1, seconds: 5, counts: [1], costActions: 4 }],
    ['quick', { quick: true }, { step: 1, max: 2, seconds: 10, counts: [1, 2], costActions: 10 }],
    ['final', {}, { step: 4, max: 40, seconds: 30, counts: [4, 8, 12, 16, 20, 24, 28, 32, 36, 40], costActions: 30 }],
    ['final, overridden', { max: 6, step: 2, seconds: 20 }, { step: 2, max: 6, seconds: 20, counts: [2, 4, 6], costActions: 30 }],
    ['a step past the max: the max alone', { max: 3 }, { step: 4, max: 3, seconds: 30, counts: [3], costActions: 30 }],
    ['a step that does not divide the max: the max last', { max: 10 }, { step: 4, max: 10, seconds: 30, counts: [4, 8, 10], costActions: 30 }],
  ]
  for (const [name, options, expected] of cases) t.strictSame(densitySettings(options), expected, name)
  t.throws(() => densitySettings({ max: 0 }), { message: '--max must be a whole number ≥ 1 (got 0)' })
  t.throws(() => densitySettings({ seconds: 1.5 }), { message: '--seconds must be a whole number ≥ 1 (got 1.5)' })
})

t.test("partOf: a desktop container's processes by part", async (t) => {
  const cases: Array<[string, string, string]> = [
    ['Xvfb', '/usr/bin/Xvfb', 'Xvfb'],
    ['MainThread', 'node', 'server'],
    ['MainThread', '/usr/local/bin/node', 'server'],
    ['firefox-esr', '/usr/lib/firefox-esr/firefox-esr', 'Firefox'],
    ['Isolated Web Co', '/usr/lib/firefox-esr/firefox-esr', 'Firefox'],
    ['Web Content', '/usr/lib/firefox-esr/firefox-esr', 'Firefox'],
    ['xfwm4', 'xfwm4', 'session'],
    ['xfce4-panel', 'xfce4-panel', 'session'],
    ['tini', '/usr/bin/tini', 'session'],
    ['dbus-daemon', 'dbus-daemon', 'session'],
  ]
  t.strictSame(cases.map(([comm, argv0]) => partOf(comm, argv0)), cases.map(([, , part]) => part))
})

t.test('partsDelta and perAction: CPU ms by part over a window, per action less an idle window', async (t) => {
  const sample = (entries: Array<[number, 'Xvfb' | 'session' | 'Firefox' | 'server', number]>) => new Map(entries.map(([pid, part, ms]) => [pid, { part, ms }]))
  const before = sample([[10, 'Xvfb', 100], [11, 'session', 50], [12, 'Firefox', 400], [13, 'Firefox', 300], [14, 'server', 200], [15, 'session', 70]])
  // 15 ended in between (not counted), 16 began (counted whole).
  const after = sample([[10, 'Xvfb', 130], [11, 'session', 52], [12, 'Firefox', 700], [13, 'Firefox', 310], [14, 'server', 260], [16, 'Firefox', 40]])
  const window = partsDelta(before, after)
  t.strictSame(window, { Xvfb: 30, session: 2, Firefox: 350, server: 60 })
  t.strictSame(perAction(window, { Xvfb: 0, session: 2, Firefox: 50, server: 20 }, 10), { Xvfb: 3, session: 0, Firefox: 30, server: 4 })
})

t.test('overLine: a failed action or a second step in a row over 100 ms ends the run', async (t) => {
  const step = (desktops: number, p99: number, errors: string[] = []) => ({ desktops, p99, errors })
  const cases: Array<[string, Array<ReturnType<typeof step>>, { stop?: string }]> = [
    ['no step yet', [], {}],
    ['one step under the line', [step(4, 80)], {}],
    ['the first step over the line: one more is measured', [step(4, 120)], {}],
    ['one step over between two under', [step(4, 80), step(8, 130), step(12, 90)], {}],
    ['two in a row over', [step(4, 80), step(8, 130), step(12, 111.4)], { stop: '8 and 12 desktops: p99 130 and 111 ms' }],
    ['a failed action, under the line or not', [step(4, 80), step(8, Number.POSITIVE_INFINITY, ['desktop 3 click: 502'])], { stop: '8 desktops: 1 actions failed' }],
  ]
  for (const [name, steps, expected] of cases) t.strictSame(overLine(steps), expected, name)
})

t.test("cpuMs: a process's CPU time from /proc, 0 once it is gone", async (t) => {
  // A child that spins for a known while: its CPU time is about that while.
  const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 300; while (Date.now() < end);'], { stdio: 'ignore' })
  t.teardown(() => { child.kill('SIGKILL') })
  const pid = child.pid!
  let seen = 0
  const polling = (async () => {
    while (child.exitCode === null) {
      seen = Math.max(seen, await cpuMs(pid) / 1000)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  await new Promise((resolve) => child.once('exit', resolve))
  await polling
  t.ok(seen >= 0.1, `its CPU time was seen growing to ${seen} s`)
  t.equal(await cpuMs(pid), 0, 'a process that has ended: 0')
})

t.test('peerCounts and the table header', async (t) => {
  t.strictSame([peerCounts({ smoke: true }), peerCounts({ quick: true }), peerCounts()], [
    { rounds: 1, oursPerRound: 1, moves: 200, calcSnapshots: 1 },
    { rounds: 3, oursPerRound: 2, moves: 1000, calcSnapshots: 3 },
    { rounds: 8, oursPerRound: 5, moves: 3000, calcSnapshots: 10 },
  ])
  t.equal(tableHeader(['ours', 'cua computer-server', 'OpenAI sample (xdotool)']),
    'action | ours | cua computer-server | OpenAI sample (xdotool) | floor ms | ours ÷ floor | ÷ cua | ÷ OpenAI')
})
