/**
 * Starts an Xvfb of our own on a free display number, waits until it answers, pins the
 * keyboard layout to US, and stops it by PID. Several may start at once (test files run in
 * parallel): a display number taken in between makes Xvfb fail, and we try the next.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import { InvalidConfig } from '../../src/errors.ts'
import { probeDisplay } from './probe.ts'

const run = promisify(execFile)

export interface XvfbOptions {
  /** WxHxDEPTH, e.g. '1280x800x24'. */
  screen: string
  /** First display number to try. */
  from?: number
  log?: { info: (object: object, message: string) => void, warn: (object: object, message: string) => void }
}

export interface Xvfb {
  display: string
  pid: number
  /** Resolves when the server exits, for whatever reason. */
  exited: Promise<void>
  alive: () => boolean
  stop: () => Promise<void>
}

const taken = (n: number) => existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)

export function freeDisplayNumber (from = 99): number {
  for (let n = from; n < from + 1000; n++) if (!taken(n)) return n
  throw new InvalidConfig(`no free X display number from :${from}`)
}

export async function startXvfb (options: XvfbOptions): Promise<Xvfb> {
  let from = options.from ?? 99 + Math.floor(Math.random() * 200)
  for (let attempt = 0; attempt < 10; attempt++) {
    const number = freeDisplayNumber(from)
    try {
      return await startOn(`:${number}`, options)
    } catch (error) {
      if ((error as { code?: string }).code !== 'DISPLAY_TAKEN') throw error
      from = number + 1
    }
  }
  throw new InvalidConfig('could not start Xvfb: every display number tried was taken')
}

async function startOn (display: string, options: XvfbOptions): Promise<Xvfb> {
  let child: ChildProcess
  try {
    child = spawn('Xvfb', [display, '-screen', '0', options.screen, '-nolisten', 'tcp', '-nolisten', 'unix-abstract'], { stdio: ['ignore', 'ignore', 'pipe'] })
  } catch (error) {
    throw new InvalidConfig(`could not start Xvfb: ${(error as Error).message}`)
  }
  let stderr = ''
  child.stderr!.on('data', (chunk) => { stderr = (stderr + chunk).slice(-4000) })
  let running = true
  const exited = new Promise<void>((resolve) => child.once('exit', () => { running = false; resolve() }))
  const spawnError = new Promise<never>((_, reject) => child.once('error', (error: NodeJS.ErrnoException) =>
    reject(new InvalidConfig(error.code === 'ENOENT' ? 'Xvfb is not installed: run `npm run setup` (or apt-get install xvfb)' : `could not start Xvfb: ${error.message}`))))
  spawnError.catch(() => {})

  const deadline = Date.now() + 10_000
  for (;;) {
    if (!running) {
      const error = Object.assign(new InvalidConfig(`Xvfb ${display} exited at start: ${stderr.trim().split('\n').slice(-3).join(' / ')}`),
        { code: /already active|Server is already/i.test(stderr) ? 'DISPLAY_TAKEN' : 'ERR_INVALID_CONFIG' })
      throw error
    }
    try {
      await Promise.race([probeDisplay(display, 500), spawnError])
      break
    } catch (error) {
      if (!running) continue
      if ((error as Error).message.startsWith('Xvfb is not installed') || (error as Error).message.startsWith('could not start')) throw error
      if (Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new InvalidConfig(`Xvfb ${display} did not answer within 10 s: ${stderr.trim()}`)
      }
      await delay(25)
    }
  }

  // A fixed layout: key names and typed characters must mean the same on every machine.
  await run('setxkbmap', ['-display', display, 'us']).catch((error) =>
    options.log?.warn({ err: error, display }, 'setxkbmap failed; keeping the server default layout'))

  const stop = async () => {
    if (!running) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
    await exited
    clearTimeout(timer)
  }
  return { display, pid: child.pid!, exited, alive: () => running, stop }
}
