/**
 * How the machine's CPU time went over a piece of work, from /proc/stat's first line: busy
 * (all but idle and iowait) and stolen (taken by the VM's host, `steal`), each a share 0–1 of
 * all the cores' time. A run whose CPU figures are compared with another's says both: on a VM
 * the same work costs more while the host takes time from it.
 */
import { readFile } from 'node:fs/promises'

async function read () {
  const fields = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  return { idle: fields[3]! + fields[4]!, steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) }
}

export async function cpuShares<T> (work: () => Promise<T>): Promise<{ result: T, busy: number, steal: number }> {
  const before = await read()
  const result = await work()
  const after = await read()
  const total = after.total - before.total || 1
  return { result, busy: 1 - (after.idle - before.idle) / total, steal: (after.steal - before.steal) / total }
}

/** The machine's CPU counters and load now: what a long run prints at its start and its end. */
export async function machineSnapshot (): Promise<{ at: number, cpu: Awaited<ReturnType<typeof read>>, load: string }> {
  return { at: Date.now(), cpu: await read(), load: (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ') }
}

/** A line for the start (CPU stolen since boot) or the end (stolen since `since`) of a run. */
export function machineLine (now: Awaited<ReturnType<typeof machineSnapshot>>, since?: Awaited<ReturnType<typeof machineSnapshot>>): string {
  const base = since?.cpu ?? { idle: 0, steal: 0, total: 0 }
  const stolen = (now.cpu.steal - base.steal) / ((now.cpu.total - base.total) || 1)
  return `load average (1/5/15 min) ${now.load}; the VM's host stole ${(stolen * 100).toFixed(1)} % of the CPU time ${since ? `over the run (${((now.at - since.at) / 60_000).toFixed(1)} min)` : 'since boot'}`
}
