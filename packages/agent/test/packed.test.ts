/**
 * Both packages as a user installs them. @computer-gateway/agent is compiled from src/ into a
 * copy of the package (the worktree's dist/ is not used), packed with `npm pack`, and installed
 * with the frameworks (at the versions the lock file has) into a fresh project, once: there
 * (a) the project's Node imports every subpath, and every example of README.md and examples/,
 * each with the names the sources export; (b) the project's own tsc (NodeNext, strict)
 * type-checks those examples and a file that fails unless every subpath is typed, so a missing
 * .d.ts or export fails; (c) nothing of the server is installed. The server, `computer-gateway`, is packed from
 * the root (its dist/ as `npm run build` left it), installed into another fresh project, and its
 * bin answers --help through npx.
 */
import { execFile } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const AGENT = fileURLToPath(new URL('..', import.meta.url))
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const SUBPATHS = ['client', 'openai-agents', 'anthropic', 'ai-sdk', 'ui-tars', 'fleet']
const FRAMEWORKS = ['@openai/agents', '@anthropic-ai/sdk', 'ai', '@ai-sdk/anthropic', '@ai-sdk/openai', '@ui-tars/sdk']
/** What a user's TypeScript project installs besides: its compiler and Node's types. */
const TOOLING = ['typescript', '@types/node']
const SERVER_ONLY = ['fastify', '@nut-tree-fork/nut-js', 'sharp', 'tsx']
// The project's Node first: npm, npx and the bin's `env node` run on it, not the machine's.
const ENV = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, npm_config_update_notifier: 'false' }
const INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']

function run (command: string, args: string[], cwd: string, timeout = 240_000): Promise<string> {
  return new Promise((resolve, reject) => execFile(command, args, { cwd, env: ENV, timeout, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
    if (error) reject(new Error(`${command} ${args.join(' ')} in ${cwd}: ${error.message}\n${stdout}\n${stderr}`))
    else resolve(stdout)
  }))
}

async function lockedVersion (name: string): Promise<string> {
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> }
  const version = lock.packages[`node_modules/${name}`]?.version
  if (!version) throw new Error(`${name} is not in package-lock.json`)
  return version
}

/** `npm pack` of a folder into `into`; the tarball's path. */
async function pack (folder: string, into: string): Promise<string> {
  const [packed] = JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', into], folder)) as Array<{ filename: string }>
  return join(into, packed!.filename)
}

/** Every package name installed under a node_modules, at any depth. */
async function installed (modules: string): Promise<Set<string>> {
  const names = new Set<string>()
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue
      if (entry.name.startsWith('@')) {
        for (const scoped of await readdir(join(dir, entry.name), { withFileTypes: true })) {
          if (scoped.isDirectory()) { names.add(`${entry.name}/${scoped.name}`); await walk(join(dir, entry.name, scoped.name, 'node_modules')) }
        }
      } else {
        names.add(entry.name)
        await walk(join(dir, entry.name, 'node_modules'))
      }
    }
  }
  await walk(modules)
  return names
}

/** A fresh ES-module project in `dir` with the given package.json dependencies installed. */
async function project (dir: string, specs: string[]): Promise<void> {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'fresh-project', private: true, type: 'module' }, null, 2))
  await run('npm', [...INSTALL, ...specs], dir)
}

/**
 * Every subpath's types are there: each line below is an error only while they are (an `any`
 * from a lost declaration would leave the directive unused, TS2578). Never run.
 */
const TYPED = `import { GatewayClient } from '@computer-gateway/agent/client'
import { GatewayComputer } from '@computer-gateway/agent/openai-agents'
import { GatewayComputerToolset } from '@computer-gateway/agent/anthropic'
import { anthropicComputer, openaiComputer } from '@computer-gateway/agent/ai-sdk'
import { GatewayOperator, actionText } from '@computer-gateway/agent/ui-tars'
import { FleetClient } from '@computer-gateway/agent/fleet'

export function typed () {
  // @ts-expect-error baseUrl is a string or a URL
  new GatewayClient({ baseUrl: 1 })
  // @ts-expect-error baseUrl is a string or a URL
  void GatewayComputer.connect({ baseUrl: 1 })
  // @ts-expect-error baseUrl is a string or a URL
  new GatewayComputerToolset({ baseUrl: 1 })
  // @ts-expect-error baseUrl is a string or a URL
  anthropicComputer({ baseUrl: 1 })
  // @ts-expect-error baseUrl is a string or a URL
  openaiComputer({ baseUrl: 1 })
  // @ts-expect-error baseUrl is a string or a URL
  new GatewayOperator({ baseUrl: 1 })
  // @ts-expect-error a parsed action, not a number
  actionText(1)
  // @ts-expect-error a screen is WIDTHxHEIGHT text
  void new FleetClient({ baseUrl: 'http://127.0.0.1:8100' }).create({ screen: 1280 })
}
`

t.setTimeout(600_000)
const work = await mkdtemp(join(tmpdir(), 'cg-packed-'))
t.teardown(() => rm(work, { recursive: true, force: true }))
// A timeout ends the process without waiting for an asynchronous teardown.
process.once('exit', () => rmSync(work, { recursive: true, force: true }))

t.test('@computer-gateway/agent packed, installed with the frameworks into a fresh project', { timeout: 420_000 }, async (t) => {
  // The package as its build makes it, in a copy: package.json, README.md and a fresh dist/.
  const copy = join(work, 'agent')
  await mkdir(copy)
  for (const file of ['package.json', 'README.md']) await cp(join(AGENT, file), join(copy, file))
  await run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(AGENT, 'tsconfig.build.json'), '--outDir', join(copy, 'dist')], AGENT)
  const tarball = await pack(copy, work)

  const app = join(work, 'app')
  const versions = await Promise.all([...FRAMEWORKS, ...TOOLING].map(async (name) => `${name}@${await lockedVersion(name)}`))
  await project(app, [tarball, ...versions])
  const names = await installed(join(app, 'node_modules'))

  t.test('(c) nothing of the server is installed', async (t) => {
    t.ok(names.has('@computer-gateway/agent') && names.has('@ui-tars/sdk'), 'the tree was read')
    for (const name of SERVER_ONLY) t.notOk(names.has(name), `no ${name}`)
  })

  // The README's ts blocks and examples/, as files of the user's project.
  const readme = await readFile(join(AGENT, 'README.md'), 'utf8')
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
  const examples = (await readdir(join(AGENT, 'examples'))).filter((file) => file.endsWith('.ts'))
  t.ok(blocks.length >= SUBPATHS.length && examples.length >= SUBPATHS.length, `${blocks.length} README blocks, ${examples.length} examples`)
  await mkdir(join(app, 'src'))
  for (const [index, block] of blocks.entries()) await writeFile(join(app, 'src', `readme-${index + 1}.ts`), block)
  for (const file of examples) await cp(join(AGENT, 'examples', file), join(app, 'src', `example-${file}`))
  await writeFile(join(app, 'src', 'typed.ts'), TYPED)
  await writeFile(join(app, 'tsconfig.json'), JSON.stringify({
    // skipLibCheck as `tsc --init` sets it: @ai-sdk/provider's declarations need @types/json-schema,
    // which it does not declare. Ours are checked through TYPED and the examples.
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: ['node'], outDir: 'out', rootDir: 'src' },
    include: ['src'],
  }, null, 2))

  t.test('(b) the project\'s own tsc type-checks every example against the packed types', async (t) => {
    // Compiled to out/ as well: (a) runs what it emits.
    const output = await run(join(app, 'node_modules/.bin/tsc'), ['-p', app], app).catch((error: Error) => error.message)
    t.equal(output, '', 'tsc reports nothing')
    t.equal((await readdir(join(app, 'out'))).length, blocks.length + examples.length + 1, 'and emitted every file')
  })

  t.test('(a) the project\'s Node imports every subpath and every example, with the sources\' names', async (t) => {
    for (const name of SUBPATHS) {
      const source = Object.keys(await import(`../src/${name}/index.ts`)).sort()
      const script = `console.log(JSON.stringify(Object.keys(await import('@computer-gateway/agent/${name}')).sort()))`
      const packed = JSON.parse(await run(process.execPath, ['--input-type=module', '-e', script], app)) as string[]
      t.ok(source.length > 0, `${name} exports ${source.join(', ')}`)
      t.strictSame(packed, source, `@computer-gateway/agent/${name} exports what src/${name} does`)
    }
    // Each example module loads: its framework, @ui-tars/sdk's GUIAgent (and the uuid it needs) included.
    const files = (await readdir(join(app, 'out'))).filter((file) => file !== 'typed.js').map((file) => `./out/${file}`)
    t.equal(files.length, blocks.length + examples.length)
    const script = `for (const file of ${JSON.stringify(files)}) { const m = await import(file); if (typeof m.example !== 'function') throw new Error(file + ': no example') }; console.log('loaded')`
    t.equal((await run(process.execPath, ['--input-type=module', '-e', script], app)).trim(), 'loaded')
  })
})

t.test('computer-gateway packed from the root, installed into a fresh project: npx computer-gateway --help', { timeout: 420_000 }, async (t) => {
  const server = join(ROOT, 'dist/src/runtime/server.js')
  t.ok(existsSync(server), 'the server is built (npm run build)')
  if (!existsSync(server)) return
  const files = (JSON.parse(await run('npm', ['pack', '--dry-run', '--json'], ROOT)) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path)
  t.ok(files.includes('bin/computer-gateway.js') && files.includes('dist/src/runtime/server.js') && files.includes('dist/drivers/x11/jwmrc'), 'the bin, the server and its files')
  t.strictSame(files.filter((file) => /^(test|packages|scripts|bench|stress|src|docs)\//.test(file) || file.endsWith('.ts') && !file.endsWith('.d.ts')), [], 'no sources, tests or the agent package')

  const tarball = await pack(ROOT, work)
  const app = join(work, 'server')
  await project(app, [tarball])
  const help = await run('npx', ['--no-install', 'computer-gateway', '--help'], app, 60_000)
  t.match(help, /--token/, 'the bin prints its flags')
  t.match(help, /API_TOKEN/)
})
