/**
 * Run by test/shell-unprivileged.test.ts as a user who is not root: the shell of a server that
 * runs as the desktop's user itself. Prints, as JSON, what its commands answered.
 */
import { ShellService } from '../../src/shell/service.ts'
import { shellLimits } from './tools.ts'

const home = process.argv[2]!
const shell = new ShellService({ home, limits: shellLimits({ maxProcesses: 32 }), display: () => undefined })
const id = await shell.runOnce(['id', '-u'], 5000)
const limit = await shell.runOnce(['/bin/bash', '-c', 'ulimit -u'], 5000)
const bomb = await shell.runOnce(['/bin/bash', '-c', 'bomb() { bomb | bomb & }; bomb; sleep 30'], 2000)
const after = await shell.session('default', 'echo $HOME', 5000)
await shell.close()
process.stdout.write(JSON.stringify({ id: id.stdout, limit: Number(limit.stdout), bomb: { timedOut: bomb.timed_out, refused: bomb.stderr.includes('Resource temporarily unavailable') }, after: after.stdout }))
