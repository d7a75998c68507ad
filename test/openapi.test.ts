/** openapi.yaml is generated from the schemas; the committed file must be what they generate. */
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'
import { generateOpenapi } from '../scripts/openapi.ts'
import { build } from './helpers/build.ts'
import { tmpdir } from 'node:os'
import { FakeClipboard } from '../drivers/fake/fake-clipboard.ts'
import { FLAGS } from '../src/runtime/config.ts'

t.test('the committed openapi.yaml is what `npm run openapi` generates', async (t) => {
  const committed = await readFile(new URL('../openapi.yaml', import.meta.url), 'utf8')
  const generated = await generateOpenapi()
  t.equal(committed, generated, 'run `npm run openapi` and commit openapi.yaml')
})

t.test('it documents every route and action', async (t) => {
  const document = parse(await generateOpenapi())
  t.equal(document.openapi, '3.1.0')
  for (const path of ['/computer', '/computer/batch', '/v1/instance/{instance_id}/computer', '/health']) {
    t.ok(document.paths[path], path)
  }
  const unified = document.components.schemas.UnifiedAction
  t.equal(unified.discriminator.propertyName, 'action')
  t.equal(unified.discriminator.mapping.move_mouse, '#/components/schemas/MoveMouseAction', 'the discriminator maps action values, not schema names')
  t.equal(unified.oneOf.length, 21, 'the seed\'s nine actions, the four window actions, the two accessibility actions, the two clipboard actions, the shell\'s and editor\'s three and request_human')
  for (const name of ['MoveMouseAction', 'ClickMouseAction', 'DragMouseAction', 'ScrollAction', 'PressKeyAction', 'TypeTextAction', 'WaitAction', 'TakeScreenshotAction', 'GetCursorPositionAction', 'ListWindowsAction', 'FocusWindowAction', 'LaunchAppAction', 'SetWindowGeometryAction', 'GetAccessibilityTreeAction', 'ElementAction', 'GetClipboardAction', 'SetClipboardAction', 'ClipboardContent', 'RunCommandAction', 'BashAction', 'EditAction', 'CommandResult', 'RequestHumanAction', 'HumanAnswer', 'ControlLease', 'ControlState', 'FileListing', 'FileEntry', 'FileWritten', 'FileDeleted', 'WindowInfo', 'ElementOutcome', 'ActionResponse', 'ErrorBody']) {
    t.ok(document.components.schemas[name], name)
  }
  t.equal(document.components.schemas.WaitAction.properties.duration.maximum, 60, 'bounds are in the schema')
})

t.test('/openapi.json and /docs serve the document openapi.yaml holds (a server with --files and --clipboard)', async (t) => {
  const { app } = await build(t, { files: { home: tmpdir(), maxFileSize: Number(FLAGS['max-file-size'].default), maxTotal: Number(FLAGS['max-files-total'].default) }, clipboard: new FakeClipboard() })
  const committed = await readFile(new URL('../openapi.yaml', import.meta.url), 'utf8')
  const get = (url: string) => app.inject({ method: 'GET', url })
  t.strictSame((await get('/openapi.json')).json(), parse(committed), '/openapi.json')
  t.strictSame((await get('/docs/json')).json(), parse(committed), '/docs/json')
  t.equal((await get('/docs/yaml')).body, committed, '/docs/yaml')
  const page = await get('/docs/static/index.html')
  t.equal(page.statusCode, 302, 'the UI page is /docs/')
  t.match((await get('/docs/static/swagger-initializer.js')).body, "resolveUrl('./json')", 'the UI reads /docs/json')
})

t.test('every discriminator maps each of its values to the member that carries it', async (t) => {
  const document = parse(await readFile(new URL('../openapi.yaml', import.meta.url), 'utf8'))
  const schemas = document.components.schemas
  const found: string[] = []
  const visit = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}/${i}`))
    if (node === null || typeof node !== 'object') return
    const schema = node as Record<string, unknown>
    for (const [key, value] of Object.entries(schema)) if (key !== 'mapping' && key !== 'enum') visit(value, `${where}/${key}`)
    const discriminator = schema.discriminator as { propertyName: string, mapping?: Record<string, string> } | undefined
    if (!discriminator) return
    found.push(where)
    const members = (schema.oneOf ?? schema.anyOf) as Array<{ $ref?: string }>
    const refs = members.map((member) => member.$ref)
    t.ok(refs.every((ref) => ref?.startsWith('#/components/schemas/')), `${where}: every member is a component`)
    t.strictSame(new Set(Object.values(discriminator.mapping ?? {})), new Set(refs), `${where}: the mapping names every member`)
    for (const [value, ref] of Object.entries(discriminator.mapping ?? {})) {
      const field = schemas[ref.split('/').pop()!].properties[discriminator.propertyName]
      t.ok(field.const === value || field.enum?.includes(value), `${where}: ${value} is ${ref}'s`)
    }
  }
  visit(document, '#')
  t.ok(found.length >= 10, `${found.length} discriminators`)
})
