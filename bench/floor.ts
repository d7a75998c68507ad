/**
 * The physical floor of an input action, measured in the bench's own run: one XTest fake input
 * and a round trip that says the X server processed it (what an action must at least cost to
 * answer truthfully), from this process over node-x11; and an empty Fastify POST over loopback
 * (bench/floor-server.ts) with the same keep-alive client as every server the bench times.
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { XClient, XTest } from 'x11'
import { createClient } from '../drivers/x11/connect.ts'
import { spawnOwned } from '../test/helpers/processes.ts'
import { client } from './http-client.ts'
import { percentile } from './percentile.ts'

export interface Floor { p50: number, p95: number, n: number }

/** One sample at a time of a floor, for measuring it between other requests; close() ends what it opened. */
export interface FloorProbe { sample (i: number): Promise<number>, close (): void }

/** A pointer motion over XTest, then GetInputFocus (node-x11's sync): one request with a reply. */
export async function xtestProbe (display: string): Promise<FloorProbe> {
  const { x11, xtest, root } = await new Promise<{ x11: XClient, xtest: XTest, root: number }>((resolve, reject) => {
    const x11 = createClient(display, (error, info) => {
      if (error) { reject(error); return }
      x11.require('xtest', (xtestError, xtest) => xtestError ? reject(xtestError) : resolve({ x11, xtest, root: info.screen[0]!.root }))
    })
  })
  return {
    sample: async (i) => {
      const started = performance.now()
      xtest.FakeInput(xtest.MotionNotify, 0, 0, root, 100 + (i % 200), 100)
      await x11.sync()
      return performance.now() - started
    },
    close: () => x11.terminate(),
  }
}

/** An empty POST /computer to a Fastify server that parses the body and answers `{}`. */
export async function httpProbe (port: number, started: (child: ChildProcess) => void): Promise<FloorProbe> {
  started(spawnOwned(undefined, process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./floor-server.ts', import.meta.url)), String(port)], { stdio: 'ignore' }))
  const http = client(port)
  const deadline = Date.now() + 20_000
  while (!(await http.post('/computer', {}).then((r) => r.status === 200, () => false))) {
    if (Date.now() > deadline) { http.close(); throw new Error(`the floor server on port ${port} did not answer`) }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return {
    sample: async (i) => {
      const begun = performance.now()
      await http.post('/computer', { action: 'move_mouse', coordinates: [i % 100, 1] })
      return performance.now() - begun
    },
    close: () => http.close(),
  }
}

/** A floor measured back to back (everything hot), after 20 samples to warm it; the probe stays open. */
export async function backToBack (probe: FloorProbe, n: number): Promise<Floor> {
  for (let i = 0; i < 20; i++) await probe.sample(i)
  const samples: number[] = []
  for (let i = 0; i < n; i++) samples.push(await probe.sample(i))
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), n }
}
