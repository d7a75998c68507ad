/**
 * Runs tasks through dialects on one gateway with the full desktop: each task starts from a
 * desktop with no application open (those a task opened are ended by PID afterwards, as
 * OSWorld resets its machine), in a folder of its own under the home.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { serverProcesses, type FullServer } from '../test/helpers/full-desktop.ts'
import { Agent } from './agent/agent.ts'
import type { Dialect } from './agent/dialects.ts'
import type { Task, TaskContext } from './task.ts'

export interface Outcome { task: string, dialect: string, passed: boolean, seconds: number, steps: number, reason?: string }

/** The desktop's applications (not its session: panel, desktop, window manager stay). */
const APPLICATION = /^(\S*\/)?(firefox-esr|xfce4-terminal|mousepad|thunar|Thunar|atril|galculator|soffice\.bin|oosplash)(\s|$)/

async function endApplications (server: FullServer) {
  const pids = [...serverProcesses(server.server.pid!)].filter(([, command]) => APPLICATION.test(command)).map(([pid]) => pid)
  for (const pid of pids) { try { process.kill(pid, 'SIGTERM') } catch { /* gone */ } }
  const deadline = Date.now() + 5000
  const alive = () => pids.filter((pid) => { try { process.kill(pid, 0); return true } catch { return false } })
  while (alive().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  for (const pid of alive()) { try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } }
  // Mousepad keeps what an ended session had open and asks, at its next start, whether to
  // restore it: the next task starts from a clean editor, as from a fresh machine.
  rmSync(join(server.home, '.local', 'share', 'Mousepad'), { recursive: true, force: true })
}

/** The screen and the tree at a failure, for the person reading the failure (TASKS_ARTIFACTS=DIR). */
async function keepScreenshot (server: FullServer, path: string) {
  const { status, body } = await server.act({ action: 'take_screenshot' }).catch(() => ({ status: 0, body: {} as Record<string, unknown> }))
  if (status === 200) {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, Buffer.from(body.base64_image as string, 'base64'))
  }
  const tree = await fetch(`${server.url}/accessibility?scope=full&format=compact`).then(async (response) => response.text()).catch(() => '')
  writeFileSync(path.replace(/\.png$/, '.tree.txt'), tree)
}

/** A task's context: its folder `~/Documents/<name>` under `home`; `cleanups` collects what to end after it. */
export function taskContext (url: string, home: string, name: string, cleanups: Array<() => unknown>, launch: TaskContext['launch']): TaskContext {
  return { url, home, dir: join(home, 'Documents', name), dirInDesktop: `~/Documents/${name}`, cleanup: (fn) => { cleanups.push(fn) }, launch }
}

/** Setup, the agent's run and the check: why the task failed, undefined when it passed. */
export async function attempt (task: Task, agent: Agent, ctx: TaskContext): Promise<string | undefined> {
  try {
    const state = await task.setup(ctx)
    await task.run(agent, ctx, state)
    return await task.check(ctx, state)
  } catch (error) {
    return (error as Error).message
  }
}

export async function runTask (server: FullServer, dialect: Dialect, task: Task): Promise<Outcome> {
  const name = `${task.name}-${dialect.name}`
  const dir = join(server.home, 'Documents', name)
  mkdirSync(dir, { recursive: true })
  const cleanups: Array<() => unknown> = []
  const ctx = taskContext(server.url, server.home, name, cleanups, async (app, target) => {
    const { status, body } = await server.act({ action: 'launch_app', app, ...(target === undefined ? {} : { target }) })
    if (status !== 200) throw new Error(`launch_app ${app}: ${status} ${JSON.stringify(body)}`)
  })
  const agent = new Agent(server.url, dialect)
  const started = performance.now()
  let reason: string | undefined
  try {
    reason = await attempt(task, agent, ctx)
  } finally {
    if (reason !== undefined && process.env.TASKS_ARTIFACTS) await keepScreenshot(server, join(process.env.TASKS_ARTIFACTS, `${name}.png`))
    await endApplications(server)
    for (const fn of cleanups.reverse()) await fn()
  }
  return { task: task.name, dialect: dialect.name, passed: reason === undefined, seconds: (performance.now() - started) / 1000, steps: agent.steps, ...(reason === undefined ? {} : { reason }) }
}

/** The N/N per dialect and the time of each task in each dialect, as a text table. */
export function table (outcomes: Outcome[], dialects: readonly Dialect[]): string {
  const tasks = [...new Set(outcomes.map((outcome) => outcome.task))]
  const width = Math.max(4, ...tasks.map((task) => task.length))
  const cell = (outcome?: Outcome) => (outcome === undefined ? '—' : `${outcome.passed ? 'pass' : 'FAIL'} ${outcome.seconds.toFixed(1).padStart(5)} s`).padEnd(14)
  const lines = [`${'task'.padEnd(width)}  ${dialects.map((dialect) => dialect.name.padEnd(14)).join('')}`]
  for (const task of tasks) lines.push(`${task.padEnd(width)}  ${dialects.map((dialect) => cell(outcomes.find((outcome) => outcome.task === task && outcome.dialect === dialect.name))).join('')}`)
  lines.push(`${'passed'.padEnd(width)}  ${dialects.map((dialect) => {
    const mine = outcomes.filter((outcome) => outcome.dialect === dialect.name)
    return `${mine.filter((outcome) => outcome.passed).length}/${mine.length}`.padEnd(14)
  }).join('')}`)
  return lines.join('\n')
}
