/**
 * OSWorld's /setup/close_window and /setup/change_wallpaper on real desktops: an xterm on the
 * server's own Xvfb closed through jwm (gone from the window list, its process ended), and
 * the full desktop's wallpaper set through xfdesktop's xfconf channel, read back with
 * xfconf-query on the session's own bus. Every process ends by PID.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import pino from 'pino'
import sharp from 'sharp'
import { buildApp } from '../src/http/app.ts'
import { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { until } from './helpers/desktop.ts'
import { errorBody } from './helpers/error-body.ts'
import { requireProgram } from './helpers/processes.ts'
import { serverProcesses, startFullServer } from './helpers/full-desktop.ts'
import { running } from './helpers/process-table.ts'

const silent = pino({ level: 'silent' })

t.test('/setup/close_window closes a real xterm through the window manager: gone from the list, its process ended', async (t) => {
  const home = await mkdtemp(join(tmpdir(), 'osworld-close-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const desktop = new SupervisedDesktop({ screen: '1024x768x24', log: silent })
  const app = await buildApp({
    driver: desktop,
    logger: silent,
    apps: { closeme: ['xterm', '-T', 'Close me', '-name', 'closeme'], keepme: ['xterm', '-T', 'Keep me', '-name', 'keepme'] },
    launchTimeoutMs: 15_000,
    osworld: { files: { home, maxFileSize: 1024 * 1024, maxTotal: 1024 * 1024 } },
  })
  t.teardown(() => app.close())
  await app.ready()
  const guest = app.osworldGuest!
  const post = (url: string, body: object) => guest.inject({ method: 'POST', url, payload: body })
  const titles = async () => ((await app.inject({ method: 'POST', url: '/computer', payload: { action: 'list_windows' } })).json().windows as Array<{ title: string, pid: number }>)

  for (const name of ['keepme', 'closeme']) t.equal((await post('/setup/launch', { command: [name] })).statusCode, 200, name)
  const before = await titles()
  t.strictSame(before.map((window) => window.title), ['Close me', 'Keep me'])
  const closing = before.find((window) => window.title === 'Close me')!

  const response = await post('/setup/close_window', { window_name: 'CLOSE', by_class: false })
  t.equal(response.statusCode, 200)
  t.equal(response.body, 'Window closed successfully.')
  t.strictSame((await titles()).map((window) => window.title), ['Keep me'], 'gone from the window list when the answer came')
  t.ok(await until(() => !running(closing.pid), 5000), 'xterm exited on WM_DELETE_WINDOW, as from its close button')

  t.strictSame((await post('/setup/close_window', { window_name: 'Close me' })).json(),
    errorBody(404, 'ERR_WINDOW_NOT_FOUND', "no window titled 'Close me' to close; open windows: 'Keep me' (XTerm)"))
  t.strictSame((await titles()).map((window) => window.title), ['Keep me'], 'a miss closes nothing')
})

t.test('/setup/change_wallpaper on the full desktop: xfdesktop\'s last-image set, read back on the session\'s bus', async (t) => {
  for (const program of ['xfce4-session', 'xfdesktop', 'xfconf-query', 'dbus-run-session']) requireProgram(program, 'the full desktop (npm run setup)')
  const server = await startFullServer(t, ['--osworld', '--osworld-port', '0'])
  let guestUrl = ''
  t.ok(await until(() => {
    const line = server.lines.find((candidate) => candidate.includes('"component":"osworld"') && /listening at http:\/\/127\.0\.0\.1:\d+/.test(candidate))
    if (line) guestUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(line)![0]
    return guestUrl !== ''
  }, 60_000), 'the guest port listens')
  // The desktop is up once its panel and wallpaper are: the session's xfdesktop runs.
  const xfdesktop = () => [...serverProcesses(server.server.pid!)].find(([, name]) => name.includes('xfdesktop'))?.[0]
  t.ok(await until(() => xfdesktop() !== undefined, 60_000), 'xfdesktop runs')
  const environ = (await readFile(`/proc/${xfdesktop()}/environ`, 'utf8')).split('\0')
  const env = Object.fromEntries(environ.filter((entry) => entry.includes('=')).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]))
  const query = (...args: string[]) => execFileSync('xfconf-query', ['-c', 'xfce4-desktop', ...args], { env: { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: env.DBUS_SESSION_BUS_ADDRESS, DISPLAY: env.DISPLAY }, timeout: 5000 }).toString()

  // A picture of one colour, so the screen shows whether it is drawn.
  await writeFile(join(server.home, 'red.png'), await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 220, g: 20, b: 30 } } }).png().toBuffer())
  const response = await fetch(`${guestUrl}/setup/change_wallpaper`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '~/red.png' }) })
  t.equal(response.status, 200)
  t.equal(await response.text(), 'Wallpaper changed successfully')
  const properties = query('-l').split('\n').filter((line) => line.endsWith('/last-image'))
  t.ok(properties.length > 0, `last-image properties: ${properties.join(', ')}`)
  for (const property of properties) t.equal(query('-p', property).trim(), join(server.home, 'red.png'), property)
})
