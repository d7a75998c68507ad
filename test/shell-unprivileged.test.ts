/**
 * A server that is not root runs the shell's commands as itself (it is then the desktop's
 * user): here a second local user made for the test runs the shell (test/helpers/shell-as-user.ts)
 * under setpriv, and its commands are that user's, bounded in processes by a limit above
 * what the user already runs, within the hard limit it has (root only: useradd, setpriv).
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { desktopHome } from './helpers/tools.ts'

const run = promisify(execFile)
t.equal(process.getuid?.(), 0, 'this test runs as root (useradd, setpriv): run it in the image or as root')

t.test('as the server\'s own user: its uid, its home, a fork bomb bounded', async (t) => {
  const { user, home } = desktopHome(t)
  const script = fileURLToPath(new URL('./helpers/shell-as-user.ts', import.meta.url))
  const { stdout } = await run('setpriv', ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', '--', process.execPath, '--import', 'tsx', script, home], {
    cwd: fileURLToPath(new URL('..', import.meta.url)), env: { PATH: process.env.PATH, HOME: home }, timeout: 60_000,
  })
  const answer = JSON.parse(stdout)
  t.equal(answer.id, `${user.uid}\n`, 'commands run as the server\'s own user')
  t.ok(answer.limit > 32 && answer.limit <= 32 + 64, `RLIMIT_NPROC is what the user runs plus --shell-max-processes (${answer.limit})`)
  t.strictSame(answer.bomb, { timedOut: true, refused: true }, 'a fork bomb meets its limit and its timeout')
  t.equal(answer.after, `${home}\n`, 'the shell works after it')
})
