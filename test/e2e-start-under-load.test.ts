/**
 * Servers started together on a machine whose cores are all busy (as after a host reboot, or
 * beside other desktops) all come up, each with its own Xvfb: start-up keeps waiting, within
 * its bound (START_TIMEOUT_MS), instead of giving up, and says nothing untrue on the way (a
 * display a server started itself is never reported as a DISPLAY to unset). How long they take
 * is printed, not asserted tightly: timings belong to the bench, and this machine is shared.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { listeningPort } from './helpers/full-desktop.ts'
import { spawnOwned, stopOwned } from './helpers/processes.ts'

const SERVERS = 5
/** Generous but bounded: five servers loading at once behind busy cores take ~10–40 s here. */
const DEADLINE_MS = 150_000
const ROOT = fileURLToPath(new URL('..', import.meta.url))

t.test(`${SERVERS} servers started at once with every core busy all come up`, { timeout: DEADLINE_MS + 30_000 }, async (t) => {
  // The hogs: one busy loop per core, for the whole test.
  for (const _ of cpus()) spawnOwned(t, process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
  const env: NodeJS.ProcessEnv = { ...process.env, SCREEN: '800x600x24', LOG_LEVEL: 'info' }
  for (const name of ['DISPLAY', 'XAUTHORITY', 'DESKTOP', 'AUTOSTART']) delete env[name]
  const started = performance.now()
  const servers = Array.from({ length: SERVERS }, () => {
    const stderr: string[] = []
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/runtime/server.ts', '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    t.teardown(() => stopOwned(child, false, 10_000))
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk))
    const exited = new Promise<{ code: number | null }>((resolve) => child.once('exit', (code) => resolve({ code })))
    return { child, stderr, exited }
  })
  const answers = await Promise.all(servers.map(async ({ child, stderr, exited }) => {
    const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), DEADLINE_MS).unref())
    const port = await Promise.race([listeningPort(child, exited).catch(() => 'exited' as const), deadline])
    if (typeof port !== 'number') return { outcome: port, stderr: stderr.join('') }
    const response = await fetch(`http://127.0.0.1:${port}/computer`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'move_mouse', coordinates: [10, 10] }),
    })
    return { outcome: response.status, ms: Math.round(performance.now() - started), stderr: stderr.join('') }
  }))
  for (const [i, answer] of answers.entries()) {
    t.equal(answer.outcome, 200, `server ${i + 1} came up and moved the pointer${answer.stderr ? `; stderr: ${answer.stderr.slice(-500)}` : ''}`)
    t.notMatch(answer.stderr, /unset DISPLAY/, `server ${i + 1} reports no display of its own as the operator's`)
  }
  t.comment(`ready after (ms): ${answers.map((a) => a.ms ?? a.outcome).join(', ')}`)
})
