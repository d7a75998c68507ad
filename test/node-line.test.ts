/**
 * One supported Node for every command, whatever Node the machine has. A machine whose own Node
 * is older than package.json's engines (Node 20, from the npm registry here, first on PATH):
 * `npm start` still serves on the project's own Node (npm puts node_modules/.bin first), and a
 * screenshot of real, colourful content answers 200 with a PNG (on Node 20 it was a 500:
 * `memory.transfer is not a function`); the bin run by that old Node itself refuses at once, in
 * one line that names the fix, and starts nothing.
 */
import t from 'tap'
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import sharp from 'sharp'
import { until } from './helpers/desktop.ts'
import { descendants, running } from './helpers/process-table.ts'
import { requireProgram } from './helpers/processes.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/computer-gateway.js')
const run = promisify(execFile)
requireProgram('display', 'ImageMagick shows the colourful picture')

const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node

// Node 20 (end of life, and what many machines still have) from the npm registry, as a user's
// machine has it: in a folder of its own, put first on PATH below.
const old = mkdtempSync(join(tmpdir(), 'cg-old-node-'))
t.teardown(() => rmSync(old, { recursive: true, force: true }))
await run('npm', ['install', '--prefix', old, '--no-save', '--no-audit', '--no-fund', '--prefer-offline', 'node@20'], { timeout: 240_000 })
const oldBin = join(old, 'node_modules/.bin')
/** The environment of a user's shell on that machine: the old Node first, no project's node_modules/.bin, nothing of tap's. */
const env: NodeJS.ProcessEnv = { ...process.env, PATH: [oldBin, ...(process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules'))].join(delimiter) }
for (const name of ['NODE_OPTIONS', 'NODE_V8_COVERAGE', 'DISPLAY', 'XAUTHORITY', 'API_TOKEN', 'PORT', 'HOST', 'ALLOW_APPS']) delete env[name]
const { stdout: oldVersion } = await run('node', ['--version'], { env })
t.match(oldVersion.trim(), /^v20\./, `the machine's Node, first on PATH, is ${oldVersion.trim()}, older than engines ${engines}`)

t.test('the bin on an old Node refuses in one line that names the fix, and starts nothing', async (t) => {
  const refused = await new Promise<{ code: number | null, stdout: string, stderr: string }>((resolve) => {
    execFile(BIN, ['--port', '0'], { cwd: ROOT, env, timeout: 20_000 }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }))
  })
  t.equal(refused.code, 1, 'exit 1')
  t.equal(refused.stdout, '', 'nothing on stdout: it never listened')
  t.equal(refused.stderr, `computer-gateway needs Node ${engines} (a maintained LTS line), not ${oldVersion.trim()} (${join(old, 'node_modules/node/bin/node')}): in a clone, run \`npm run setup\` once and start it with \`npm start\`, which runs the project's own Node 24; elsewhere, install Node 24 LTS and put it first on PATH\n`, 'one line: what is wrong and how to fix it')
})

t.test('npm start on that machine serves on the project\'s Node: a screenshot of colourful content is a 200 PNG', async (t) => {
  const runtime = mkdtempSync(join(tmpdir(), 'cg-runtime-'))
  const seen = new Set<number>()
  t.teardown(() => {
    for (const pid of seen) if (running(pid)) { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
    rmSync(runtime, { recursive: true, force: true })
  })
  const startEnv = { ...env, SCREEN: '1024x768x24', LOG_LEVEL: 'info', COMPUTER_GATEWAY_RUNTIME_DIR: runtime }
  const npm = spawn('npm', ['start', '--', '--port', '0'], { cwd: ROOT, env: startEnv, stdio: ['ignore', 'pipe', 'inherit'] })
  seen.add(npm.pid!)
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: npm.stdout! }).on('line', (line) => {
      const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
      if (match) resolve(match[1]!)
    })
    void exited.then(() => reject(new Error('npm start exited at start')))
  })
  const processes = descendants(npm.pid!)
  for (const pid of processes.keys()) seen.add(pid)
  const server = [...processes].find(([, command]) => command.includes('bin/computer-gateway.js'))
  t.ok(server, 'the server runs')
  const exe = readlinkSync(`/proc/${server![0]}/exe`)
  const { stdout: serverVersion } = await run(exe, ['--version'])
  t.equal(serverVersion.trim(), `v${process.versions.node}`, `on the project's own Node (${exe}), the line this suite runs on`)
  t.equal(exe, join(ROOT, 'node_modules/node/bin/node'), 'node_modules/.bin/node, from the npm registry')

  // Colourful, photograph-like content on the server's desktop, put there as a user does.
  const shown = await run(exe, [BIN, 'exec', '--detach', '--', 'display', '-title', 'plasma', '-size', '640x480', 'plasma:fractal'], { env: startEnv, cwd: ROOT })
  seen.add(Number(shown.stdout.trim()))
  const act = async (payload: object) => {
    const response = await fetch(`${url}/computer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) })
    return { status: response.status, body: await response.json() as { windows?: Array<{ title: string }>, base64_image?: string | null } }
  }
  t.ok(await until(async () => ((await act({ action: 'list_windows' })).body.windows ?? []).some((w) => w.title.includes('plasma')), 15_000), 'the picture is on the desktop')
  const shot = await act({ action: 'take_screenshot' })
  t.equal(shot.status, 200, `take_screenshot answered 200 (${JSON.stringify(shot.body).slice(0, 200)})`)
  const png = Buffer.from(shot.body.base64_image ?? '', 'base64')
  t.strictSame([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG')
  const { channels } = await sharp(png).stats()
  t.ok(channels.slice(0, 3).every((channel) => channel.stdev > 20), `of colourful content (stdev per channel ${channels.slice(0, 3).map((c) => c.stdev.toFixed(0)).join(', ')})`)

  npm.kill('SIGTERM')
  await exited
  t.ok(await until(() => [...seen].every((pid) => !running(pid)), 15_000), 'npm start\'s PID ended it all')
})
