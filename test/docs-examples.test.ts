/**
 * Every shell example of README.md and docs/*.md, run: each request the docs print an answer
 * for is sent with curl, as written, to a real server (the server's CLI, on its own Xvfb, with
 * the flags of the block's `npm start -- …` line), and its answer is compared with the printed
 * one (test/helpers/doc-examples.ts says how `…` and per-run values match). A block that sends
 * requests must print every answer or say in `<!-- not run: … -->` why it cannot run here.
 */
import { execFile, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { answerMismatch, exampleBlocks, type ExampleBlock } from './helpers/doc-examples.ts'
import { listeningPort, serverProcesses, waitUntil } from './helpers/full-desktop.ts'
import { spawnOwned, stopOwned } from './helpers/processes.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
const STEP_MARK = '\x1edocs-example-step\x1e'

t.setTimeout(600_000)

interface Server { port: number, token: string, home: string }

/** The shell words of a block's `npm start -- …` flags, as bash reads them (quotes, `$PWD`, `~`). */
async function shellWords (flags: string, home: string): Promise<string[]> {
  if (flags.trim() === '') return []
  const { stdout } = await run('bash', ['-c', `printf '%s\\0' ${flags}`], { cwd: ROOT, env: { PATH: process.env.PATH, HOME: home } })
  return stdout.split('\0').slice(0, -1)
}

/** The server as `API_TOKEN=… npm start -- FLAGS` runs it, on a port of its own, ready; stopped at teardown with its desktop. */
async function startServer (t: Test, flags: string): Promise<Server> {
  const home = mkdtempSync(join(tmpdir(), 'docs-home-'))
  t.teardown(() => rmSync(home, { recursive: true, force: true }))
  const token = randomBytes(16).toString('hex')
  const args = await shellWords(flags, home)
  // Relative to the home rather than to the checkout: where --record keeps its episodes.
  const env: NodeJS.ProcessEnv = { ...process.env, API_TOKEN: token, HOME: home, LOG_LEVEL: 'info', RECORD_DIR: join(home, 'recordings') }
  for (const name of ['DISPLAY', 'XAUTHORITY', 'ALLOW_APPS', 'DESKTOP', 'DESKTOP_HOME', 'AUTOSTART']) delete env[name]
  let server: ChildProcess | undefined
  t.teardown(async () => {
    if (!server) return
    const left = serverProcesses(server.pid!)
    await stopOwned(server, false, 15_000)
    for (const pid of left.keys()) { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
  })
  server = spawnOwned(undefined, process.execPath, ['--import', 'tsx', 'src/runtime/server.ts', '--port', '0', ...args],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise((resolve) => server!.once('exit', resolve))
  const port = await listeningPort(server, exited)
  const ready = await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status === 200, 90_000, 250)
  if (!ready) throw new Error(`the server started with "${flags}" was not ready within 90 s`)
  return { port, token, home }
}

/**
 * Runs a block's steps in one bash, in order, after the definitions earlier blocks made; each
 * step's output. Bash leads a process group of its own, ended whatever an example started.
 */
async function runSteps (t: Test, server: Server, definitions: string[], block: ExampleBlock): Promise<string[]> {
  const local = (text: string) => text.replace(/(127\.0\.0\.1|localhost):8000\b/g, `127.0.0.1:${server.port}`)
  const script = [...definitions, ...block.steps.flatMap((step) => [step.command, `printf '\\n${STEP_MARK}\\n'`])].map(local).join('\n')
  // A directory of its own to work in, as a user's: files an example writes (an upload's source) land there.
  const cwd = mkdtempSync(join(tmpdir(), 'docs-example-'))
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }))
  const bash = spawnOwned(t, 'bash', ['-c', script], {
    group: true,
    cwd,
    env: { PATH: process.env.PATH, HOME: server.home, API_TOKEN: server.token, LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let stdout = ''
  bash.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  const timer = setTimeout(() => { void stopOwned(bash, true) }, 120_000)
  await new Promise((resolve) => bash.once('exit', resolve))
  clearTimeout(timer)
  // Whatever the example left running in its group (by the group's id, which is bash's PID).
  try { process.kill(-bash.pid!, 'SIGKILL') } catch { /* none left */ }
  return stdout.split(`\n${STEP_MARK}\n`).slice(0, block.steps.length).map((output) => output.replace(/\n+$/, ''))
}

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)]
const only = process.env.DOCS_EXAMPLES_ONLY?.split(',')

for (const page of pages.filter((name) => !only || only.includes(name))) {
  const blocks = exampleBlocks(join(ROOT, page))
  if (blocks.length === 0) continue
  t.test(page, async (pageTest) => {
    const t = pageTest
    let shared: Promise<Server> | undefined
    const definitions: string[] = []
    for (const block of blocks) {
      await t.test(`${page}:${block.line}`, async (t) => {
        if (block.notRun !== undefined) {
          t.match(block.notRun, /\w{3}/, `not run, and says why: ${block.notRun}`)
          return
        }
        t.equal(block.unanswered, '', 'every request in the block has its answer printed (or the block says why it is not run)')
        t.ok(block.steps.length > 0, 'the block prints answers')
        const server = block.serverFlags === undefined ? await (shared ??= startServer(pageTest, '')) /* ended with the page */ : await startServer(t, block.serverFlags)
        const outputs = await runSteps(t, server, definitions, block)
        for (const [index, step] of block.steps.entries()) {
          t.equal(answerMismatch(step.answer, outputs[index] ?? ''), undefined, `${page}:${step.line} ${step.command.split('\n').at(-1)!.slice(0, 100)}`)
        }
      })
      definitions.push(...block.definitions)
    }
  })
}
