/**
 * npm run openapi — writes openapi.yaml from the routes' TypeBox schemas (through
 * @fastify/swagger), so the file can never drift from what the server validates.
 */
import { writeFile } from 'node:fs/promises'
import pino from 'pino'
import { buildApp } from '../src/http/app.ts'
import { FakeDriver } from '../drivers/fake/fake-driver.ts'
import { FakeClipboard } from '../drivers/fake/fake-clipboard.ts'
import { FLAGS } from '../src/runtime/config.ts'
import { tmpdir } from 'node:os'

export async function generateOpenapi (): Promise<string> {
  // Every optional part on, at its default bounds, so the document describes them all.
  const app = await buildApp({
    driver: new FakeDriver(),
    logger: pino({ level: 'silent' }),
    files: { home: tmpdir(), maxFileSize: Number(FLAGS['max-file-size'].default), maxTotal: Number(FLAGS['max-files-total'].default) },
    clipboard: new FakeClipboard(),
  })
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
