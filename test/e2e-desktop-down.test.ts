/**
 * GET /health tells whether the desktop that was asked for is up, not only whether input works:
 * the real server with --desktop full on an Xvfb of its own, its session made to fail at start
 * (a home it cannot write, as a read-only container's), answers 503 with the session's own
 * complaint as the reason and says so in one error line of its log; with a session that runs,
 * 200, then 503 with the reason while a killed session is started again, then 200 again.
 */
import t from 'tap'
import { requireProgram } from './helpers/processes.ts'
import { serverProcesses, startFullServer, waitUntil, type FullServer } from './helpers/full-desktop.ts'

for (const program of ['xfce4-session', 'xfwm4', 'dbus-run-session']) requireProgram(program, 'the full desktop (npm run setup -- --desktop)')

/**
 * A directory no user can write, root included (sysfs): xfce4-session cannot make its
 * ~/.ICEauthority there and exits, as in a container whose root file system is read-only.
 */
const UNWRITABLE_HOME = '/sys/kernel'

const SCREEN = { width: 1024, height: 768 }

/** GET /health until it answers `status`; the last answer. */
async function healthUntil (server: FullServer, status: number, timeoutMs: number) {
  let last = await server.get('/health')
  await waitUntil(async () => (last = await server.get('/health')).status === status, timeoutMs, 100)
  return last
}

const errorLines = (server: FullServer) => server.lines.map((line) => JSON.parse(line) as { level: number, msg: string }).filter((entry) => entry.level >= 50)

const sessionPids = (server: FullServer) => [...serverProcesses(server.server.pid!)].filter(([, command]) => command === 'xfce4-session').map(([pid]) => pid)

t.test('a session that dies at start: /health answers 503 with why, and the log says it in one error line', async (t) => {
  const server = await startFullServer(t, [], {}, { home: UNWRITABLE_HOME })
  const health = await server.get('/health')
  const display = health.body.display as string
  t.match(display, /^:\d+$/)
  const reason = `the full desktop's session is not running on ${display}: xfce4-session exited at start (code 1): xfce4-session: Unable to access file ${UNWRITABLE_HOME}/.ICEauthority: Permission denied`
  t.strictSame(health, {
    status: 503,
    body: { status: 'unavailable', ready: false, driver: 'nut', display, screen: SCREEN, held: { keys: [], buttons: [] }, queue: 0, oldest_wait_ms: 0, reason, recording: null, control: { taken_over: false, waiting: 0, oldest_wait_ms: null } },
  })
  const launched = await server.act({ action: 'launch_app', app: 'terminal' })
  t.strictSame(launched, {
    status: 400,
    body: { statusCode: 400, code: 'ERR_UNSUPPORTED_ACTION', error: 'Bad Request', message: `launch_app needs window control: no window manager runs on ${display}: xfce4-session exited at start (code 1): xfce4-session: Unable to access file ${UNWRITABLE_HOME}/.ICEauthority: Permission denied` },
  }, 'window actions say why they cannot')
  t.strictSame(errorLines(server).map((entry) => entry.msg), [
    `the full desktop's session did not start on ${display}: xfce4-session exited at start (code 1): xfce4-session: Unable to access file ${UNWRITABLE_HOME}/.ICEauthority: Permission denied; GET /health answers 503 and window actions are refused`,
  ], 'one error line, with the reason')
  t.equal((await server.act({ action: 'move_mouse', coordinates: [10, 10] })).status, 200, 'input still works')
})

t.test('a running session: 200; killed, 503 with why while it starts again; then 200 again', async (t) => {
  const server = await startFullServer(t)
  const up = await healthUntil(server, 200, 60_000)
  const display = up.body.display as string
  t.strictSame(up, {
    status: 200,
    body: { status: 'ok', ready: true, driver: 'nut', display, screen: SCREEN, held: { keys: [], buttons: [] }, queue: 0, oldest_wait_ms: 0, recording: null, control: { taken_over: false, waiting: 0, oldest_wait_ms: null } },
  })
  const [first] = sessionPids(server)
  t.ok(first, 'xfce4-session runs')
  // Past the window in which a session that dies is taken for one that cannot start.
  await new Promise((resolve) => setTimeout(resolve, 2500))
  process.kill(first!, 'SIGKILL')
  const down = await healthUntil(server, 503, 5000)
  // dbus-run-session, which runs it, exits 128 + 9 when its child was killed.
  t.match(down, { status: 503, body: { ready: false, status: 'unavailable', reason: new RegExp(`^the full desktop's session is not running on ${display}: xfce4-session exited \\(code 137\\)(; starting it again)?$`) } })
  const again = await healthUntil(server, 200, 60_000)
  t.strictSame(again, {
    status: 200,
    body: { status: 'ok', ready: true, driver: 'nut', display, screen: SCREEN, held: { keys: [], buttons: [] }, queue: 0, oldest_wait_ms: 0, recording: null, control: { taken_over: false, waiting: 0, oldest_wait_ms: null } },
  }, 'ready again')
  const [second] = sessionPids(server)
  t.ok(second && second !== first, `a new xfce4-session runs (${second}, was ${first})`)
  t.strictSame(errorLines(server), [], 'a session started again is no error')
})
