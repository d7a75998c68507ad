/**
 * The desktop the server starts is private to it: a local client without the cookie is
 * refused (the socket file is world-writable, so the cookie is what keeps other users out),
 * there is no abstract socket to reach it by, the cookie file is readable by us alone, and
 * our own clients — pure-JS connections, and X programs given XAUTHORITY — get in.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { DisplayReader } from '../drivers/x11/display-reader.ts'
import { probeDisplay, socketPath } from '../drivers/x11/probe.ts'
import { startDesktop } from './helpers/desktop.ts'

const run = promisify(execFile)

/** The X connection setup without any authorization: the status byte (1 = accepted) and the server's words. */
function setupWithoutCookie (path: string): Promise<{ status: number, reason: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect({ path })
    let received = Buffer.alloc(0)
    const done = (answer: { status: number, reason: string } | { error: string }) => { socket.destroy(); resolve(answer) }
    socket.setTimeout(3000, () => done({ error: 'timeout' }))
    socket.once('connect', () => socket.write(Buffer.from([0x6c, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0])))
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      // The header says how long the whole answer is (bytes 6–7, in 4-byte units); the reason
      // may come in a later chunk than the header.
      if (received.length >= 8 && received.length >= 8 + 4 * received.readUInt16LE(6)) {
        done({ status: received[0]!, reason: received.subarray(8, 8 + received[1]!).toString('latin1') })
      }
    })
    socket.once('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }))
  })
}

t.test('our Xvfb takes only clients with its cookie', async (t) => {
  const xvfb = await startDesktop(t)
  const answer = await setupWithoutCookie(socketPath(xvfb.display))
  t.match(answer, { status: 0, reason: /Authorization required/ }, 'a client without the cookie is refused')
  t.match(await setupWithoutCookie(`\0${socketPath(xvfb.display)}`), { error: 'ECONNREFUSED' }, 'no abstract socket')
  const { stdout } = await run('ss', ['-xlp'])
  t.notMatch(stdout, new RegExp(`@/tmp/\\.X11-unix/X${xvfb.display.slice(1)}\\s`), 'ss lists no abstract socket for it')

  const home = await mkdtemp(join(tmpdir(), 'no-cookie-'))
  t.teardown(() => rm(home, { recursive: true, force: true }))
  const stranger = { PATH: process.env.PATH!, HOME: home, DISPLAY: xvfb.display }
  await t.rejects(run('xdotool', ['getmouselocation'], { env: stranger }), 'xdotool without XAUTHORITY cannot connect')
  const { stdout: location } = await run('xdotool', ['getmouselocation'], { env: { ...stranger, XAUTHORITY: xvfb.authority } })
  t.match(location, /x:\d+ y:\d+/, 'with XAUTHORITY it can')

  t.equal((await stat(xvfb.authority)).mode & 0o777, 0o600, 'the cookie file is ours alone')
  t.equal((await stat(dirname(xvfb.authority))).mode & 0o777, 0o700, 'and so is its directory')

  await t.resolves(probeDisplay(xvfb.display), 'the probe answers with the cookie')
  const reader = await DisplayReader.open(xvfb.display)
  t.teardown(() => reader.close())
  t.match(await reader.pointer(), { x: Number, y: Number }, 'a pure-JS connection authenticates')
})
