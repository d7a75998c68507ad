/**
 * @computer-gateway/agent/fleet against a fleet over the in-memory backend (test/helpers/fleet.ts),
 * listening on loopback: the README's example (create, ready, a click through the fleet, reset,
 * list, delete), each call's answer whole, the refusals as GatewayErrors, the direct client on
 * the desktop's own URL and token; and its types are what openapi-typescript makes of
 * fleet/openapi.yaml, which is what the fleet's routes generate.
 */
import { readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { FleetClient, GatewayError, type DesktopView } from '../src/fleet/index.ts'
import { generateClientTypes } from '../../../scripts/openapi.ts'
import { generateFleetOpenapi } from '../../../scripts/fleet-openapi.ts'
import { KEY, startFleet, until } from '../../../test/helpers/fleet.ts'
import type { Echo } from '../../../test/helpers/memory-backend.ts'
import { example } from '../examples/fleet.ts'

const root = new URL('..', import.meta.url)
const repo = new URL('../../../', import.meta.url)

async function listening (t: Test, options: Parameters<typeof startFleet>[1] = {}) {
  const fleet = await startFleet(t, options)
  await fleet.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...fleet, baseUrl: `http://127.0.0.1:${(fleet.app.server.address() as AddressInfo).port}` }
}

t.test('the README\'s example: create, a click through the fleet, reset under the same id, list, delete', async (t) => {
  const { baseUrl, backend, fleet } = await listening(t, { warm: 1, max: 3 })
  await until(t, 'the pool is ready', () => fleet.health().ready)
  const [warm] = [...backend.held.values()].map((h) => h.facts)
  const result = await example(baseUrl, KEY)
  const fresh = backend.calls.find((call) => call.startsWith('claim ') && !call.endsWith(warm!.id))!.split(' ')[1]!
  const clicked = result.clicked as unknown as Echo
  const after = result.after as unknown as Echo
  t.equal(result.id, warm!.id, 'the warm desktop\'s id, kept across the reset')
  t.strictSame(result.listed, [warm!.id])
  t.strictSame(clicked, { method: 'POST', url: '/computer', authorization: `Bearer ${warm!.token}`, contentType: 'application/json', body: '{"action":"click_mouse","button":"left","coordinates":[100,120]}', desktop: warm!.id },
    'the click reached the warm desktop with its token')
  t.equal(after.desktop, fresh, 'after the reset, the same client reaches the fresh desktop')
  t.notOk(backend.held.has(warm!.id), 'the first desktop ended with the reset')
  t.strictSame([...backend.held.values()].filter((h) => h.claim), [], 'and the fresh one with the delete')
})

t.test('each call\'s answer; refusals are GatewayErrors with the fleet\'s status, code and message', async (t) => {
  const { baseUrl, backend } = await listening(t, { max: 1 })
  const client = new FleetClient({ baseUrl, token: KEY, retries: 0 })
  t.strictSame(await client.health(), { ready: true, warm: { ready: 0, starting: 0, wanted: 0 }, desktops: 0, max: 1 })
  const desktop = await client.create({ screen: '1024x768', desktop: 'minimal', ttl_seconds: 120, labels: { a: 'b' } })
  const held = backend.held.get(desktop.id)!
  const view: DesktopView = {
    id: desktop.id, status: 'running', screen: '1024x768', created_at: new Date(held.facts.createdAt).toISOString(),
    expires_at: new Date(held.claim!.expiresAt).toISOString(), labels: { a: 'b' }, desktop: 'minimal', autostart: [], browser: 'firefox', url: held.url!, token: held.facts.token,
  }
  await desktop.ready({ timeoutMs: 5000, intervalMs: 20 })
  t.strictSame(desktop.view, view, 'the view, typed by the document')
  t.strictSame((await client.get(desktop.id)).view, view)
  // The listing also reads each desktop's control lease: nobody holds it, nobody is asked for.
  t.strictSame((await client.list()).map((d) => d.view), [{ ...view, control: { taken_over: false, waiting: 0, oldest_wait_ms: null } }])
  const direct = await desktop.direct().computer({ action: 'get_cursor_position' }) as unknown as Echo
  t.strictSame([direct.desktop, direct.authorization], [desktop.id, `Bearer ${held.facts.token}`], 'direct(): the desktop\'s own URL and token')

  const refusals: Array<[string, () => Promise<unknown>, [number, string, string]]> = [
    ['over --max', () => client.create(), [429, 'ERR_FLEET_FULL', 'the fleet holds its maximum of 1 desktops (--max); end one (DELETE /desktops/{id}) or retry in 5 s']],
    ['a hostile profile', () => client.create({ desktop: 'kde' }), [400, 'ERR_INVALID_DESKTOP_REQUEST', "desktop must be minimal (a window manager only) or full (an XFCE session with the applications autostart may name) (got 'kde')"]],
    ['an unknown id', () => client.get('0123456789abcdef'), [404, 'ERR_DESKTOP_NOT_FOUND', 'no desktop 0123456789abcdef in this fleet (GET /desktops lists them)']],
    ['a malformed id', () => client.reset('../x'), [400, 'ERR_INVALID_DESKTOP_REQUEST', 'the desktop id in the path must be 16 lowercase hex digits, as POST /desktops answered it']],
    ['another key', () => new FleetClient({ baseUrl, token: 'nope' }).list(), [401, 'ERR_UNAUTHORIZED', 'the API token is not valid']],
  ]
  for (const [name, call, expected] of refusals) {
    const error = await call().catch((caught: unknown) => caught)
    t.ok(error instanceof GatewayError, name)
    t.strictSame([(error as GatewayError).status, (error as GatewayError).code, (error as GatewayError).message], expected, name)
  }

  await desktop.delete()
  const gone = await desktop.refresh().catch((caught: unknown) => caught) as GatewayError
  t.strictSame([gone.status, gone.code], [404, 'ERR_DESKTOP_NOT_FOUND'], 'deleted')
})

t.test('ready() throws when the desktop ends, and when the time is up', async (t) => {
  const { baseUrl, backend, clock, fleet } = await listening(t)
  backend.readyAtStart = false
  const client = new FleetClient({ baseUrl, token: KEY })
  const slow = await client.create()
  await t.rejects(slow.ready({ timeoutMs: 100, intervalMs: 20 }), { message: `computer-gateway: desktop ${slow.id} is not running within 100 ms (status starting)` })
  const ending = await client.create({ ttl_seconds: 60 })
  clock.now += 61_000
  await fleet.sweep()
  await t.rejects(ending.ready({ timeoutMs: 1000, intervalMs: 20 }), { message: `computer-gateway: desktop ${ending.id} ended (its TTL passed)` })
})

t.test('src/fleet/openapi.ts is what openapi-typescript makes of fleet/openapi.yaml, which the fleet\'s routes generate', async (t) => {
  const yaml = await readFile(new URL('fleet/openapi.yaml', repo), 'utf8')
  t.equal(yaml, await generateFleetOpenapi(), 'run `npm run openapi` and commit fleet/openapi.yaml')
  t.equal(await readFile(new URL('src/fleet/openapi.ts', root), 'utf8'), await generateClientTypes(yaml), 'run `npm run openapi` and commit packages/agent/src/fleet/openapi.ts')
})
