/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP date. Returns the wait in ms, or
 * undefined when absent or unreadable (then the caller's own backoff applies).
 */
export function retryAfterMs (header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}
