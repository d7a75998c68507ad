/**
 * A fleet on one machine — what a StatefulSet of desktops relies on: three servers, each with
 * its own Xvfb, driven side by side from one client, never cross (pointer, screenshots, typed
 * text), and stopping one leaves the others and their applications untouched.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import sharp from 'sharp'
import t from 'tap'
import { freePort } from './helpers/net.ts'
import { spawnOwned, stopOwned } from './helpers/processes.ts'
import { running } from './helpers/process-table.ts'

const ROOT = new URL('..', import.meta.url).pathname
const TOKEN = 'fleet-test-token-0123456789abcdef'
const COLOURS: Array<{ name: string, rgb: [number, number, number] }> = [
  { name: 'red', rgb: [255, 0, 0] }, { name: 'green', rgb: [0, 255, 0] }, { name: 'blue', rgb: [0, 0, 255] },
]


t.test('three desktops side by side never cross, and one stopping leaves the others running', { timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cg-fleet-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))

  const desktops = await Promise.all(COLOURS.map(async (colour, n) => {
    const port = await freePort()
    const file = join(dir, `typed-${n}`)
    // The application each desktop may launch: a terminal of its own colour writing what it is typed to a file of its own.
    const app = `term=xterm -bg ${colour.name} -geometry 80x24+0+0 -e sh -c "stty -echo; cat > ${file}"`
    const env: NodeJS.ProcessEnv = { ...process.env, API_TOKEN: TOKEN, LOG_LEVEL: 'warn' }
    delete env.DISPLAY
    const server = spawnOwned(t, process.execPath, ['--import=tsx', join(ROOT, 'src/runtime/server.ts'), '--port', String(port), '--allow-app', app],
      { env, stdio: 'ignore' })
    const call = async (body: unknown) => {
      const response = await fetch(`http://127.0.0.1:${port}/computer`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(body),
      })
      return { status: response.status, body: await response.json() as Record<string, any> }
    }
    const health = async () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.json() as Promise<Record<string, any>>, () => ({} as Record<string, any>))
    return { n, colour, port, file, server, call, health }
  }))

  for (const desktop of desktops) {
    const deadline = Date.now() + 40_000
    while (!(await desktop.health()).ready) {
      if (Date.now() > deadline || desktop.server.exitCode !== null) throw new Error(`desktop ${desktop.n} did not get ready`)
      await delay(100)
    }
  }
  const displays = await Promise.all(desktops.map(async (d) => (await d.health()).display as string))
  t.equal(new Set(displays).size, 3, `three displays of their own: ${displays.join(', ')}`)
  const xvfbPids = await Promise.all(displays.map(async (display) => Number((await readFile(`/tmp/.X${display.slice(1)}-lock`, 'utf8')).trim())))

  // Applications: each desktop launches its terminal.
  const launched = await Promise.all(desktops.map((d) => d.call({ action: 'launch_app', app: 'term' })))
  for (const result of launched) t.equal(result.status, 200, JSON.stringify(result.body).slice(0, 200))

  // Pointers, moved at once, each where its own client put it.
  const points = desktops.map((d) => [100 + 200 * d.n, 50 + 100 * d.n])
  await Promise.all(desktops.map((d) => d.call({ action: 'move_mouse', coordinates: points[d.n] })))
  const cursors = await Promise.all(desktops.map((d) => d.call({ action: 'get_cursor_position' })))
  t.strictSame(cursors.map((c) => c.body.cursor_position), points)

  // Text, typed at once, arrives in its own desktop's terminal only.
  const texts = desktops.map((d) => `desktop ${d.n} only: ${'é€'.repeat(d.n + 1)}\n`)
  await Promise.all(desktops.map((d) => d.call({ action: 'type_text', text: texts[d.n] })))
  for (const d of desktops) {
    const deadline = Date.now() + 5000
    let typed = ''
    while (typed !== texts[d.n] && Date.now() < deadline) {
      typed = await readFile(d.file, 'utf8').catch(() => '')
      await delay(50)
    }
    t.equal(typed, texts[d.n], `desktop ${d.n}'s terminal got its own text`)
  }

  // Screenshots: each shows its own terminal's colour.
  const shots = await Promise.all(desktops.map((d) => d.call({ action: 'take_screenshot', region: [200, 100, 210, 110] })))
  for (const d of desktops) {
    const { data } = await sharp(Buffer.from(shots[d.n]!.body.base64_image, 'base64')).raw().toBuffer({ resolveWithObject: true })
    t.strictSame([...data.subarray(0, 3)], d.colour.rgb, `desktop ${d.n} shows ${d.colour.name}`)
  }

  // Stopping desktop 1 ends its Xvfb and leaves 0 and 2 as they were.
  const [first, second, third] = desktops as [typeof desktops[0], typeof desktops[0], typeof desktops[0]]
  await stopOwned(second.server, false, 15_000)
  t.equal(second.server.signalCode, null, 'desktop 1 shut down by itself')
  t.notOk(running(xvfbPids[1]!), 'its Xvfb is gone')
  for (const d of [first, third]) {
    t.ok(running(xvfbPids[d.n]!), `desktop ${d.n}'s Xvfb runs`)
    t.equal((await d.health()).ready, true, `desktop ${d.n} is ready`)
    const windows = await d.call({ action: 'list_windows' })
    t.equal(windows.status, 200)
    t.ok(JSON.stringify(windows.body).includes('xterm') || JSON.stringify(windows.body).includes('XTerm'), `desktop ${d.n}'s terminal is still open`)
    const cursor = await d.call({ action: 'get_cursor_position' })
    t.strictSame(cursor.body.cursor_position, points[d.n], `desktop ${d.n}'s pointer stayed where it was`)
  }
})
