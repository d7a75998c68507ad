/**
 * The Kubernetes API's refusals as errors a person can read. The client throws an ApiException
 * whose message is the HTTP code, the raw body and every response header; the fleet shows an
 * engine's error in its 503s and logs, so it is made here from the API's own Status (its code,
 * reason and message: `409 AlreadyExists: pods "cg-fleet-…" already exists`), keeping `code` for
 * the backend's decisions (404 gone, 409 conflict).
 */
export class KubeApiError extends Error {
  constructor (readonly code: number, readonly reason: string | undefined, message: string) {
    super(message)
  }
}

interface Status { code?: number, reason?: string, message?: string }

/** An ApiException (code and body) as a KubeApiError; anything else (a refused connection, a bad certificate) with its cause. */
export function readable (error: unknown, what: string): unknown {
  const { code, body, cause } = error as { code?: unknown, body?: unknown, cause?: { message?: unknown } }
  // fetch's own failure (`fetch failed`) says why only in its cause: a refused connection, a certificate.
  if (typeof code !== 'number') return typeof cause?.message === 'string' && error instanceof Error ? new Error(`${error.message}: ${cause.message}`) : error
  let status: Status = {}
  try {
    status = (typeof body === 'string' ? JSON.parse(body) : body ?? {}) as Status
  } catch {}
  const reason = typeof status.reason === 'string' ? status.reason : undefined
  const detail = typeof status.message === 'string' ? status.message : 'no Status in the answer'
  return new KubeApiError(code, reason, `the Kubernetes API refused to ${what}: ${code}${reason ? ` ${reason}` : ''}: ${detail}`)
}

/** Runs one API call, its refusal made readable. */
export async function kube<T> (what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw readable(error, what)
  }
}
