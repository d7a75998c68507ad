/** The machine's processes read from /proc, to check by PID what a test's server left behind. */
import { readdirSync, readFileSync } from 'node:fs'

/** Processes by PID: parent, state and command. */
export function processes (): Map<number, { ppid: number, state: string, command: string }> {
  const table = new Map<number, { ppid: number, state: string, command: string }>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      const [state, ppid] = stat.slice(close + 2).split(' ')
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
      table.set(Number(entry), { ppid: Number(ppid), state: state!, command })
    } catch { /* gone meanwhile */ }
  }
  return table
}

/** Every process below `root`, by PID, with its command (in `table`, by default all of them now). */
export function descendants (root: number, table = processes()): Map<number, string> {
  const found = new Map<number, string>()
  const visit = (pid: number) => {
    for (const [child, { ppid, command }] of table) {
      if (ppid === pid && !found.has(child)) { found.set(child, command); visit(child) }
    }
  }
  visit(root)
  return found
}

/** Alive, and not a zombie waiting for a parent that no longer reaps it. */
export const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}
