/**
 * What the real-engine fleet files share: a command run with a deadline, and a fleet id's
 * containers and volumes listed and swept, on every path (the tap teardown and the signals a
 * CI runner sends), so no test leaves a desktop behind.
 */
import { type ChildProcess, execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import t, { type Test } from 'tap'

export interface RunResult { code: number, stdout: string, stderr: string }

/** Runs a command to its end or its deadline (then SIGKILL); never rejects. */
export function run (command: string, args: string[], options: { env?: NodeJS.ProcessEnv, timeoutMs?: number, cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { ...(options.cwd && { cwd: options.cwd }), timeout: options.timeoutMs ?? 60_000, killSignal: 'SIGKILL', maxBuffer: 64e6, env: { ...process.env, ...options.env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout: String(stdout).trim(), stderr: String(stderr) })
    })
  })
}

/**
 * A fleet id of this test file's own, its engine objects, and the clean-up of both: fleet
 * processes registered in `fleets` are SIGKILLed and everything labelled with the id removed.
 */
export function testFleet (prefix = 't') {
  const id = `${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`
  const label = `computer-gateway.fleet=${id}`
  /** This fleet's containers (`ID desktop-id state`) and volumes, as the engine lists them. */
  const owned = async () => {
    const containers = (await run('docker', ['ps', '-a', '--filter', `label=${label}`, '--format', '{{.ID}} {{.Label "computer-gateway.fleet.desktop"}} {{.State}}'])).stdout.split('\n').filter(Boolean)
    const volumes = (await run('docker', ['volume', 'ls', '-q', '--filter', `label=${label}`])).stdout.split('\n').filter(Boolean)
    return { containers, volumes }
  }
  const sweep = async () => {
    const { containers, volumes } = await owned()
    if (containers.length) await run('docker', ['rm', '-f', '-v', ...containers.map((line) => line.split(' ')[0]!)])
    if (volumes.length) await run('docker', ['volume', 'rm', '-f', ...volumes])
  }
  const fleets = new Set<ChildProcess>()
  t.teardown(async () => {
    for (const child of fleets) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await sweep()
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { void sweep().finally(() => process.exit(1)) })
  /** Stops a fleet as an operator does (SIGTERM; it was started with --on-exit end) and checks it ended cleanly, leaving nothing in the engine. */
  const endFleet = async (t: Test, child: ChildProcess, log: () => string) => {
    child.kill('SIGTERM')
    const [code] = await Promise.race([once(child, 'exit'), delay(60_000).then(() => ['timeout'])])
    t.equal(code, 0, `the fleet exited cleanly (${log().slice(-2000)})`)
    t.strictSame(await owned(), { containers: [], volumes: [] }, 'nothing of the fleet left in the engine')
  }
  return { id, label, owned, sweep, fleets, endFleet }
}

/**
 * Polls check() every half second until it holds (true), the fleet process exits, or the
 * deadline passes; then fails the test with the fleet's log and answers false.
 */
export async function pollFleet (t: Test, fleet: { child: () => ChildProcess, log: () => string }, what: string, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true
    if (fleet.child().exitCode !== null) break
    await delay(500)
  }
  t.fail(`${what}: not within ${timeoutMs / 1000} s (exit ${fleet.child().exitCode}; log: ${fleet.log().slice(-3000)})`)
  return false
}
