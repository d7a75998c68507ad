/**
 * The xdotool driver under SupervisedDesktop: chosen with `driver: 'xdotool'`, and when its X
 * server is killed, the desktop is restarted (a new Xvfb, a new driver) and input lands again.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import pino from 'pino'
import t from 'tap'
import { SupervisedDesktop } from '../drivers/supervised-desktop.ts'
import { XdotoolDriver } from '../drivers/xdotool/xdotool-driver.ts'
import { cursorFromX, until } from './helpers/desktop.ts'

const run = promisify(execFile)

t.test('under SupervisedDesktop, a killed X server is restarted and input works again', async (t) => {
  const desktop = new SupervisedDesktop({ screen: '640x480x24', log: pino({ level: 'silent' }), driver: XdotoolDriver })
  t.teardown(() => desktop.close())
  await desktop.start()
  t.equal(desktop.name, 'xdotool')
  await desktop.moveMouse({ x: 10, y: 10 })
  t.strictSame(await cursorFromX(desktop.display!), [10, 10])
  const xvfbPid = Number((await run('pgrep', ['-f', `Xvfb ${desktop.display} `])).stdout.trim().split('\n')[0])
  process.kill(xvfbPid, 'SIGKILL')
  const killedAt = performance.now()
  await t.rejects(desktop.moveMouse({ x: 1, y: 1 }), { code: 'ERR_DESKTOP_UNAVAILABLE', statusCode: 503 })
  t.ok(await until(() => desktop.ready(), 10_000), 'ready again')
  t.comment(`back after ${Math.round(performance.now() - killedAt)} ms`)
  t.equal(desktop.restarts, 1)
  await desktop.moveMouse({ x: 300, y: 200 })
  t.strictSame(await cursorFromX(desktop.display!), [300, 200], 'input lands on the new X server')
})
