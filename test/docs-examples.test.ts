/**
 * Every shell example of README.md and docs/*.md, run: each request the docs print an answer
 * for is sent with curl, as written, to a real server (the server's CLI, on its own Xvfb, with
 * the flags of the block's `npm start -- …` line), and its answer is compared with the printed
 * one (test/helpers/doc-examples.ts says how `…` and per-run values match). A block that sends
 * requests must print every answer or say in `<!-- not run: … -->` why it cannot run here.
 * DOCS_EXAMPLES_ONLY=docs/mcp.md (a comma list) runs only those pages' examples, when editing one.
 */
import { execFile, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
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

interface Server { port: number, token: string, home: string, /** --osworld's port, when the block's server has it. */ guestPort?: number }

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
  // The guest protocol (docs/osworld.md) on an ephemeral port of its own too; its docs say 5000.
  const guest = args.includes('--osworld')
  server = spawnOwned(undefined, process.execPath, ['--import', 'tsx', 'src/runtime/server.ts', '--port', '0', ...(guest ? ['--osworld-port', '0'] : []), ...args],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise((resolve) => server!.once('exit', resolve))
  const lines: string[] = []
  const port = await listeningPort(server, exited, lines)
  const guestLine = () => lines.map((line) => /"component":"osworld".*listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line)).find(Boolean)
  if (guest && !await waitUntil(async () => guestLine() !== undefined, 30_000, 100)) throw new Error('the guest protocol (--osworld) did not listen within 30 s')
  const ready = await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status === 200, 90_000, 250)
  if (!ready) throw new Error(`the server started with "${flags}" was not ready within 90 s`)
  return { port, token, home, ...(guest && { guestPort: Number(guestLine()![1]) }) }
}

/**
 * Runs a block's steps in one bash, in order, after the definitions earlier blocks made; each
 * step's output. Bash leads a process group of its own, ended whatever an example started.
 */
async function runSteps (t: Test, server: Server, definitions: string[], block: ExampleBlock): Promise<string[]> {
  const local = (text: string) => text.replace(/(127\.0\.0\.1|localhost):8000\b/g, `127.0.0.1:${server.port}`)
    .replace(/(127\.0\.0\.1|localhost):5000\b/g, `127.0.0.1:${server.guestPort ?? 5000}`)
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

t.test('the answer matcher: exact JSON, … for anything, per-run values by shape', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['{"a":1,"b":"x"}', '{"a":1,"b":"x"}', true],
    ['{"a":1}', '{"a":2}', false],
    ['{"a":1}', '{"a":1,"b":2}', false],
    ['{"a":1,…}', '{"a":1,"b":2}', true],
    ['{"a":1,"b":…}', '{"a":1,"b":[1]}', true],
    ['{"a":1,"c":2}', '{"a":1}', false],
    ['{"s":"iVBORw0KGgo…"}', '{"s":"iVBORw0KGgoAAAA"}', true],
    ['{"s":"iVBORw0KGgo…"}', '{"s":"/9j/4AAQ"}', false],
    ['[1,…]', '[1,2,3]', true],
    ['[…,3]', '[1,2,3]', true],
    ['[1,…16 tools]', '[1,2]', true],
    ['[1,…]', '[2,1]', false],
    ['[1,2]', '[1,2,3]', false],
    ['{"pid":11046}', '{"pid":7}', true],
    ['{"pid":11046}', '{"pid":"7"}', false],
    ['{"ms":113.8}', '{"ms":2.5}', true],
    ['{"m":"window 0xe0000c \\"notes\\" (pid 21627)"}', '{"m":"window 0x1a0000c \\"notes\\" (pid 5)"}', true],
    ['{"m":"window 0xe0000c \\"notes\\""}', '{"m":"window 0xe0000c \\"logs\\""}', false],
    ['{"t":"2026-11-28T13:51:29.966Z"}', '{"t":"2027-01-02T03:04:05.006Z"}', true],
    ['{"t":"2026-11-28T13:51:29.966Z"}', '{"t":"yesterday"}', false],
    ['{"display":":99"}', '{"display":":104"}', true],
    ['{"other":":99"}', '{"other":":104"}', false],
    ['{"a":1}', 'not json', false],
  ]
  for (const [printed, actual, matches] of cases) {
    t.equal(answerMismatch([printed], actual) === undefined, matches, `${printed} ${matches ? 'fits' : 'does not fit'} ${actual}`)
  }
  t.equal(answerMismatch(['a', '…', 'c'], 'a\nb\nb\nc'), undefined, 'a text answer: … stands for lines')
  t.equal(answerMismatch(['a', 'x…z'], 'a\nxyz'), undefined, 'a text answer: … inside a line')
  t.not(answerMismatch(['a', '…', 'c'], 'a\nb'), undefined, 'a text answer missing its last line')
})

t.test('the blocks of a page: requests, answers, the server line, the not-run mark', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-blocks-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'page.md')
  writeFileSync(file, [
    'Text.', '', '```bash', 'API_TOKEN=… npm start -- --files', 'S=http://127.0.0.1:8000', 'post /computer \'{}\'', '# {"a":1,', '#   "b":2}', 'curl -s "$S/health"', '# {…}', '```', '',
    '<!-- not run: needs a model key -->', '```bash', 'curl -s https://api.example', '```', '',
    '```sh', 'post /computer \'{}\'', '```', '',
    '```bash', 'npm run setup', '```', '',
  ].join('\n'))
  const blocks = exampleBlocks(file)
  t.equal(blocks.length, 3, 'the blocks that send requests; the one without is no example')
  t.equal(blocks[0]!.serverFlags, '--files')
  t.strictSame(blocks[0]!.definitions, ['S=http://127.0.0.1:8000'])
  t.strictSame(blocks[0]!.steps.map((step) => [step.command, step.answer, step.line]), [
    ['S=http://127.0.0.1:8000\npost /computer \'{}\'', ['{"a":1,', '  "b":2}'], 5],
    ['curl -s "$S/health"', ['{…}'], 9],
  ])
  t.equal(blocks[0]!.unanswered, '')
  t.equal(blocks[1]!.notRun, 'needs a model key')
  t.equal(blocks[2]!.unanswered, "post /computer '{}'", 'a request without its answer is reported')
})

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)]
const only = process.env.DOCS_EXAMPLES_ONLY?.split(',')

for (const page of pages.filter((name) => !only || only.includes(name))) {
  const blocks = exampleBlocks(join(ROOT, page))
  if (blocks.length === 0) continue
  t.test(page, async (t) => {
    // One server per distinct `npm start` line of the page (none: plain `npm start`), as a reader
    // going down the page would have it: ended with the page.
    const servers = new Map<string, Promise<Server>>()
    const server = (flags: string) => servers.get(flags) ?? servers.set(flags, startServer(t, flags)).get(flags)!
    const definitions: string[] = []
    for (const block of blocks) {
      await t.test(`${page}:${block.line}`, async (t) => {
        if (block.notRun !== undefined) {
          t.match(block.notRun, /\w{3}/, `not run, and says why: ${block.notRun}`)
          return
        }
        t.equal(block.unanswered, '', 'every request in the block has its answer printed (or the block says why it is not run)')
        t.ok(block.steps.length > 0, 'the block prints answers')
        const outputs = await runSteps(t, await server(block.serverFlags ?? ''), definitions, block)
        for (const [index, step] of block.steps.entries()) {
          t.equal(answerMismatch(step.answer, outputs[index] ?? ''), undefined, `${page}:${step.line} ${step.command.split('\n').at(-1)!.slice(0, 100)}`)
        }
      })
      definitions.push(...block.definitions)
    }
  })
}
