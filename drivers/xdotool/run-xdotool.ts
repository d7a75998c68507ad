/**
 * One xdotool process per call, on a given display, ended by PID when it overruns its time or
 * its driver closes. A process that fails is a rejected promise carrying its stderr, never an
 * exception in the caller's process.
 */
import { execFile, type ChildProcess } from 'node:child_process'

export class XdotoolFailed extends Error {
  constructor (message: string, readonly timedOut: boolean) {
    super(message)
  }
}

export interface XdotoolRunner {
  (args: string[], timeoutMs: number): Promise<{ stdout: string, stderr: string }>
  /** Kills every process still running (SIGKILL, by PID) and waits for their exits. */
  killAll: () => Promise<void>
}

export function xdotoolRunner (display: string): XdotoolRunner {
  const running = new Set<ChildProcess>()
  const run = (args: string[], timeoutMs: number) => new Promise<{ stdout: string, stderr: string }>((resolve, reject) => {
    const child = execFile('xdotool', args, {
      env: { ...process.env, DISPLAY: display },
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: 1024 * 1024,
    }, (error, stdout, stderr) => {
      running.delete(child)
      if (!error) { resolve({ stdout, stderr }); return }
      const timedOut = error.killed === true && error.signal === 'SIGKILL'
      const why = timedOut ? `did not finish within ${timeoutMs} ms` : stderr.trim() || error.message
      reject(new XdotoolFailed(`xdotool ${args.join(' ')}: ${why}`, timedOut))
    })
    running.add(child)
  })
  return Object.assign(run, {
    killAll: async () => {
      await Promise.all([...running].map((child) => new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) { resolve(undefined); return }
        child.once('exit', resolve)
        child.kill('SIGKILL')
      })))
    },
  })
}
