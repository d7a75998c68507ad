/**
 * The Operator desktop tool's `app` action on a real desktop: the server's own Xvfb with its
 * window manager, two xterms launched from the allow-list through `app` launch, their windows
 * listed, one resized and moved with the geometry read back from X (xwininfo), and the focus
 * switched between them by title (xdotool reads the active window). Every process ends by PID.
 */
import pino from 'pino'
import t from 'tap'
import { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { buildApp } from '../src/http/app.ts'
import { xdotool, xwininfo } from './helpers/desktop.ts'

const silent = pino({ level: 'silent' })

t.test('app: launch two allowed applications, list them, resize and move one, switch between them', async (t) => {
  const desktop = new SupervisedDesktop({ screen: '1280x800x24', log: silent })
  const app = await buildApp({
    driver: desktop,
    logger: silent,
    apps: { notes: ['xterm', '-T', 'notes'], logs: ['xterm', '-T', 'logs'] },
    launchTimeoutMs: 15_000,
  })
  t.teardown(() => app.close())
  await app.ready()
  const display = desktop.display!
  const operator = async (body: object, query = '') => {
    const response = await app.inject({ method: 'POST', url: `/computer/operator${query}`, payload: body })
    return { status: response.statusCode, body: response.json() }
  }

  const notes = await operator({ action: 'app', mode: 'launch', name: 'notes' })
  t.equal(notes.status, 200, JSON.stringify(notes.body))
  t.match(notes.body, { success: true, output: /^Launched notes: window 0x[0-9a-f]+ "notes" \(class XTerm, pid \d+\)/, metadata: { window: { title: 'notes', focused: true } } })
  const logs = await operator({ action: 'app', mode: 'launch', name: 'logs' })
  t.equal(logs.status, 200, JSON.stringify(logs.body))
  const [notesId, logsId] = [notes.body.metadata.window.id as string, logs.body.metadata.window.id as string]
  t.equal(await xdotool(display, 'getactivewindow', 'getwindowname'), 'logs', 'X says the newest is active')

  const listed = await app.inject({ method: 'POST', url: '/computer', payload: { action: 'list_windows' } })
  t.strictSame(listed.json().windows.map((w: { title: string }) => w.title), ['logs', 'notes'], 'both listed, topmost first')

  const resized = await operator({ action: 'app', mode: 'resize', name: 'notes', window_size: [500, 300] })
  t.equal(resized.status, 200, JSON.stringify(resized.body))
  const moved = await operator({ action: 'app', mode: 'move', name: 'notes', window_loc: [400, 250] })
  t.equal(moved.status, 200, JSON.stringify(moved.body))
  // xterm sizes itself in whole character cells: X has what the answer reports.
  const geometry = await xwininfo(display, String(Number(notesId)))
  const reported = moved.body.metadata.window
  t.strictSame({ x: reported.x, y: reported.y, width: reported.width, height: reported.height }, geometry, 'the answer is what X has')
  t.strictSame([geometry.x, geometry.y], [400, 250], 'moved where asked')
  t.ok(Math.abs(geometry.width - 500) < 12 && Math.abs(geometry.height - 300) < 20, `about 500x300 (${geometry.width}x${geometry.height})`)

  const switched = await operator({ action: 'app', mode: 'switch', name: 'notes' })
  t.equal(switched.status, 200, JSON.stringify(switched.body))
  t.equal(await xdotool(display, 'getactivewindow'), String(Number(notesId)), 'notes is active')
  const back = await operator({ action: 'app', mode: 'switch', name: 'logs' })
  t.equal(back.status, 200)
  t.equal(await xdotool(display, 'getactivewindow'), String(Number(logsId)), 'and logs again')

  const refused = await operator({ action: 'app', mode: 'launch', name: 'firefox' })
  t.equal(refused.status, 403)
  t.match(refused.body, { success: false, error: "app 'firefox' is not in the allow-list; allowed: notes, logs" })
})
