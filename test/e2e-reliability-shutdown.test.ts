/**
 * Shutdown leaves nothing behind: a real server process (the tsx entry, as `npm run dev`
 * runs it) with a launched xterm and its accessibility bus is ended with SIGTERM — also when
 * its desktop is stuck (Xvfb stopped with SIGSTOP, a request hanging on it) — or killed
 * outright with SIGKILL; every process it started (Xvfb, jwm, the nut workers, the bus,
 * the launched application) is gone soon after, checked by PID.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { until } from './helpers/desktop.ts'
import { listeningPort } from './helpers/full-desktop.ts'
import { descendants, running } from './helpers/process-table.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** close-with-grace's delay in src/runtime/server.ts, plus a margin for a loaded machine. */
const GRACE_MS = 10_000
const MARGIN_MS = 3000

async function startServer (t: { teardown: (fn: () => unknown) => void }) {
  const seen = new Map<number, string>()
  // Everything the server started is ended by PID here if the test fails before it could.
  t.teardown(() => {
    for (const pid of seen.keys()) if (running(pid)) { try { process.kill(pid, 'SIGCONT'); process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
  })
  const env: NodeJS.ProcessEnv = { ...process.env, SCREEN: '1024x768x24', LOG_LEVEL: 'info' }
  delete env.ALLOW_APPS
  delete env.DISPLAY
  delete env.XAUTHORITY
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/runtime/server.ts', '--port', '0', '--allow-app', 'term=xterm -T left-behind?'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] })
  seen.set(server.pid!, 'server')
  const exited = new Promise<{ code: number | null, signal: string | null }>((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })))
  const port = await listeningPort(server, exited)
  const url = `http://127.0.0.1:${port}`
  const act = (payload: object) => fetch(`${url}/computer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) })
  const launched = await act({ action: 'launch_app', app: 'term' })
  if (launched.status !== 200) throw new Error(`launch_app: ${launched.status} ${await launched.text()}`)
  // Starts the accessibility bus (dbus-daemon, at-spi-bus-launcher and its own bus).
  const tree = await fetch(`${url}/accessibility`)
  if (tree.status !== 200) throw new Error(`GET /accessibility: ${tree.status} ${await tree.text()}`)
  for (const [pid, command] of descendants(server.pid!)) seen.set(pid, command)
  return { server, exited, act, started: new Map([...seen].filter(([pid]) => pid !== server.pid)) }
}

function expectStarted (t: { ok: (value: unknown, message: string) => void, strictSame: (found: unknown, wanted: unknown, message: string) => void }, started: Map<number, string>): void {
  const commands = [...started.values()]
  for (const name of ['Xvfb', 'jwm', 'nut-worker', 'dbus-daemon', 'at-spi-bus-launcher', 'xterm']) {
    t.ok(commands.some((command) => command.includes(name)), `${name} was running`)
  }
}

async function expectAllGone (t: { ok: (value: unknown, message: string) => void, strictSame: (found: unknown, wanted: unknown, message: string) => void }, started: Map<number, string>): Promise<void> {
  await until(() => [...started.keys()].every((pid) => !running(pid)), MARGIN_MS)
  const left = [...started].filter(([pid]) => running(pid)).map(([pid, command]) => `${pid} ${command}`)
  t.strictSame(left, [], `none of the ${started.size} processes it started is left`)
}

t.test('SIGTERM ends every process the server started', async (t) => {
  const { server, exited, started } = await startServer(t)
  expectStarted(t, started)
  const sent = performance.now()
  server.kill('SIGTERM')
  const exit = await exited
  t.comment(`exited ${JSON.stringify(exit)} after ${Math.round(performance.now() - sent)} ms`)
  t.equal(exit.code, 0, 'a clean exit')
  await expectAllGone(t, started)
})

t.test('SIGTERM with the desktop stuck (Xvfb stopped, a request hanging on it) ends every process within the grace period', async (t) => {
  const { server, exited, act, started } = await startServer(t)
  const xvfb = [...started].find(([, command]) => command.startsWith('Xvfb'))![0]
  process.kill(xvfb, 'SIGSTOP')
  const hanging = act({ action: 'take_screenshot' }).then((response) => response.status, () => 'no answer')
  await delay(500)
  const sent = performance.now()
  server.kill('SIGTERM')
  await exited
  const took = performance.now() - sent
  t.comment(`the server exited after ${Math.round(took)} ms; the hanging request got ${await hanging}`)
  t.ok(took < GRACE_MS, 'within the grace period')
  await expectAllGone(t, started)
})

t.test('SIGKILL: what the server started dies with it', async (t) => {
  const { server, exited, started } = await startServer(t)
  server.kill('SIGKILL')
  await exited
  await expectAllGone(t, started)
})
