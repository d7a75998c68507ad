/**
 * fleet/openapi.yaml is generated from the fleet app's schemas (scripts/fleet-openapi.ts, by
 * `npm run openapi`); the committed file must be what they generate, list every lifecycle route
 * with its answers, and be what the fleet serves at /openapi.json.
 */
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { parse } from 'yaml'
import { generateFleetOpenapi } from '../scripts/fleet-openapi.ts'
import { startFleet } from './helpers/fleet.ts'

const committed = await readFile(new URL('../fleet/openapi.yaml', import.meta.url), 'utf8')

t.test('the committed fleet/openapi.yaml is what `npm run openapi` generates', async (t) => {
  t.equal(committed, await generateFleetOpenapi(), 'run `npm run openapi` and commit fleet/openapi.yaml')
})

t.test('it documents the lifecycle routes, their bodies and their refusals; the fleet serves it', async (t) => {
  const document = parse(committed) as { paths: Record<string, Record<string, { responses: Record<string, unknown>, requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } }>> }
  const lifecycle = Object.fromEntries(Object.entries(document.paths)
    // The Scrapybara routes (/v1/…) and a desktop's forwarded routes have their own checks (fleet-scrapybara, fleet-browser).
    .filter(([path]) => !/^\/desktops\/\{id\}\/(?!reset$|pause$|resume$|live)/.test(path) && !path.startsWith('/v1/'))
    .map(([path, operations]) => [path, Object.fromEntries(Object.entries(operations).map(([method, operation]) => [method, Object.keys(operation.responses).sort()]))]))
  t.strictSame(lifecycle, {
    '/health': { get: ['200'] },
    '/desktops': { post: ['201', '400', '401', '404', '429', '503'], get: ['200', '401'] },
    '/desktops/{id}': { get: ['200', '400', '401', '404'], delete: ['204', '400', '401', '404'] },
    '/desktops/{id}/reset': { post: ['200', '400', '401', '404', '410', '503'] },
    '/desktops/{id}/pause': { post: ['200', '400', '401', '404', '410', '501', '503'] },
    '/desktops/{id}/resume': { post: ['200', '400', '401', '404', '410', '501', '503'] },
    '/desktops/{id}/live/session': { post: ['200'], delete: ['200'] },
    '/desktops/{id}/live': { get: ['200'] },
    '/desktops/{id}/live/{*}': { get: ['200'] },
    '/desktops/{id}/live/takeover': { post: ['200'] },
    '/desktops/{id}/live/release': { post: ['200'] },
    '/desktops/{id}/live/websockify': { get: ['200'] },
  }, 'every lifecycle and live-view route, with its answers (the Scrapybara v1 routes apart)')
  t.strictSame(Object.keys(document.paths['/desktops']!.post!.requestBody!.content['application/json']!.schema.properties), ['screen', 'ttl_seconds', 'labels', 'desktop', 'browser', 'autostart'], 'a create\'s options')
  const { app } = await startFleet(t)
  t.strictSame((await app.inject({ method: 'GET', url: '/openapi.json' })).json(), parse(committed), 'GET /openapi.json on the fleet')
})
