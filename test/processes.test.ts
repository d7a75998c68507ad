/**
 * What tests start ends with them, however the test file ends: an uncaught exception before
 * any teardown ran, or SIGKILL (tap's last word on a hung file), and a missing program is one
 * line that names it and npm run setup.
 */
import { spawn } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import t from 'tap'
import { requireProgram, spawnOwned } from './helpers/processes.ts'
import { running } from './helpers/process-table.ts'

const OWNER = new URL('./fixtures/processes/owner.ts', import.meta.url).pathname

async function gone (pid: number, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (running(pid) && Date.now() < deadline) await delay(20)
  return !running(pid)
}

/** Runs the owner script; resolves with its child's PID once printed, and the owner itself. */
async function owner (t: { teardown: (fn: () => unknown) => void }, how: string) {
  const child = spawn(process.execPath, ['--import=tsx', OWNER, how], { stdio: ['ignore', 'pipe', 'ignore'] })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const pid = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk) => {
      out += chunk
      if (out.includes('\n')) resolve(Number(out.trim()))
    })
    child.once('exit', () => reject(new Error('the owner exited before starting its child')))
  })
  // The net of last resort, should the assertions below fail.
  t.teardown(() => { if (running(pid)) process.kill(pid, 'SIGKILL') })
  return { child, pid }
}

for (const how of ['throw', 'group']) {
  t.test(`a test file that throws midway (${how}) leaves nothing behind`, async (t) => {
    const { child, pid } = await owner(t, how)
    t.ok(running(pid), 'the program runs')
    await new Promise((resolve) => child.once('exit', resolve))
    t.ok(await gone(pid), `sleep (pid ${pid}) ended with the file`)
  })
}

t.test('a test file killed with SIGKILL leaves nothing behind', async (t) => {
  const { child, pid } = await owner(t, 'hang')
  t.ok(running(pid), 'the program runs')
  child.kill('SIGKILL')
  t.ok(await gone(pid), `sleep (pid ${pid}) ended with the file`)
})

t.test('a missing program is one line naming it and npm run setup, and nothing is spawned', async (t) => {
  t.throws(() => requireProgram('no-such-program-cg'), { message: 'no-such-program-cg is not installed: run npm run setup' })
  let tornDown = 0
  t.throws(() => spawnOwned({ teardown: () => { tornDown++ } }, 'no-such-program-cg', [], { purpose: 'the oracle' }),
    { message: 'no-such-program-cg is not installed (the oracle): run npm run setup' })
  t.equal(tornDown, 0)
})
