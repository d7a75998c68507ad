/** The p-th percentile of `values` (nearest rank), NaN for none: every bench row's p50/p95/p99. */
export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}
