/**
 * The published document rewrites schemas for OpenAPI 3.1 and its generators (tuples,
 * conditionals as unions, object-or-array shapes apart, members named for the discriminator):
 * a body schema must still accept exactly what the server's own validator accepts. The
 * samples are every value inside the recorded payloads of test/fixtures (whole payloads,
 * their parts, the unified actions they become, each also as a one-action batch), tried against
 * every request body schema.
 */
import { readdir, readFile } from 'node:fs/promises'
import { Ajv2020 } from 'ajv/dist/2020.js'
import t from 'tap'
import { parse } from 'yaml'
import { createValidatorCompiler } from '../src/schemas/validation.ts'
import { build } from './helpers/build.ts'

const fixtures = new URL('fixtures/', import.meta.url)

async function samples (): Promise<unknown[]> {
  const found = new Map<string, unknown>()
  const collect = (value: unknown): void => {
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'string') found.set(JSON.stringify(value), value)
      return
    }
    found.set(JSON.stringify(value), value)
    for (const child of Object.values(value)) collect(child)
  }
  for (const entry of await readdir(fixtures, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue
    collect(JSON.parse(await readFile(new URL(`${entry.parentPath}/${entry.name}`, 'file:'), 'utf8')))
  }
  // Batches of each sample, so ActionBatch meets valid bodies too.
  return [...found.values()].flatMap((value) => [value, { actions: [value] }])
}

t.test('every request body schema of the document accepts what the server validates', async (t) => {
  const { app } = await build(t)
  const document = parse(await readFile(new URL('../openapi.yaml', import.meta.url), 'utf8'))
  const server = createValidatorCompiler(Object.values(app.getSchemas()) as object[])
  const published = new Ajv2020({ strict: false, validateFormats: false })
  published.addSchema({ ...document, $id: 'https://computer-gateway.local/openapi.json' })

  const bodies = new Set<string>()
  for (const item of Object.values(document.paths) as Array<Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>) {
    for (const operation of Object.values(item)) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        const schema = media.schema as { $ref?: string, anyOf?: Array<{ $ref?: string }> }
        for (const ref of [schema.$ref, ...(schema.anyOf ?? []).map((member) => member.$ref)]) if (ref) bodies.add(ref.split('/').pop()!)
      }
    }
  }
  t.ok(bodies.size >= 16, `${bodies.size} body schemas`)

  const values = await samples()
  t.ok(values.length > 500, `${values.length} samples`)
  for (const name of [...bodies].sort()) {
    const ours = server({ schema: { $ref: name }, httpPart: 'body' })
    const theirs = published.getSchema(`https://computer-gateway.local/openapi.json#/components/schemas/${name}`)!
    const disagree = values.filter((value) => ours(value) !== theirs(value))
    const accepted = values.filter((value) => ours(value)).length
    t.strictSame(disagree, [], `${name}: the same verdict on every sample (${accepted} accepted)`)
  }
})
