/**
 * `computer-gateway fleet` as a process, without an engine: --help, a bad flag, and an engine
 * that does not answer each end it at once with the right exit code and one line that says why.
 * (With an engine: test/docker/fleet.ts.)
 */
import { execFile, execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import t from 'tap'

const ROOT = new URL('..', import.meta.url).pathname

function run (args: string[], env: Record<string, string> = {}): Promise<{ code: number | null, stdout: string, stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }))
  })
}

function fleet (args: string[], env: Record<string, string> = {}) {
  return run(['--import', 'tsx', 'fleet/main.ts', ...args], env)
}

t.test('--help prints the fleet\'s usage', async (t) => {
  const { code, stdout } = await fleet(['fleet', '--help'])
  t.equal(code, 0)
  t.match(stdout, /^Usage: computer-gateway fleet \[options\]\n/)
  t.match(stdout, /--warm <value>/)
})

t.test('the bin dispatches `fleet` to the compiled fleet', async (t) => {
  if (!existsSync(join(ROOT, 'dist/fleet/main.js'))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
  const { code, stdout } = await run(['bin/computer-gateway.js', 'fleet', '--help'])
  t.equal(code, 0)
  t.match(stdout, /^Usage: computer-gateway fleet \[options\]\n/)
})

t.test('a bad flag: exit 2 and the reason', async (t) => {
  const { code, stderr } = await fleet(['--warm', '3', '--max', '2'])
  t.strictSame([code, stderr], [2, '--warm (3) must not exceed --max (2): the pool counts toward the maximum\n'])
})

t.test('no engine: exit 1, naming the engine and the image', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-fleet-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const socket = join(dir, 'docker.sock')
  const { code, stdout } = await fleet(['--port', '0'], { DOCKER_HOST: `unix://${socket}` })
  t.equal(code, 1)
  const line = JSON.parse(stdout.trim().split('\n').at(-1)!) as { level: number, msg: string }
  t.equal(line.level, 60)
  t.equal(line.msg, `the Docker engine (unix://${socket}) cannot run computer-gateway:0.1.0: connect ENOENT ${socket}`)
})
