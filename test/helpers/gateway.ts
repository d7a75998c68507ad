/**
 * A listening gateway for clients that speak HTTP (packages/agent): a real Xvfb, the app over the
 * real nut driver with a token, on an ephemeral loopback port, and the Chromium event oracle
 * on the screen. Set up in `t.before`; every part is ended at teardown.
 */
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import pino from 'pino'
import { buildApp } from '../../src/http/app.ts'
import { NutDriver } from '../../drivers/nut/nut-driver.ts'
import { heldOnX, startDesktop } from './desktop.ts'
import { startOracle, type OracleEvent } from './oracle.ts'

type Oracle = Awaited<ReturnType<typeof startOracle>>

interface TestContext { teardown: (fn: () => unknown) => void, before: (fn: () => Promise<void>) => unknown }

export interface Gateway {
  baseUrl: string
  token: string
  display: string
  oracle: Oracle
  /** Keys and buttons X reports down (test/helpers/desktop.ts heldOnX). */
  held: () => Promise<string[]>
}

export function gatewayDesktop (t: TestContext): Gateway {
  const gateway = { token: randomBytes(16).toString('hex') } as Gateway
  t.before(async () => {
    const xvfb = await startDesktop(t)
    gateway.display = xvfb.display
    const driver = new NutDriver({ display: xvfb.display })
    const app = await buildApp({ driver, token: gateway.token, logger: pino({ level: 'silent' }), desktop: { display: xvfb.display } })
    t.teardown(() => app.close())
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as { port: number }
    gateway.baseUrl = `http://127.0.0.1:${port}`
    gateway.oracle = await startOracle(t, xvfb.display)
    gateway.held = () => heldOnX(xvfb.display)
  })
  return gateway
}

/** The oracle's events of one type. */
export const eventsOf = (events: OracleEvent[], type: string) => events.filter((e) => e.type === type)

/** A click the model placed at (256, 96) of 1024x640 (or the grid's (250, 150)) is at the screen's (320, 120). */
export function assertAtScreenPoint (t: Test, down: OracleEvent | undefined): void {
  t.ok(Math.abs((down?.x as number) - 320) <= 1 && Math.abs((down?.y as number) - 120) <= 1, `at screen (320, 120), got ${down?.x},${down?.y}`)
}

/**
 * Waits until the oracle's textarea holds `text`, then checks the first click landed at the
 * screen's (320, 120) (on the textarea itself unless `onTextarea` is false) and the text is exact.
 */
export async function assertClickedAndTyped (t: Test, gateway: Gateway, text: string, { onTextarea = true } = {}): Promise<void> {
  const events = await gateway.oracle.until((e) => eventsOf(e, 'input').at(-1)?.value === text, 10_000)
  const down = eventsOf(events, 'mousedown')[0]
  if (onTextarea) t.equal(down?.target, 'text', 'the click is on the textarea')
  assertAtScreenPoint(t, down)
  t.equal(eventsOf(events, 'input').at(-1)?.value, text, 'the textarea holds the text exactly')
}

/**
 * Empties the oracle's focused textarea through the gateway (select all, Delete) and waits out
 * Chromium's 500 ms multi-click interval, so a test that clicks the same spot next counts its
 * clicks from 1 and types into an empty box, whatever the test before it left.
 */
export async function emptyTextarea (gateway: Gateway): Promise<void> {
  gateway.oracle.clear()
  for (const keys of [['ctrl', 'a'], ['Delete']]) {
    const response = await fetch(`${gateway.baseUrl}/computer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'press_key', keys }),
      signal: AbortSignal.timeout(30_000),
    })
    if (!response.ok) throw new Error(`press_key ${keys.join('+')}: ${response.status} ${await response.text()}`)
  }
  await gateway.oracle.until((events) => eventsOf(events, 'input').at(-1)?.value === '')
  await new Promise((resolve) => setTimeout(resolve, 600))
}
