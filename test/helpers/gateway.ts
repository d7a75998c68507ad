/**
 * A listening gateway for clients that speak HTTP (clients/*): a real Xvfb, the app over the
 * real nut driver with a token, on an ephemeral loopback port, and the Chromium event oracle
 * on the screen. Set up in `t.before`; every part is ended at teardown.
 */
import { randomBytes } from 'node:crypto'
import pino from 'pino'
import { buildApp } from '../../src/http/app.ts'
import { NutDriver } from '../../drivers/nut/nut-driver.ts'
import { heldOnX, startDesktop } from './desktop.ts'
import { startOracle } from './oracle.ts'

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
