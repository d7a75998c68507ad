/**
 * A quiet machine for published numbers: a final (not --quick, not --smoke) run refuses to
 * start while the 1-minute load average is above a bound, so the tables in bench/README.md
 * come from a machine doing nothing else. The bound is per core (a busy core per core is the
 * point where other work takes turns with ours), `BENCH_MAX_LOAD` overrides it.
 */
import { availableParallelism } from 'node:os'

/** Default bound: a quarter of a busy process per core. */
export const LOAD_PER_CORE = 0.25

export interface QuietVerdict { quiet: boolean, load1: number, bound: number, message: string }

/** Reads /proc/loadavg's text against `bound`: whether a final run may go on, and a line saying so. */
export function quietVerdict (loadavg: string, bound: number): QuietVerdict {
  const field = /^\s*(\d+(?:\.\d+)?)\s/.exec(`${loadavg} `)?.[1]
  if (field === undefined) throw new Error(`cannot read the load average from ${JSON.stringify(loadavg.slice(0, 60))}`)
  const load1 = Number(field)
  const quiet = load1 <= bound
  const message = quiet
    ? `quiet machine: 1-minute load average ${load1.toFixed(2)} (bound ${bound.toFixed(2)})`
    : `not a quiet machine: 1-minute load average ${load1.toFixed(2)} is above ${bound.toFixed(2)}; ` +
      'final numbers are not measured here (run with --quick for figures labelled as such, or wait, or set BENCH_MAX_LOAD)'
  return { quiet, load1, bound, message }
}

/** The bound for this machine: BENCH_MAX_LOAD when set (a number ≥ 0), else LOAD_PER_CORE per core. */
export function loadBound (env: NodeJS.ProcessEnv = process.env, cores = availableParallelism()): number {
  const set = env.BENCH_MAX_LOAD
  if (set === undefined || set === '') return LOAD_PER_CORE * cores
  const bound = Number(set)
  if (!Number.isFinite(bound) || bound < 0) throw new Error(`BENCH_MAX_LOAD must be a number of runnable processes ≥ 0, not ${JSON.stringify(set)}`)
  return bound
}

/**
 * The gate a bench's entry point passes first: a final run on a machine that is not quiet
 * prints the load it saw and exits with status 3 (nothing measured); a BENCH_MAX_LOAD that is
 * no number exits with status 2, saying so; a quick or smoke run prints the load beside its
 * figures and goes on.
 */
export async function requireQuiet (final: boolean): Promise<QuietVerdict> {
  const { readFile } = await import('node:fs/promises')
  let verdict: QuietVerdict
  try {
    verdict = quietVerdict(await readFile('/proc/loadavg', 'utf8'), loadBound())
  } catch (error) {
    // A bound set wrong is the user's to fix: said in a line, not a stack.
    console.error((error as Error).message)
    process.exit(2)
  }
  if (final && !verdict.quiet) {
    console.error(verdict.message)
    process.exit(3)
  }
  console.log(final ? verdict.message : `${verdict.message.split(';')[0]} (a quick run: its figures are not final)`)
  return verdict
}
