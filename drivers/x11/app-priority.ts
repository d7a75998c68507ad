/**
 * The desktop's applications (the session and what launch_app starts) yield the CPU to the
 * server and the X server: on a host of many desktops a busy browser would otherwise hold up
 * the answers of every desktop beside it (a click's answer needs only the server and X). They
 * still get every cycle the two leave. Lowering a priority needs no privilege.
 *
 * Two settings, because Linux has two schedulers' worth of fairness: a process's nice value
 * orders it among the processes of its scheduling group, and with autogroups (a desktop
 * kernel's default; each session, as a detached child is, its own group) the group's own nice
 * value orders it against the others, the server's included. In a container autogroups do not
 * apply and the nice value does it alone.
 */
import { writeFileSync } from 'node:fs'
import { setPriority } from 'node:os'

/** How much lower: 10 of 19, i.e. about a tenth of the CPU weight of the server when both want it. */
export const APP_NICE = 10

/** Lowers `pid`'s priority and that of its autogroup; a process already gone or a kernel without autogroups is no error. */
export function yieldToServer (pid: number): void {
  try {
    setPriority(pid, APP_NICE)
  } catch { /* exited already */ }
  yieldingGroup(pid)
}

/** Lowers the priority of `pid`'s autogroup only (its processes' own nice values are left as they are). */
export function yieldingGroup (pid: number, retried = false): void {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(APP_NICE))
  } catch (error) {
    // Without CAP_SYS_ADMIN the kernel takes one autogroup change per 100 ms and refuses the
    // next with EAGAIN: two applications started together. Once more, a little later.
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN' && !retried) setTimeout(() => yieldingGroup(pid, true), GROUP_CHANGE_MS).unref()
    /* else no autogroups here (CONFIG_SCHED_AUTOGROUP off), or the process is gone */
  }
}

/** Past the kernel's limit of one unprivileged autogroup change per 100 ms. */
const GROUP_CHANGE_MS = 150

/** A shell command that runs `command` with the applications' lower priority, from its start. */
export const yielding = (command: string): string => `nice -n ${APP_NICE} ${command}`
