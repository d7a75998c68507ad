/** openapi.yaml is generated from the schemas; the committed file must be what they generate. */
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'
import { generateOpenapi } from '../scripts/openapi.ts'

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
  t.equal(unified.oneOf.length, 15, 'the seed\'s nine actions, the four window actions and the two accessibility actions')
  for (const name of ['MoveMouseAction', 'ClickMouseAction', 'DragMouseAction', 'ScrollAction', 'PressKeyAction', 'TypeTextAction', 'WaitAction', 'TakeScreenshotAction', 'GetCursorPositionAction', 'ListWindowsAction', 'FocusWindowAction', 'LaunchAppAction', 'SetWindowGeometryAction', 'GetAccessibilityTreeAction', 'ElementAction', 'WindowInfo', 'ElementOutcome', 'ActionResponse', 'ErrorBody']) {
    t.ok(document.components.schemas[name], name)
  }
  t.equal(document.components.schemas.WaitAction.properties.duration.maximum, 60, 'bounds are in the schema')
})
