/**
 * The X11 helpers on real Xvfb processes: free display numbers under contention (in this
 * process and from another one at the same time), stale lock files, the probe's messages,
 * and Xvfb's exit notification. Every Xvfb started is stopped by PID.
 */
import { fork } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { isDisplayTaken, lockOwner } from '../drivers/x11/free-display.ts'
import { parseDisplay, probeDisplay } from '../drivers/x11/probe.ts'
import { startXvfb, type Xvfb } from '../drivers/x11/xvfb.ts'
import { XTestInput, type KeyFallback, type XInputStep } from '../drivers/x11/xtest-input.ts'
import { xdotool } from './helpers/desktop.ts'

const SCREEN = '320x200x24'

async function started (t: Tap, promise: Promise<Xvfb>): Promise<Xvfb> {
  const xvfb = await promise
  t.teardown(() => xvfb.stop())
  return xvfb
}
type Tap = { teardown: (fn: () => unknown) => void }

t.test('parseDisplay reads local and remote displays', async (t) => {
  t.match(parseDisplay(':7'), { kind: 'unix', number: 7, path: '/tmp/.X11-unix/X7' })
  t.match(parseDisplay(':7.0'), { kind: 'unix', number: 7 })
  t.match(parseDisplay('unix:7'), { kind: 'unix', number: 7 })
  t.match(parseDisplay('localhost:3'), { kind: 'tcp', host: 'localhost', port: 6003 })
  t.throws(() => parseDisplay('nonsense'), { code: 'ERR_INVALID_CONFIG' })
})

t.test('Xvfbs started at once, here and in another process, get distinct numbers they own', async (t) => {
  // Another process races for the same numbers: it starts two, reports them, stops them when told.
  const dir = await mkdtemp(join(tmpdir(), 'cg-x11-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const script = join(dir, 'racer.mts')
  await writeFile(script, `
    import { startXvfb } from ${JSON.stringify(new URL('../drivers/x11/xvfb.ts', import.meta.url).pathname)}
    const xs = await Promise.all([0, 1].map(() => startXvfb({ screen: '${SCREEN}', from: 150 })))
    process.send!(xs.map((x) => [x.display, x.pid]))
    process.once('message', async () => { await Promise.all(xs.map((x) => x.stop())); process.exit(0) })
  `)
  const racer = fork(script, [], { execArgv: ['--import=tsx'] })
  t.teardown(() => { if (racer.exitCode === null) racer.kill('SIGKILL') })
  const theirs = new Promise<Array<[string, number]>>((resolve, reject) => {
    racer.once('message', (m) => resolve(m as Array<[string, number]>))
    racer.once('exit', (code) => reject(new Error(`the racing process exited with ${code}`)))
  })
  const ours = await Promise.all([0, 1, 2].map(() => started(t, startXvfb({ screen: SCREEN, from: 150 }))))
  const all = [...ours.map((x): [string, number] => [x.display, x.pid]), ...await theirs]
  t.equal(new Set(all.map(([display]) => display)).size, 5, `five distinct displays: ${all.map(([d]) => d).join(' ')}`)
  for (const [display, pid] of all) {
    t.equal(lockOwner(Number(display.slice(1))), pid, `${display} is locked by its own Xvfb`)
  }
  for (const x of ours) t.equal(await xdotool(x.display, 'getdisplaygeometry'), '320 200', `${x.display} answers`)
  const done = new Promise((resolve) => racer.once('exit', resolve))
  racer.send('stop')
  await done
})

t.test('a stale lock (its process gone) counts as free, and Xvfb takes the number over', async (t) => {
  const xvfb = await started(t, startXvfb({ screen: SCREEN, from: 170 }))
  const number = Number(xvfb.display.slice(1))
  process.kill(xvfb.pid, 'SIGKILL')
  const exit = await xvfb.exited
  t.equal(exit.signal, 'SIGKILL', 'exited reports how')
  t.equal(xvfb.alive(), false)
  t.equal(lockOwner(number), xvfb.pid, 'SIGKILL left the lock file behind')
  t.equal(isDisplayTaken(number), false, 'but it counts as free')
  await t.rejects(probeDisplay(xvfb.display, 500), { code: 'ERR_INVALID_CONFIG', message: /connection refused/ }, 'the stale socket does not answer')
  // Ours, not the operator's DISPLAY: the message must not tell them to unset it.
  await t.rejects(probeDisplay(xvfb.display, 500), {
    message: `the Xvfb computer-gateway started on ${xvfb.display} does not answer (connection refused: nothing listens there (a stale socket?) at /tmp/.X11-unix/X${number})`,
  }, 'a display this process started is named as ours')
  const again = await started(t, startXvfb({ screen: SCREEN, display: xvfb.display }))
  t.equal(lockOwner(number), again.pid)
  await probeDisplay(again.display)
})

t.test('an explicit display that is taken is a clear error; stop() is safe twice and notifies', async (t) => {
  const xvfb = await started(t, startXvfb({ screen: SCREEN, from: 180 }))
  await t.rejects(startXvfb({ screen: SCREEN, display: xvfb.display }), { code: 'ERR_INVALID_CONFIG' })
  t.equal(xvfb.alive(), true, 'the first one is untouched')
  await probeDisplay(xvfb.display)
  const heard: string[] = []
  xvfb.onExit((exit) => heard.push(String(exit.signal ?? exit.code)))
  await xvfb.stop()
  await xvfb.stop()
  t.strictSame(heard, ['0'], 'Xvfb ends cleanly on SIGTERM')
  t.equal(isDisplayTaken(Number(xvfb.display.slice(1))), false, 'a clean stop leaves nothing behind')
  await t.rejects(startXvfb({ screen: 'big' }), { code: 'ERR_INVALID_CONFIG', message: /not WIDTHxHEIGHT/ })
})

t.test('XTest input: a plan\'s requests and the QueryPointer after it leave in one write; a pause splits them', async (t) => {
  const xvfb = await started(t, startXvfb({ screen: SCREEN, from: 190 }))
  const input = await XTestInput.open(xvfb.display)
  t.teardown(() => input.close())
  const noKeys: KeyFallback = { press: async () => { throw new Error('no key in these plans') }, reserved: () => new Set() }
  const click: XInputStep[] = [{ kind: 'move', to: { x: 40, y: 30 } }, { kind: 'button', button: 'left', down: true }, { kind: 'button', button: 'left', down: false }]
  let before = input.writes
  t.strictSame(await input.run(click, noKeys), { x: 40, y: 30 }, 'X processed the move before it answered')
  t.equal(input.writes - before, 1, 'a move, a press, a release and the QueryPointer: one write')
  before = input.writes
  t.strictSame(await input.run([{ kind: 'move', to: { x: 5, y: 6 } }, { kind: 'pause', ms: 5 }, { kind: 'move', to: { x: 7, y: 8 } }], noKeys), { x: 7, y: 8 })
  t.equal(input.writes - before, 2, 'what came before a pause is processed first (its own round trip), then the rest')
  t.equal((await xdotool(xvfb.display, 'getmouselocation', '--shell')).match(/X=7\nY=8/) !== null, true, 'another client sees the pointer there')
})

t.test('the probe tells a missing server, a silent socket and a refusal apart', async (t) => {
  await t.rejects(probeDisplay(':4243', 300), { message: /^DISPLAY :4243 does not answer \(no X server at \/tmp\/\.X11-unix\/X4243\)/ })
  await t.rejects(probeDisplay('127.0.0.1:4243', 300), { code: 'ERR_INVALID_CONFIG', message: /connection refused.* at 127\.0\.0\.1:10243/ })

  // Fake X servers on display numbers nobody uses: one never answers, one refuses.
  const fake = async (number: number, onData: (socket: import('node:net').Socket) => void) => {
    t.equal(isDisplayTaken(number), false, `:${number} is free`)
    const server = createServer((socket) => socket.once('data', () => onData(socket)))
    await new Promise<void>((resolve) => server.listen(`/tmp/.X11-unix/X${number}`, resolve))
    t.teardown(() => new Promise((resolve) => server.close(resolve)))
  }
  await fake(4244, () => {})
  await t.rejects(probeDisplay(':4244', 300), { message: /no answer within 300 ms at \/tmp\/\.X11-unix\/X4244/ })

  const reason = Buffer.from('Authorization required, but no authorization protocol specified\n')
  const padded = Buffer.alloc(Math.ceil(reason.length / 4) * 4)
  reason.copy(padded)
  await fake(4245, (socket) => socket.end(Buffer.concat([Buffer.from([0, reason.length, 11, 0, 0, 0, padded.length / 4, 0]), padded])))
  const saved = process.env.XAUTHORITY
  process.env.XAUTHORITY = '/nonexistent/.Xauthority'
  t.teardown(() => { if (saved === undefined) delete process.env.XAUTHORITY; else process.env.XAUTHORITY = saved })
  await t.rejects(probeDisplay(':4245', 1000), {
    message: 'the X server on :4245 refused the connection (Authorization required, but no authorization protocol specified) and there is no /nonexistent/.Xauthority; set XAUTHORITY to its cookie file',
  })
})
