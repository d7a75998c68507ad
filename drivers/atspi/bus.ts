/**
 * The accessibility bus for one X display: a D-Bus session bus of our own (dbus-daemon) and
 * at-spi-bus-launcher on it, which starts the accessibility bus, publishes its address on the
 * display's root window (AT_SPI_BUS, where toolkits look when AT_SPI_BUS_ADDRESS is unset) and
 * has at-spi2-registryd started on demand. Screen-reader mode is switched on
 * (org.a11y.Status IsEnabled/ScreenReaderEnabled) so that Chromium and Electron, which read it
 * at start, build their trees. Everything is ended by process group at close.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { groupDiesWithUs } from '../x11/orphan.ts'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import { loadDbus } from './dbus.ts'
import type { Log } from '../../src/runtime/logger.ts'
import { stopChild } from '../stop-child.ts'


const LAUNCHERS = ['/usr/libexec/at-spi-bus-launcher', '/usr/lib/at-spi2-core/at-spi-bus-launcher', '/usr/lib/at-spi2/at-spi-bus-launcher']
const STOP_GRACE_MS = 1000

export interface A11yBusOptions {
  display: string
  log?: Log
  /** How long the buses may take to come up (default 10 s). */
  timeoutMs?: number
}

export interface A11yBus {
  display: string
  /** The accessibility bus, where the tree is read. */
  address: string
  /** What applications started on the display should have in their environment. */
  env: { DBUS_SESSION_BUS_ADDRESS: string, AT_SPI_BUS_ADDRESS: string }
  /** The processes we started (their process groups hold what they started). */
  pids: number[]
  alive: () => boolean
  /** Ends every process by process group; safe twice. */
  close: () => Promise<void>
}

/** Why the accessibility bus could not start; the message says what to install or check. */
export class A11yBusError extends Error {}

export async function startA11yBus (options: A11yBusOptions): Promise<A11yBus> {
  const launcher = LAUNCHERS.find((path) => existsSync(path))
  if (!launcher) throw new A11yBusError('at-spi-bus-launcher is not installed: run `npm run setup` (or apt-get install at-spi2-core)')
  const deadline = Date.now() + (options.timeoutMs ?? 10_000)
  const children: ChildProcess[] = []
  const close = async () => { await Promise.all(children.map(stopGroup)) }
  try {
    // A server killed outright left both behind, and the launcher's own bus and registry.
    const session = spawn(...groupDiesWithUs('dbus-daemon', ['--session', '--nofork', '--print-address=1', `--address=unix:tmpdir=${tmpdir()}`]),
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(session)
    const sessionAddress = await firstLine(session, deadline, 'dbus-daemon')
    const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: options.display, DBUS_SESSION_BUS_ADDRESS: sessionAddress }
    delete env.AT_SPI_BUS_ADDRESS
    const bus = spawn(...groupDiesWithUs(launcher, ['--launch-immediately']), { detached: true, stdio: 'ignore', env })
    children.push(bus)
    bus.once('error', () => {})
    const address = await announce(sessionAddress, deadline)
    options.log?.info({ display: options.display, session: session.pid, launcher: bus.pid }, 'started the accessibility bus')
    return {
      display: options.display,
      address,
      env: { DBUS_SESSION_BUS_ADDRESS: sessionAddress, AT_SPI_BUS_ADDRESS: address },
      pids: children.map((child) => child.pid!),
      alive: () => children.every((child) => child.exitCode === null && child.signalCode === null),
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}

/**
 * Asks the launcher for the accessibility bus's address and turns screen-reader mode on.
 * Only once our launcher owns org.a11y.Bus, and then by its unique name: a call to the
 * well-known name before that makes the session bus start a launcher of its own through
 * D-Bus activation — without DISPLAY, so its bus is not the display's — and ours, losing the
 * name to it, exits: the bus was then replaced under applications already given its address.
 */
async function announce (sessionAddress: string, deadline: number): Promise<string> {
  // dbus-native throws, uncaught, when its Hello goes unanswered within the call timeout: on a
  // busy machine (a full desktop starting beside it) 2 s was not always enough, so the calls
  // here get the time left to the deadline.
  const client = (await loadDbus()).createClient({ busAddress: sessionAddress, plainValues: true, timeout: Math.max(2000, deadline - Date.now()) })
  client.connection.on('error', () => {})
  try {
    const ownerOf = (name: string) => client.invoke({
      destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'GetNameOwner', signature: 's', body: [name],
    }) as Promise<string>
    let lastError: unknown
    while (Date.now() < deadline) {
      try {
        const launcher = await ownerOf('org.a11y.Bus')
        const call = (member: string, signature = '', body: unknown[] = [], iface = 'org.a11y.Bus') =>
          client.invoke({ destination: launcher, path: '/org/a11y/bus', interface: iface, member, signature, body })
        const address = await call('GetAddress') as string
        for (const property of ['IsEnabled', 'ScreenReaderEnabled']) {
          await call('Set', 'ssv', ['org.a11y.Status', property, ['b', true]], 'org.freedesktop.DBus.Properties')
        }
        return address
      } catch (error) {
        lastError = error
        await delay(50)
      }
    }
    throw new A11yBusError(`at-spi-bus-launcher did not answer on the session bus: ${(lastError as Error | undefined)?.message ?? 'no answer'}`)
  } finally {
    client.connection.end()
  }
}

async function firstLine (child: ChildProcess, deadline: number, what: string): Promise<string> {
  let out = ''
  let err = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { err = (err + chunk).slice(-2000) })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new A11yBusError(`${what} printed no address in time${err ? `: ${err.trim()}` : ''}`)), Math.max(0, deadline - Date.now()))
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(new A11yBusError(error.code === 'ENOENT' ? `${what} is not installed: run \`npm run setup\` (or apt-get install dbus-daemon)` : `${what}: ${error.message}`))
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new A11yBusError(`${what} exited at start (${signal ?? `code ${code}`})${err ? `: ${err.trim()}` : ''}`))
    })
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const line = out.split('\n')[0]!
      if (out.includes('\n') && line) {
        clearTimeout(timer)
        resolve(line.trim())
      }
    })
  })
}

/** SIGTERM to the child's process group (it leads one: spawned detached), SIGKILL after a grace period. */
async function stopGroup (child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return
  const exited = child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const signal = (name: NodeJS.Signals) => { try { process.kill(-child.pid!, name) } catch { /* the group is gone */ } }
  await stopChild({ signal, exited }, STOP_GRACE_MS)
  // Processes it started (the accessibility bus's dbus-daemon, the registry) share the group
  // and may outlive the leader for a moment.
  await delay(20)
  signal('SIGKILL')
}
