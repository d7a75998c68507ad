/**
 * A task in the OSWorld manner: the environment is set up (files, a web server, an application
 * opened with launch_app, as OSWorld's task configs do), the agent works through the desktop in
 * its dialect, and a checker reads the outcome from what the application itself produced — a
 * file it wrote, a request it sent — never from the gateway's logs or answers.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Agent } from './agent/agent.ts'

export interface TaskContext {
  /** The gateway's base URL (for setup only; the agent has its own). */
  url: string
  /** The desktop's home directory, as this process sees it. */
  home: string
  /** A directory under the home for this run (`~/Documents/<name>`), created empty. */
  dir: string
  /** `dir` as the agent writes it in the desktop (`~/Documents/<name>`). */
  dirInDesktop: string
  /** Registers what to end after the task (a server, a process). */
  cleanup: (fn: () => unknown) => void
  /** Opens an application as the task's starting state (POST /computer launch_app). */
  launch: (app: string, target?: string) => Promise<void>
}

export interface Task {
  name: string
  /** The instruction, as a person would give it. */
  instruction: string
  /** In the fast subset that runs inside npm test. */
  fast: boolean
  setup: (ctx: TaskContext) => Promise<unknown>
  run: (agent: Agent, ctx: TaskContext, state: any) => Promise<void>
  /** Undefined when the outcome is right; else what is wrong. */
  check: (ctx: TaskContext, state: any) => Promise<string | undefined>
}

/** Polls `read` until `check` passes or the time is up; the last reason otherwise. */
export async function settle<T> (read: () => T | Promise<T>, check: (value: T) => string | undefined, timeoutMs = 10_000): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    let reason: string | undefined
    try { reason = check(await read()) } catch (error) { reason = (error as Error).message }
    if (reason === undefined || Date.now() > deadline) return reason
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
}

/** Whole-content comparison, with both sides shown when they differ. */
export const same = (what: string, actual: unknown, expected: unknown) =>
  JSON.stringify(actual) === JSON.stringify(expected) ? undefined : `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`

/** A file the task's application wrote, in the task folder, settles to `expected` (after `tidy`). */
export const fileHolds = (ctx: TaskContext, name: string, expected: string, tidy = (text: string) => text) =>
  settle(() => readFileSync(join(ctx.dir, name), 'utf8'), (text) => same(name, tidy(text), expected))
