/**
 * A persistent bash, as Anthropic's bash tool keeps one: its working directory, variables and
 * background jobs last from one command to the next. Each command is sent base64-encoded and
 * run with eval (a syntax error is the command's, never the framing's), stdin from /dev/null,
 * then a line with a fresh nonce and the status marks its end on stdout and stderr. Another
 * interpreter kept the same way (python-kernel.ts) is a `SessionDialect`: its argv, how a
 * command is framed, and what the session is called in its answers.
 */
import { randomBytes } from 'node:crypto'
import { Capped, endAll, startCommand, type Started } from './processes.ts'
import type { CommandResult, RunBounds } from './one-shot.ts'
import type { ShellUser } from './user.ts'

/** A session's answer: the command's result, or the session gone (exited, timed out: killed). */
export interface SessionResult extends CommandResult {
  /** Set when the session ended with this command: the next command starts a new one. */
  ended?: string
}

class Stream {
  readonly capped: Capped
  #held = Buffer.alloc(0)
  done = false
  status: number | null = null
  constructor (cap: number, readonly marker: Buffer, readonly onDone: () => void) { this.capped = new Capped(cap) }

  /** Bytes are held back while they could be the marker's start; the marker line ends the command. */
  add (chunk: Buffer): void {
    if (this.done) return
    const data = Buffer.concat([this.#held, chunk])
    const at = data.indexOf(this.marker)
    if (at >= 0) {
      const line = data.subarray(at + this.marker.length)
      const end = line.indexOf(0x0a)
      if (end < 0) { this.#held = data; return }
      this.capped.add(data.subarray(0, at))
      const status = /^ (\d+)/.exec(line.subarray(0, end).toString('latin1'))
      this.status = status ? Number(status[1]) : null
      this.done = true
      this.onDone()
      return
    }
    const keep = Math.min(data.length, this.marker.length + 8)
    this.capped.add(data.subarray(0, data.length - keep))
    this.#held = data.subarray(data.length - keep)
  }

  /** What was held back, once the command ended without its marker (killed, or bash exited). */
  flush (): void {
    if (!this.done) this.capped.add(this.#held)
    this.#held = Buffer.alloc(0)
  }
}

/** What a session runs and how a command reaches it; its end marker is the same for every dialect. */
export interface SessionDialect {
  argv: readonly string[]
  /** The bytes written to its stdin to run `command`, ending with the marker line (`__cg_end_<nonce> <status>`) on stdout and stderr. */
  frame: (command: string, nonce: string) => string
  /** What the session is, in its answers ('bash session'). */
  noun: string
}

export const BASH: SessionDialect = {
  argv: ['/bin/bash', '--noprofile', '--norc'],
  frame: (command, nonce) => {
    const encoded = Buffer.from(command).toString('base64')
    return `__cg_cmd=$(printf %s '${encoded}' | base64 -d); eval "$__cg_cmd" < /dev/null; __cg_s=$?; printf '\\n__cg_end_${nonce} %d\\n' "$__cg_s"; printf '\\n__cg_end_${nonce} %d\\n' "$__cg_s" >&2\n`
  },
  noun: 'bash session',
}

export class BashSession {
  #started: Started | undefined
  #exit: { code: number | null, signal: string | null } | undefined
  #onExit: (() => void) | undefined
  /** When a command last ended (or the session started), and whether one runs now. */
  lastUsed = Date.now()
  busy = false

  constructor (readonly user: ShellUser, readonly env: () => Record<string, string>, readonly bounds: RunBounds, readonly dialect: SessionDialect = BASH) {}

  get running (): boolean { return this.#started !== undefined && this.#exit === undefined }

  async #start (): Promise<Started> {
    const started = await startCommand(this.dialect.argv, this.user, this.env(), this.bounds.maxProcesses)
    this.#exit = undefined
    started.child.once('exit', (code, signal) => {
      if (this.#started !== started) return
      this.#exit = { code, signal }
      this.#onExit?.()
    })
    this.#started = started
    return started
  }

  async run (command: string, timeoutMs: number, signal?: AbortSignal): Promise<SessionResult> {
    this.busy = true
    try {
      return await this.#run(command, timeoutMs, signal)
    } finally {
      this.busy = false
      this.lastUsed = Date.now()
    }
  }

  async #run (command: string, timeoutMs: number, signal?: AbortSignal): Promise<SessionResult> {
    const started = this.running ? this.#started! : await this.#start()
    const nonce = randomBytes(12).toString('hex')
    const marker = Buffer.from(`\n__cg_end_${nonce}`)
    let settle!: () => void
    const finished = new Promise<void>((resolve) => { settle = resolve })
    const check = () => { if (out.done && err.done) settle() }
    const out = new Stream(this.bounds.maxOutputBytes, marker, check)
    const err = new Stream(this.bounds.maxOutputBytes, marker, check)
    const onOut = (chunk: Buffer) => out.add(chunk)
    const onErr = (chunk: Buffer) => err.add(chunk)
    started.child.stdout!.on('data', onOut)
    started.child.stderr!.on('data', onErr)
    this.#onExit = settle
    let timedOut = false
    const timer = setTimeout(() => { timedOut = true; settle() }, timeoutMs)
    const abort = () => settle()
    signal?.addEventListener('abort', abort, { once: true })
    started.child.stdin!.write(this.dialect.frame(command, nonce), () => {})
    try {
      await finished
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', abort)
      started.child.stdout!.off('data', onOut)
      started.child.stderr!.off('data', onErr)
      this.#onExit = undefined
    }
    let ended: string | undefined
    // What was held back while it could have been the end marker's start is the command's.
    out.flush()
    err.flush()
    if (timedOut || signal?.aborted) {
      await this.close()
      const { noun } = this.dialect
      ended = timedOut
        ? `timed out: the command did not return within ${timeoutMs / 1000} s, so the ${noun} and everything it started were killed; the next command starts a new ${noun.split(' ').at(-1)}`
        : `the request was cancelled, so the ${noun} was killed; the next command starts a new ${noun.split(' ').at(-1)}`
    } else if (this.#exit) {
      ended = `${this.dialect.argv[0]!.split('/').at(-1)} exited (${this.#exit.signal ?? `code ${this.#exit.code}`}); the next command starts a new ${this.dialect.noun.split(' ').at(-1)}`
      await endAll(started)
      this.#started = undefined
    }
    return {
      exit_code: out.done ? out.status : (this.#exit?.code ?? null),
      signal: out.done ? null : (this.#exit?.signal ?? (timedOut ? 'SIGKILL' : null)),
      stdout: out.capped.text(),
      stderr: err.capped.text(),
      stdout_bytes: out.capped.total,
      stderr_bytes: err.capped.total,
      truncated: out.capped.truncated || err.capped.truncated,
      timed_out: timedOut,
      ...(ended && { ended }),
    }
  }

  /** Kills the session and everything it started. */
  async close (): Promise<void> {
    const started = this.#started
    this.#started = undefined
    if (started) await endAll(started)
  }
}
