/**
 * `computer-gateway exec [--display :N] [--detach] [--] PROGRAM [ARGS…]`: runs a program on
 * the private desktop of a server this user started, found through instances.ts (no port, no
 * cookie anyone else can read). In the foreground by default, as `env` or `docker exec` do:
 * the program's output on this terminal, its exit status ours, Ctrl-C passed on. --detach
 * starts it in its own session, prints its PID and returns at once.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { constants as os } from 'node:os'
import { instances, InstancesUnreadable, type Instance } from './instances.ts'
import { forgetTokenEnv } from './token.ts'

const USAGE = 'usage: computer-gateway exec [--display :N] [--detach] [--] PROGRAM [ARGS…]\n'

class ExecRefused extends Error {}

interface ExecArgs { display?: string, detach: boolean, argv: string[] }

function parse (args: string[]): ExecArgs {
  const parsed: ExecArgs = { detach: false, argv: [] }
  let i = 0
  for (; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') { i++; break }
    if (arg === '--detach' || arg === '-d') parsed.detach = true
    else if (arg === '--display') {
      parsed.display = args[++i]
      if (!parsed.display) throw new ExecRefused(`--display needs a display, e.g. --display :99\n${USAGE}`)
    } else if (arg.startsWith('--display=')) parsed.display = arg.slice('--display='.length)
    else if (arg === '--help' || arg === '-h') { process.stdout.write(USAGE); process.exit(0) } else if (arg.startsWith('-')) throw new ExecRefused(`unknown option ${arg}\n${USAGE}`)
    else break
  }
  parsed.argv = args.slice(i)
  if (parsed.argv.length === 0) throw new ExecRefused(`no program given\n${USAGE}`)
  return parsed
}

function choose (display: string | undefined): Instance {
  // A refused folder beside a good one (a squatted /tmp one, the server in XDG_RUNTIME_DIR's): said, and not read.
  const running = instances(process.env, (refusal) => process.stderr.write(`computer-gateway exec: warning: ${refusal.message}\n`))
  const uid = process.getuid?.() ?? 0
  if (running.length === 0) throw new ExecRefused(`no running computer-gateway server of this user (uid ${uid}) found: start one (npm start), or run this as the user who started it`)
  if (display) {
    const match = running.find((instance) => instance.display === display)
    if (!match) throw new ExecRefused(`no running server of this user is on display ${display}; running: ${running.map((i) => `${i.display} (pid ${i.pid})`).join(', ')}`)
    return match
  }
  if (running.length > 1) throw new ExecRefused(`${running.length} servers are running: choose one with --display (${running.map((i) => `${i.display} (pid ${i.pid})`).join(', ')})`)
  return running[0]!
}

function main (): void {
  const { display, detach, argv } = parse(process.argv.slice(3))
  const instance = choose(display)
  if (instance.xauthority) {
    try {
      accessSync(instance.xauthority, constants.R_OK)
    } catch {
      throw new ExecRefused(`cannot read the desktop's X cookie (${instance.xauthority}): run this as the user who started the server`)
    }
  }
  const env = { ...process.env, DISPLAY: instance.display, ...(instance.xauthority && { XAUTHORITY: instance.xauthority }) }
  // The program runs on the desktop a model drives: a token in this shell's environment stays here.
  forgetTokenEnv(env)
  const [program, ...args] = argv as [string, ...string[]]
  const child = spawn(program, args, detach ? { env, detached: true, stdio: 'ignore' } : { env, stdio: 'inherit' })
  child.once('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(`computer-gateway exec: cannot start ${program}: ${error.code === 'ENOENT' ? 'not found' : error.message}\n`)
    process.exit(error.code === 'ENOENT' ? 127 : 126)
  })
  if (detach) {
    child.once('spawn', () => {
      process.stdout.write(`${child.pid}\n`)
      child.unref()
    })
    return
  }
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward(signal))
  // A program ended by a signal: 128 + its number, as a shell reports it.
  child.once('exit', (code, signal) => process.exit(code ?? 128 + (signal ? os.signals[signal] : 0)))
}

try {
  main()
} catch (error) {
  if (!(error instanceof ExecRefused || error instanceof InstancesUnreadable)) throw error
  process.stderr.write(`computer-gateway exec: ${error.message}${error.message.endsWith('\n') ? '' : '\n'}`)
  process.exit(error.message.includes('usage:') ? 2 : 1)
}
