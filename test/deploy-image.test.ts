/**
 * The Docker image, proven without a Docker engine: the Dockerfile's invariants, and the
 * server run exactly as the image runs it — the files the build context keeps (.dockerignore),
 * compiled, dev dependencies pruned, the image's ENV and CMD, a token on 0.0.0.0 — driving a
 * real action on its own desktop, then ending everything it started on SIGTERM.
 */
import { execFile, execFileSync } from 'node:child_process'
import { cp, link, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import sharp from 'sharp'
import t from 'tap'
import { FLAGS } from '../src/runtime/config.ts'
import { spawnOwned, stopOwned } from './helpers/processes.ts'
import { running } from './helpers/process-table.ts'

const run = promisify(execFile)
const ROOT = new URL('..', import.meta.url).pathname
const TOKEN = 'image-test-token-0123456789abcdef'
/** Node's LTS lines and the day each stops being maintained (nodejs/Release). */
const LTS_END: Record<number, string> = { 22: '2027-04-30', 24: '2028-04-30', 26: '2029-04-30' }
/** The image's HEALTHCHECK, as the Dockerfile copies it. */
const HEALTHCHECK_SCRIPT = 'scripts/healthcheck.sh'

/** The image's HEALTHCHECK run against PORT: its exit code (Docker's healthy is 0). */
async function healthcheck (port: number): Promise<number> {
  return run('bash', [join(ROOT, HEALTHCHECK_SCRIPT)], { env: { PATH: process.env.PATH, PORT: String(port) }, timeout: 10_000 }).then(() => 0, (error) => error.code ?? -1)
}

interface Instruction { name: string, args: string }

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
async function dockerfile (): Promise<Instruction[]> {
  const text = (await readFile(join(ROOT, 'Dockerfile'), 'utf8')).split('\n').filter((line) => !/^\s*#/.test(line)).join('\n')
  return text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
    const [name, ...rest] = line.split(/\s+/)
    return { name: name!.toUpperCase(), args: rest.join(' ') }
  })
}

const all = (instructions: Instruction[], name: string) => instructions.filter((i) => i.name === name)

/** ENV lines as one map (KEY=VALUE pairs). */
const envOf = (instructions: Instruction[]) =>
  Object.fromEntries(all(instructions, 'ENV').flatMap((i) => i.args.split(/\s+/).map((pair) => pair.split('=') as [string, string])))

const ignored = async () => (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))

/** The Dockerfile's stages by name, each with its own instructions (FROM first). */
function stages (instructions: Instruction[]): Map<string, Instruction[]> {
  const found = new Map<string, Instruction[]>()
  let current: Instruction[] = []
  for (const instruction of instructions) {
    if (instruction.name === 'FROM') {
      current = []
      found.set(/\bAS\s+(\S+)$/i.exec(instruction.args)?.[1] ?? String(found.size), current)
    }
    current.push(instruction)
  }
  return found
}

// The copy below is compiled and pruned: minutes on a busy 2-core machine, past tap's 120 s for a file.
t.setTimeout(360_000)

t.test('the Dockerfile: a maintained Node LTS, non-root, tini, a health check, runtime files only', async (t) => {
  const instructions = await dockerfile()
  const byStage = stages(instructions)
  t.strictSame([...byStage.keys()], ['build', 'runtime-base', 'slim', 'desktop'], 'build, the runtime\'s base, then slim, then desktop: the default image is the last, the full desktop')
  const from = all(instructions, 'FROM').map((i) => i.args.split(/\s+/)[0])
  t.strictSame(from, [from[0], from[0], 'scratch', 'slim'], 'build and the runtime\'s base start from the same Node image; slim is that base copied whole; desktop from slim')
  // The server and PID 1 not dumpable: their /proc files (the token in environ, mem) out of the desktop user's reach.
  t.strictSame(byStage.get('runtime-base')!.slice(1).map((i) => `${i.name} ${i.args}`), ['RUN chmod 0711 /usr/local/bin/node'], 'the runtime\'s base makes node execute-only, and nothing else')
  t.strictSame(byStage.get('slim')!.filter((i) => i.name === 'COPY' && i.args.startsWith('--from=runtime-base')).map((i) => i.args), ['--from=runtime-base / /'], 'slim is that base whole, in one layer (no second copy of node)')
  const major = Number(/^node:(\d+)-bookworm-slim$/.exec(from[0]!)?.[1])
  t.ok(LTS_END[major], `node:${major} is an LTS line`)
  t.ok(new Date() < new Date(LTS_END[major] ?? 0), `node ${major} is still maintained (until ${LTS_END[major]})`)
  const ci = await readFile(join(ROOT, '.ci/run'), 'utf8')
  t.match(ci, /^npm test 2>&1 \| tee "\$log"$/m, '.ci/run runs the suite as the README says, npm test (with coverage)')
  // Every npm script runs on the project's own Node, a dev dependency on the image's line.
  const project = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>, scripts: Record<string, string> }
  t.match(project.devDependencies.node, new RegExp(`^\\^${major}\\.`), 'the project\'s Node (the npm registry\'s node package) is on the Dockerfile\'s line')
  const { stdout } = await run(join(ROOT, 'node_modules/.bin/node'), ['-p', 'process.versions.node'], { timeout: 60_000 })
  t.equal(Number(stdout.trim().split('.')[0]), major, 'and node_modules/.bin/node, which npm\'s scripts put first on PATH, runs that line')
  t.equal(Number(process.versions.node.split('.')[0]), major, 'this suite runs on it too')
  t.match(project.scripts.bench, /^npm run build && node --import tsx bench\/run\.ts$/, 'and npm run bench its benches, through npm: on the same Node')
  t.match(ci, /npm run test:image 2>&1 \| tee -a "\$log"/, 'and builds and runs the images, their failures in the report too')

  // The build stage compiles; the images get its output only.
  const build = byStage.get('build')!.filter((i) => i.name === 'RUN').map((i) => i.args).join('\n')
  t.match(build, /npm ci /)
  t.match(build, /npm run build/)
  t.match(build, /npm prune --omit=dev/, 'dev dependencies pruned')
  t.match(build, /npm pkg delete workspaces && npm prune/, 'the agent-side workspace and its frameworks pruned too')
  const copied = byStage.get('slim')!.filter((i) => i.name === 'COPY' && i.args.startsWith('--from=build')).map((i) => i.args.split(/\s+/)[1])
  t.strictSame(copied, ['/app/package.json', '/app/node_modules', '/app/dist', '/app/bin'], 'slim takes package.json, the pruned node_modules, dist/ and the bin from the build, nothing else')
  t.notOk(byStage.get('desktop')!.some((i) => i.name === 'COPY' && !i.args.includes('install-system-deps.sh')), 'desktop adds nothing but its packages')

  const runs = (stage: string) => byStage.get(stage)!.filter((i) => i.name === 'RUN').map((i) => i.args).join('\n')
  t.match(runs('slim'), /install-system-deps\.sh --server-only tini/, 'slim\'s system steps are setup\'s own script, server packages only, plus tini')
  t.match(runs('desktop'), /install-system-deps\.sh --server-only --desktop tini/, 'desktop\'s are the same script with the full desktop\'s packages')
  for (const stage of ['slim', 'desktop']) t.match(runs(stage), /rm -rf \/var\/lib\/apt\/lists\/\*/, `${stage}: no apt lists in its layer`)
  t.match(runs('slim'), /chmod 0711 \/usr\/bin\/tini/, 'tini (PID 1, whose environment holds the token) execute-only too')

  for (const stage of ['slim', 'desktop']) {
    const users = byStage.get(stage)!.filter((i) => i.name === 'USER')
    t.ok(users.length, `${stage} sets its user`)
    t.notOk(['root', '0'].includes(users.at(-1)!.args), `${stage} runs as ${users.at(-1)!.args}, not root`)
  }
  t.ok(instructions.indexOf(all(instructions, 'USER')[0]!) < instructions.findIndex((i) => i.name === 'CMD'), 'USER before CMD')

  t.equal(all(instructions, 'ENTRYPOINT')[0]?.args, '["/usr/bin/tini", "--"]', 'tini is PID 1: it reaps zombies and passes signals on')
  t.match(all(instructions, 'HEALTHCHECK')[0]?.args ?? '', /CMD \["computer-gateway-healthcheck"\]$/, 'HEALTHCHECK runs the image\'s check')
  t.ok(all(instructions, 'COPY').some((i) => i.args === `${HEALTHCHECK_SCRIPT} /usr/local/bin/computer-gateway-healthcheck`), 'which is scripts/healthcheck.sh, on PATH')
  // Run --read-only with no -v, the desktop's home must still be writable: a volume Docker makes.
  t.strictSame(byStage.get('slim')!.filter((i) => i.name === 'VOLUME').map((i) => i.args), ['/home/node'], 'slim (and so desktop) declares the home a VOLUME')
  // One way to start: npm start and the image exec the bin, whose shebang carries the settings.
  const start = (JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start
  t.equal(start, 'exec bin/computer-gateway.js', 'npm start execs the bin: no shell left between npm and node')
  t.strictSame(JSON.parse(all(instructions, 'CMD')[0]!.args), ['bin/computer-gateway.js'], 'the image runs the bin, as npm start does')
  const shebang = (await readFile(join(ROOT, 'bin/computer-gateway.js'), 'utf8')).split('\n')[0]
  t.equal(shebang, '#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2 --single-threaded-gc', 'the bin carries the memory and GC settings')

  t.strictSame(envOf(byStage.get('slim')!), { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOST: '0.0.0.0', PORT: FLAGS.port.default, NODE_ENV: 'production', MALLOC_ARENA_MAX: '2' })
  t.strictSame(envOf(byStage.get('desktop')!), { [FLAGS.desktop.env]: 'full' }, 'desktop: the full desktop')
  for (const name of ['HOST', 'PORT', 'DESKTOP']) t.ok(Object.values(FLAGS).some((flag) => flag.env === name), `${name} is read by src/runtime/config.ts`)

  const ignore = await ignored()
  for (const entry of ['node_modules', '.git', 'test', 'bench', 'dist', 'docs', '.ci']) t.ok(ignore.includes(entry), `${entry} stays out of the image`)
})

/** The image's /app: what the build context keeps, npm ci'd (hard links of ours), built, pruned. */
async function imageCopy (t: { teardown: (fn: () => unknown) => void }): Promise<string> {
  const app = await mkdtemp(join(tmpdir(), 'cg-image-'))
  t.teardown(() => rm(app, { recursive: true, force: true }))
  const ignore = new Set(await ignored())
  for (const entry of await readdir(ROOT)) {
    if (ignore.has(entry) || entry.startsWith('.tap')) continue
    // A nested entry without a wildcard (packages/python, with its virtual environment) stays out too.
    await cp(join(ROOT, entry), join(app, entry), { recursive: true, filter: (source) => !ignore.has(relative(ROOT, source)) })
  }
  // npm ci's result, without the network: links to the packages the lock file installed here.
  await linkTree(join(ROOT, 'node_modules'), join(app, 'node_modules'))
  await run('npm', ['run', 'build'], { cwd: app })
  await run('npm', ['pkg', 'delete', 'workspaces'], { cwd: app })
  await run('npm', ['prune', '--omit=dev', '--no-fund', '--no-audit', '--offline'], { cwd: app })
  await run('sh', [join(ROOT, 'scripts/trim-node-modules.sh'), join(app, 'node_modules')])
  return app
}

async function linkTree (from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true })
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)]
    if (entry.isDirectory()) await linkTree(source, target)
    else if (entry.isSymbolicLink()) await cp(source, target, { verbatimSymlinks: true })
    else await link(source, target)
  }
}


// The copy is compiled with tsc and pruned with npm first: 60–90 s of a busy 2-core machine.
t.test('the server as the slim image runs it: pruned runtime, NODE_ENV=production, 0.0.0.0 with a token', { timeout: 300_000 }, async (t) => {
  const instructions = await dockerfile()
  const app = await imageCopy(t)
  for (const dev of ['typescript', 'tap', '@anthropic-ai/sdk', '@computer-gateway/agent', 'node']) t.notOk(existsSync(join(app, 'node_modules', dev)), `${dev} pruned`)
  t.ok((await stat(join(app, 'dist/src/runtime/server.js'))).isFile())

  const [command, ...args] = JSON.parse(all(instructions, 'CMD')[0]!.args) as string[]
  // The image's settings, but this machine's PATH (the image's names its own node, not the project's).
  // PORT 0: the server takes a port no other test can take between a check and its bind (on
  // 0.0.0.0, as the image listens), and logs it.
  const { PATH: _imagePath, ...settings } = envOf(stages(instructions).get('slim')!)
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: app, ...settings, PORT: '0', API_TOKEN: TOKEN }
  const server = spawnOwned(t, command === 'node' ? process.execPath : command!, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let [stdout, stderr] = ['', '']
  server.stdout!.on('data', (chunk) => { stdout += chunk })
  server.stderr!.on('data', (chunk) => { stderr += chunk })
  const listening = () => Number(/"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(stdout)?.[1] ?? 0)
  const deadline = Date.now() + 30_000
  while (!listening() && Date.now() < deadline && server.exitCode === null) await delay(50)
  const port = listening()
  t.ok(port, `it logged the port it listens on (stderr: ${stderr.slice(-500)})`)

  const base = `http://127.0.0.1:${port}`
  let health: { ready?: boolean, display?: string } = {}
  while (!health.ready && Date.now() < deadline && server.exitCode === null) {
    health = await fetch(`${base}/health`).then((r) => r.json(), () => ({}))
    if (!health.ready) await delay(100)
  }
  t.ok(health.ready, `ready within 30 s (stderr: ${stderr.slice(-500)})`)
  t.equal(await healthcheck(port), 0, 'the image\'s HEALTHCHECK: healthy')

  const act = (body: unknown, token?: string) => fetch(`${base}/computer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  })
  t.equal((await act({ action: 'move_mouse', coordinates: [321, 123] })).status, 401, 'no token, no desktop')
  const moved = await act({ action: 'move_mouse', coordinates: [321, 123] }, TOKEN)
  t.equal(moved.status, 200)
  t.strictSame((await moved.json()).cursor_position, [321, 123])
  const shot = await (await act({ action: 'take_screenshot' }, TOKEN)).json()
  const meta = await sharp(Buffer.from(shot.base64_image, 'base64')).metadata()
  t.match(meta, { format: 'png', width: 1280, height: 800 })

  // The desktop it started, found by its display's lock file, ends with it.
  const lock = `/tmp/.X${health.display!.slice(1)}-lock`
  const xvfb = Number((await readFile(lock, 'utf8')).trim())
  t.ok(running(xvfb), `Xvfb ${xvfb} runs`)
  const stopped = Date.now()
  await stopOwned(server, false, (Number(FLAGS['shutdown-grace'].default) + 2) * 1000)
  t.equal(server.signalCode, null, 'exited by itself on SIGTERM, not killed')
  t.ok(Date.now() - stopped < Number(FLAGS['shutdown-grace'].default) * 1000, 'within the shutdown grace')
  t.notOk(running(xvfb), 'its Xvfb is gone')
  t.not(await healthcheck(port), 0, 'the image\'s HEALTHCHECK: unhealthy once it is gone')
  t.notOk(execFileSync('ps', ['-eo', 'ppid=,args=']).toString().split('\n').some((line) => line.includes(app)), 'nothing of it runs')
})

// What Docker's HEALTHCHECK sees, one answer at a time: healthy on a 200 only, within its deadline.
t.test('the image\'s HEALTHCHECK script: GET /health on PORT, healthy on 200 alone', async (t) => {
  const cases: Array<{ name: string, answer: (response: ServerResponse) => void, code: (code: number) => boolean }> = [
    { name: '200: healthy', answer: (response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ready":true}'), code: (code) => code === 0 },
    { name: '503 (the desktop not ready): unhealthy', answer: (response) => response.writeHead(503).end('{"ready":false}'), code: (code) => code !== 0 },
    { name: 'no answer: unhealthy within its own deadline', answer: () => {}, code: (code) => code !== 0 },
  ]
  for (const { name, answer, code } of cases) {
    const requests: Array<{ method?: string, url?: string, host?: string }> = []
    const server = createServer((request, response) => {
      requests.push({ method: request.method, url: request.url, host: request.headers.host })
      answer(response)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const started = Date.now()
    const exit = await healthcheck(port)
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    t.ok(code(exit), `${name} (exit ${exit})`)
    t.ok(Date.now() - started < 6000, `${name}: answered within Docker's 5 s timeout and a margin`)
    t.strictSame(requests, [{ method: 'GET', url: '/health', host: `127.0.0.1:${port}` }], `${name}: one GET /health with the Host the server expects`)
  }
})

t.test('the image\'s address without a token: the server refuses to start, saying why', async (t) => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOST: '0.0.0.0', PORT: '0' }
  const result = await run(process.execPath, ['--import=tsx', join(ROOT, 'src/runtime/server.ts')], { env, cwd: ROOT }).then(() => undefined, (error) => error)
  t.equal(result?.code, 2)
  t.match(result?.stderr, /refusing to listen on 0\.0\.0\.0 without a token/)
})
