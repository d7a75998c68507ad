/**
 * npm run openapi — writes openapi.yaml from the routes' TypeBox schemas (through
 * @fastify/swagger), so the file can never drift from what the server validates.
 */
import { writeFile } from 'node:fs/promises'
import pino from 'pino'
import { buildApp } from '../src/http/app.ts'
import { FakeDriver } from '../drivers/fake/fake-driver.ts'

export async function generateOpenapi (): Promise<string> {
  const app = await buildApp({ driver: new FakeDriver(), logger: pino({ level: 'silent' }) })
  await app.ready()
  const yaml = app.swagger({ yaml: true })
  await app.close()
  return yaml
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = new URL('../openapi.yaml', import.meta.url)
  await writeFile(target, await generateOpenapi())
  process.stdout.write(`wrote ${target.pathname}\n`)
}
