/**
 * @computer-gateway/agent: the typed client's HTTP behaviour (the token, 503 retried after
 * Retry-After, the deadline, our errors as GatewayError), the generated types matching
 * openapi.yaml, package.json's exports and optional peers, what each subpath loads (no
 * framework unless its own, nothing of the server), and its README quoting the examples the
 * framework tests run.
 */
import { readFile, readdir } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import ts from 'typescript'
import { GatewayClient, GatewayError } from '../src/client/index.ts'
import { retryAfterMs } from '../src/client/retry-after.ts'
import { generateClientTypes } from '../../../scripts/openapi.ts'
import { build } from '../../../test/helpers/build.ts'
import { example } from '../examples/client.ts'

const root = new URL('..', import.meta.url)
const repo = new URL('../../../', import.meta.url)
const SUBPATHS = ['client', 'openai-agents', 'anthropic', 'ai-sdk', 'ui-tars', 'fleet']
const FRAMEWORKS = ['@openai/agents', '@anthropic-ai/sdk', 'ai', '@ai-sdk/anthropic', '@ai-sdk/openai', '@ui-tars/sdk']

/** A stand-in server answering each request with the next scripted handler, keeping what came. */
async function scriptedServer (t: Test, handlers: Array<(req: IncomingMessage, res: ServerResponse) => void>) {
  const seen: Array<{ url: string, authorization: string | undefined, at: number }> = []
  let next = 0
  const server = createServer((req, res) => {
    seen.push({ url: req.url!, authorization: req.headers.authorization, at: Date.now() })
    const handler = handlers[Math.min(next++, handlers.length - 1)]!
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  return { baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}
const busy = json(503, { statusCode: 503, code: 'ERR_DESKTOP_UNAVAILABLE', error: 'Service Unavailable', message: 'the desktop is restarting' }, { 'retry-after': '1' })
const cursor = { output: 'cursor at (1, 2)', error: null, base64_image: null, cursor_position: [1, 2] }

t.test('a 503 is retried after its Retry-After, with the token, until an answer', async (t) => {
  const server = await scriptedServer(t, [busy, busy, json(200, cursor)])
  const client = new GatewayClient({ baseUrl: server.baseUrl, token: 'tok' })
  t.strictSame(await client.computer({ action: 'get_cursor_position' }, { display_width_px: 640, display_height_px: 400 }), cursor)
  t.equal(server.seen.length, 3)
  t.strictSame(server.seen.map((s) => s.authorization), ['Bearer tok', 'Bearer tok', 'Bearer tok'])
  t.equal(server.seen[0]!.url, '/computer?display_width_px=640&display_height_px=400')
  t.ok(server.seen[1]!.at - server.seen[0]!.at >= 950, 'waited the Retry-After second')
})

t.test('retries run out: the last 503 is the GatewayError', async (t) => {
  const server = await scriptedServer(t, [busy])
  const client = new GatewayClient({ baseUrl: server.baseUrl, retries: 1, maxRetryDelayMs: 10 })
  await t.rejects(client.computer({ action: 'get_cursor_position' }), { name: 'GatewayError', status: 503, code: 'ERR_DESKTOP_UNAVAILABLE', message: 'the desktop is restarting' })
  t.equal(server.seen.length, 2, 'one try and one retry, the wait capped by maxRetryDelayMs')
})

t.test('no answer within timeoutMs, and no server at all, are GatewayErrors a person can act on', async (t) => {
  const server = await scriptedServer(t, [() => { /* never answers */ }])
  const client = new GatewayClient({ baseUrl: server.baseUrl, timeoutMs: 200 })
  await t.rejects(client.health(), { status: 0, code: 'ERR_TIMEOUT', message: /no answer from .*\/health within 200 ms/ })
  await t.rejects(new GatewayClient({ baseUrl: 'http://127.0.0.1:9' }).health(), { status: 0, code: 'ERR_NETWORK', message: /could not reach http:\/\/127.0.0.1:9\/health/ })
  t.throws(() => new GatewayClient({ baseUrl: 'ftp://x' }), /must be http\(s\)/)
  t.throws(() => new GatewayClient({} as never), /baseUrl is required/)
})

t.test('Retry-After: seconds or an HTTP date', async (t) => {
  t.equal(retryAfterMs('3'), 3000)
  t.equal(retryAfterMs('Wed, 25 Nov 2026 22:00:05 GMT', Date.parse('Wed, 25 Nov 2026 22:00:00 GMT')), 5000)
  t.equal(retryAfterMs('soon'), undefined)
  t.equal(retryAfterMs(null), undefined)
})

t.test('against the server: typed routes, a token, our 4xx as GatewayError with code and message', async (t) => {
  const { app } = await build(t, { token: 'secret' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const client = new GatewayClient({ baseUrl, token: 'secret' })
  t.match(await client.health(), { screen: { width: 1280, height: 800 } })
  t.match(await client.computer({ action: 'move_mouse', coordinates: [10, 20] }), { cursor_position: [10, 20] })
  t.match(await client.batch([{ action: 'move_mouse', coordinates: [1, 1] }, { action: 'get_cursor_position' }]), { failed_index: null })
  t.match(await client.get('/adapters'), { adapters: Array })
  t.match(await client.post('/v1/instance/{instance_id}/computer', { action: 'get_cursor_position' }, { params: { instance_id: 'a b' } }), { cursor_position: [1, 1] })
  const refused = await client.computer({ action: 'press_key', keys: ['nokey'] }).catch((error: unknown) => error)
  t.ok(refused instanceof GatewayError)
  t.match(refused, { status: 400, code: 'ERR_UNKNOWN_KEY', message: /unknown key 'nokey'/, body: { statusCode: 400 } })
  await t.rejects(new GatewayClient({ baseUrl }).computer({ action: 'get_cursor_position' }), { status: 401, code: 'ERR_UNAUTHORIZED' })
  const shot = await client.screenshot({ width: 640, height: 400 })
  t.equal(Buffer.from(shot, 'base64').readUInt32BE(16), 640, 'a screenshot at the display asked')
})

t.test('the README\'s client example against the server: health, a click on the model\'s display, a screenshot at it, a refusal', async (t) => {
  const { app } = await build(t, { token: 'secret' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const { screen, screenshot, refused } = await example(baseUrl, 'secret')
  t.match(screen, { width: 1280, height: 800 })
  t.strictSame((await new GatewayClient({ baseUrl, token: 'secret' }).computer({ action: 'get_cursor_position' })).cursor_position, [125, 150], '(100, 120) of 1024x640 is the screen\'s (125, 150)')
  t.equal(Buffer.from(screenshot, 'base64').readUInt32BE(16), 1024)
  t.equal(refused, '400 ERR_UNKNOWN_KEY')
})

t.test('src/client/openapi.ts is what openapi-typescript makes of openapi.yaml', async (t) => {
  const yaml = await readFile(new URL('openapi.yaml', repo), 'utf8')
  t.equal(await readFile(new URL('src/client/openapi.ts', root), 'utf8'), await generateClientTypes(yaml), 'run `npm run openapi` and commit packages/agent/src/client/openapi.ts')
})

t.test('package.json: a typed subpath per client, the frameworks optional peers, pinned in the root\'s devDependencies', async (t) => {
  const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'))
  const server = JSON.parse(await readFile(new URL('package.json', repo), 'utf8'))
  t.strictSame(Object.keys(pkg.exports), [...SUBPATHS.map((name) => `./${name}`), './package.json'])
  for (const name of SUBPATHS) {
    t.strictSame(pkg.exports[`./${name}`], { types: `./dist/${name}/index.d.ts`, default: `./dist/${name}/index.js` }, name)
    await readFile(new URL(`src/${name}/index.ts`, root))
  }
  t.strictSame(pkg.files, ['dist', 'README.md'])
  // @ui-tars/sdk's GUIAgent imports uuid without declaring it: installed with us, it is found.
  t.strictSame(Object.keys(pkg.dependencies), ['uuid'], 'no dependency but uuid')
  t.strictSame(Object.keys(pkg.peerDependencies).sort(), [...FRAMEWORKS].sort())
  t.notOk(server.peerDependencies, 'the server has no peers: the frameworks are the agent side\'s')
  t.strictSame(server.workspaces, ['packages/*'])
  for (const name of FRAMEWORKS) {
    t.strictSame(pkg.peerDependenciesMeta[name], { optional: true }, `${name} is optional`)
    const installed = JSON.parse(await readFile(new URL(`node_modules/${name}/package.json`, repo), 'utf8')).version
    t.equal(server.devDependencies[name], installed, `${name} is pinned to the version the tests use`)
  }
})

t.test('a subpath loads no framework but its own: imports left after compiling each file', async (t) => {
  const allowed: Record<string, string[]> = { client: [], 'openai-agents': [], 'ai-sdk': [], anthropic: ['@anthropic-ai/sdk/helpers/beta/toolsets'], 'ui-tars': ['@ui-tars/sdk/core'], fleet: [] }
  for (const name of SUBPATHS) {
    const dir = new URL(`src/${name}/`, root)
    const found = new Set<string>()
    for (const file of await readdir(dir)) {
      const source = await readFile(new URL(file, dir), 'utf8')
      const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
      const specifiers = [...js.matchAll(/^(?:import|export)\b[^'"]*from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!)
      t.strictSame(specifiers.filter((s) => s.startsWith('../../')), [], `src/${name}/${file} imports nothing outside the package`)
      const imports = specifiers.filter((s) => !s.startsWith('.'))
      t.strictSame(imports.filter((s) => !allowed[name]!.includes(s)), [], `src/${name}/${file}`)
      imports.forEach((s) => found.add(s))
    }
    t.strictSame([...found].sort(), allowed[name], `src/${name} loads exactly ${allowed[name]!.join(', ') || 'no package'}`)
  }
})

t.test('README quotes every example the framework tests run, verbatim', async (t) => {
  const readme = await readFile(new URL('README.md', root), 'utf8')
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1])
  for (const file of await readdir(new URL('examples/', root))) {
    const example = await readFile(new URL(`examples/${file}`, root), 'utf8')
    t.ok(blocks.includes(example), `README has examples/${file} as a ts block`)
  }
})
