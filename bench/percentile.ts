/** The p-th percentile of `values` (nearest rank), NaN for none: every bench row's p50/p95/p99. */
export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

export interface Stats { p50: number, p95: number, n: number }

/** A row's p50, p95 and sample count. */
export const stats = (samples: number[]): Stats => ({ p50: percentile(samples, 50), p95: percentile(samples, 95), n: samples.length })

/** Milliseconds as the bench tables print them. */
export const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1))
