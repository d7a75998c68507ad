/**
 * --human-webhook: when an agent asks for a person, their URL gets a POST of
 * `{desktop, message, since}`. Fire and forget within a deadline: the action never waits on it.
 * Nothing of the server's token goes with it, and a failure is logged without the message.
 */
import type { Logger } from 'pino'
import type { ControlEvent } from './lease.ts'

/** How long one POST may take before it is abandoned. */
export const WEBHOOK_TIMEOUT_MS = 5000

export function humanWebhook (url: string, options: { desktop: string, log: Logger, timeoutMs?: number }): (event: ControlEvent) => void {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS
  const target = new URL(url)
  // Where it goes, without credentials a URL may carry.
  const where = `${target.origin}${target.pathname}`
  return (event) => {
    if (event.type !== 'request') return
    const body = JSON.stringify({ desktop: options.desktop, message: event.request.message, since: event.request.since })
    fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    }).then(async (response) => {
      await response.body?.cancel()
      if (!response.ok) options.log.warn({ url: where, status: response.status }, 'the human webhook answered an error')
    }, (error: unknown) => {
      options.log.warn({ url: where, error: (error as Error).name, reason: (error as Error).message }, 'the human webhook could not be reached')
    })
  }
}
