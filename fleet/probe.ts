/** Whether a desktop's server is ready to act: its GET /health answers 200 with `ready: true`. */
export async function healthReady (url: string, timeoutMs = 2000): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) })
    if (response.status !== 200) {
      await response.body?.cancel()
      return false
    }
    const body = await response.json() as { ready?: unknown }
    return body.ready === true
  } catch {
    // Refused, reset, timed out or not JSON: not ready yet.
    return false
  }
}
