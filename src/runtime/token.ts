/**
 * Where the API token comes from. A command line is every local user's to read (`ps -o args`,
 * /proc/PID/cmdline), so the safe forms are a file (--token-file, API_TOKEN_FILE), the
 * environment (API_TOKEN; /proc/PID/environ is the owner's alone) or stdin (`--token -`).
 * `--token VALUE` still works, with a warning; the server then overwrites the value in its own
 * command line (hideTokenInTitle), which narrows the exposure to its first moments. Once read,
 * the token leaves the process's environment (forgetTokenEnv): every child the server starts
 * (Xvfb, the session, launched applications, ffmpeg, xclip, workers) inherits that environment.
 */
import { readFileSync, statSync } from 'node:fs'
import { InvalidConfig } from '../errors/errors.ts'

export type TokenSource = 'argument' | 'stdin' | 'file' | 'environment'

export interface TokenInput {
  /** --token's value ('-': read stdin). */
  flag?: string | undefined
  /** --token-file's value. */
  fileFlag?: string | undefined
  env: NodeJS.ProcessEnv
}

export interface TokenContext {
  /** stdin carries the MCP protocol (`computer-gateway mcp`): `--token -` cannot read it. */
  stdinIsProtocol?: boolean
  /** All of stdin, as text (tests give their own). */
  readStdin?: () => string
}

/** The warning `--token VALUE` earns; it never holds the value. */
export const TOKEN_IN_ARGV_WARNING = '--token VALUE puts the token on the command line, where every local user can read it (ps, /proc/PID/cmdline): ' +
  'use --token-file PATH, API_TOKEN, or --token - (reads stdin) instead'

export function readToken ({ flag, fileFlag, env }: TokenInput, context: TokenContext = {}): { token?: string, source?: TokenSource, file?: string } {
  if (flag !== undefined && fileFlag !== undefined) throw new InvalidConfig('--token and --token-file both given: give the token one way')
  if (flag === '-') {
    if (context.stdinIsProtocol) throw new InvalidConfig('--token - cannot read the token from stdin under `mcp`, where stdin carries the protocol: use --token-file PATH or API_TOKEN')
    const text = (context.readStdin ?? (() => readFileSync(0, 'utf8')))().trim()
    if (!text) throw new InvalidConfig('--token -: stdin held no token (pipe it in, e.g. computer-gateway --token - < token-file)')
    return { token: text, source: 'stdin' }
  }
  if (flag !== undefined) return flag ? { token: flag, source: 'argument' } : {}
  const file = fileFlag ?? (env.API_TOKEN_FILE || undefined)
  if (file !== undefined) {
    const name = fileFlag !== undefined ? '--token-file' : 'API_TOKEN_FILE'
    if (fileFlag === undefined && env.API_TOKEN) throw new InvalidConfig('API_TOKEN and API_TOKEN_FILE both set: give the token one way')
    return { token: tokenFile(name, file), source: 'file', file }
  }
  return env.API_TOKEN ? { token: env.API_TOKEN, source: 'environment' } : {}
}

/** The token in `path`, trimmed (a trailing newline is not part of it); refused when any user may read the file. */
function tokenFile (name: string, path: string): string {
  let text: string
  try {
    // Followed if a link: a Kubernetes or Docker secret is one.
    const stat = statSync(path)
    if (!stat.isFile()) throw new InvalidConfig(`${name} ${path} is not a file`)
    if ((stat.mode & 0o004) !== 0) {
      throw new InvalidConfig(`${name} ${path} is readable by every user (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}), so the token in it is not secret: chmod 600 ${path}`)
    }
    text = readFileSync(path, 'utf8').trim()
  } catch (error) {
    if (error instanceof InvalidConfig) throw error
    throw new InvalidConfig(`${name} ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  if (!text) throw new InvalidConfig(`${name} ${path} is empty: write the token into it (e.g. openssl rand -hex 32 > ${path})`)
  return text
}

/** API_TOKEN and API_TOKEN_FILE removed from `env` (this process's): no child inherits them. */
export function forgetTokenEnv (env: NodeJS.ProcessEnv = process.env): void {
  delete env.API_TOKEN
  delete env.API_TOKEN_FILE
}

/**
 * This process's command line with `token` overwritten (Linux rewrites the argv memory that
 * /proc/PID/cmdline reads, within its original length). What ps shows from then on is
 * `… --token *** …`.
 */
export function hideTokenInTitle (token: string): void {
  const words = [process.argv[0]!, ...process.execArgv, ...process.argv.slice(1)].map((word) => word === token ? '***' : word.startsWith('--token=') ? '--token=***' : word)
  process.title = words.join(' ')
}
