/**
 * build(t): the app over a fake driver, closed when the test ends, with its log lines
 * captured as parsed JSON so tests can assert on what was (and was not) logged.
 */
import { Writable } from 'node:stream'
import pino from 'pino'
import { buildApp, type AppOptions } from '../../src/http/app.ts'
import { loggerOptions } from '../../src/runtime/logger.ts'
import { fakeAccessibility } from '../../drivers/fake/fake-accessibility.ts'
import { FakeDriver, type FakeDriverOptions } from '../../drivers/fake/fake-driver.ts'

interface TestContext { teardown: (fn: () => unknown) => void }

export interface BuildOptions extends Omit<Partial<AppOptions>, 'driver' | 'logger'> {
  fake?: FakeDriverOptions
  logLevel?: string
}

export async function build (t: TestContext, options: BuildOptions = {}) {
  const driver = new FakeDriver(options.fake)
  const logs: Array<Record<string, unknown>> = []
  const lines: string[] = []
  const stream = new Writable({
    write (chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        lines.push(line)
        logs.push(JSON.parse(line))
      }
      done()
    },
  })
  const logger = pino(loggerOptions(options.logLevel ?? 'info'), stream)
  const { fake: _fake, logLevel: _level, ...appOptions } = options
  const app = await buildApp({ accessibility: fakeAccessibility(), ...appOptions, driver, logger })
  t.teardown(() => app.close())
  await app.ready()
  return { app, driver, logs, lines }
}

/** POSTs a JSON body and parses the answer. */
export async function post (app: Awaited<ReturnType<typeof build>>['app'], url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await app.inject({ method: 'POST', url, payload: body as object, headers })
  return { status: response.statusCode, body: response.json(), headers: response.headers }
}
