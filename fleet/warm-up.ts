/**
 * A warm desktop's first actions, run by the fleet before it counts as ready in the pool: a
 * desktop's first action pays for what its server prepares on first use (the route's schemas,
 * the driver's first round trip, the first PNG encode), a few hundred ms a client that claims
 * it would otherwise wait. Neither action changes the desktop. A failure is left to the
 * readiness and death checks: a desktop that cannot act is found by them.
 */
const ACTIONS = [{ action: 'get_cursor_position' }, { action: 'take_screenshot' }]

export async function warmUp (url: string, token: string, timeoutMs = 30_000): Promise<void> {
  for (const action of ACTIONS) {
    const response = await fetch(`${url}/computer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(action),
      signal: AbortSignal.timeout(timeoutMs),
    })
    await response.body?.cancel()
  }
}
