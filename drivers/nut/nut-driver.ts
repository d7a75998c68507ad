/**
 * The `nut` driver, as the server sees it: a proxy to nut-worker, a child process that holds
 * nut-js. If the X server dies, libnut takes its process down (exit() from Xlib, or SIGSEGV);
 * here that only ends the child: calls reject with 503 and `onExit` tells the supervisor.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Driver, MouseButton, Point, RawImage, Rect, Size } from '../../src/driver.ts'
import { DesktopUnavailable, DriverFailure } from '../../src/errors.ts'
import type { KeyInfo } from '../../src/keys/index.ts'
import { probeDisplay } from '../x11/probe.ts'
import type { Calls, Op, Reply } from './protocol.ts'

export interface NutDriverOptions {
  display: string
  log?: { warn: (object: object, message: string) => void, info: (object: object, message: string) => void }
  /** How long the worker may take to load nut-js and reach the display. */
  startTimeoutMs?: number
}

interface Pending { resolve: (value: unknown) => void, reject: (error: Error) => void }

// Same extension as this module: .ts under tsx, .js in a compiled build.
const WORKER = fileURLToPath(new URL(`./nut-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url))

export class NutDriver implements Driver {
  readonly name = 'nut'
  readonly display: string
  #options: NutDriverOptions
  #child?: ChildProcess
  #ready = false
  #nextId = 1
  #pending = new Map<number, Pending>()
  #exitListeners: Array<(reason: string) => void> = []
  #stderr = ''

  constructor (options: NutDriverOptions) {
    this.display = options.display
    this.#options = options
  }

  ready (): boolean { return this.#ready }

  /** Called with a reason when the worker ends unexpectedly (e.g. the X server died). */
  onExit (listener: (reason: string) => void): void { this.#exitListeners.push(listener) }

  async start (): Promise<void> {
    if (this.#ready) return
    await probeDisplay(this.display)
    const child = fork(WORKER, [], {
      execArgv: process.execArgv.filter((arg) => !arg.includes('processinfo')),
      env: { ...process.env, DISPLAY: this.display },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    this.#child = child
    child.stderr!.on('data', (chunk) => { this.#stderr = (this.#stderr + chunk).slice(-2000) })
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new DesktopUnavailable(`the nut driver did not start within ${this.#options.startTimeoutMs ?? 15000} ms on ${this.display}`))
      }, this.#options.startTimeoutMs ?? 15_000)
      child.on('message', (reply: Reply) => {
        if ('ready' in reply) { clearTimeout(timer); this.#ready = true; resolve(); return }
        const pending = this.#pending.get(reply.id)
        if (!pending) return
        this.#pending.delete(reply.id)
        if (reply.ok) pending.resolve(reply.value)
        else pending.reject(new DriverFailure(reply.message))
      })
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        const wasReady = this.#ready
        this.#ready = false
        this.#child = undefined
        const reason = `the X server on ${this.display} went away (driver process exited with ${signal ?? `code ${code}`})${this.#lastError()}`
        for (const pending of this.#pending.values()) pending.reject(new DesktopUnavailable(reason))
        this.#pending.clear()
        if (!wasReady) reject(new DesktopUnavailable(`the nut driver could not start on ${this.display}${this.#lastError()}`))
        else {
          this.#options.log?.warn({ code, signal, display: this.display }, 'driver process exited')
          for (const listener of this.#exitListeners) listener(reason)
        }
      })
    })
  }

  async close (): Promise<void> {
    const child = this.#child
    this.#ready = false
    if (!child) return
    this.#exitListeners = []
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000)
    await exited
    clearTimeout(timer)
  }

  screenSize (): Promise<Size> { return this.#call('screenSize') }
  moveMouse (point: Point): Promise<void> { return this.#call('moveMouse', point) }
  cursorPosition (): Promise<Point> { return this.#call('cursorPosition') }
  buttonDown (button: MouseButton): Promise<void> { return this.#call('buttonDown', button) }
  buttonUp (button: MouseButton): Promise<void> { return this.#call('buttonUp', button) }
  wheel (dx: number, dy: number): Promise<void> { return this.#call('wheel', dx, dy) }
  keyDown (key: KeyInfo): Promise<void> { return this.#call('keyDown', key.keysym) }
  keyUp (key: KeyInfo): Promise<void> { return this.#call('keyUp', key.keysym) }
  typeText (text: string): Promise<void> { return this.#call('typeText', text) }
  screenshot (region?: Rect): Promise<RawImage> { return this.#call('screenshot', region) }

  #call<K extends Op> (op: K, ...args: Calls[K]['args']): Promise<Calls[K]['result']> {
    const child = this.#child
    if (!child || !this.#ready) return Promise.reject(new DesktopUnavailable(`the desktop on ${this.display} is not ready; retry shortly`))
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      child.send({ id, op, args })
    })
  }

  #lastError (): string {
    const lines = this.#stderr.trim().split('\n').filter(Boolean)
    return lines.length ? `: ${lines.slice(-2).join(' / ')}` : ''
  }
}
