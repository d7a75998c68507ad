/**
 * What a refused or failed request throws: the server's status, its stable error code and
 * its message (written for a person), with the whole answer kept for callers that need more
 * (an adapter's native result, a batch's failed_index).
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError'
  /** The HTTP status; 0 when no answer came (timeout, connection refused). */
  readonly status: number
  /** The server's code (ERR_UNKNOWN_KEY, …), or ERR_TIMEOUT / ERR_NETWORK for no answer. */
  readonly code: string
  /** The parsed answer, as the server sent it. */
  readonly body: unknown

  constructor (status: number, code: string, message: string, body?: unknown, options?: ErrorOptions) {
    super(message, options)
    this.status = status
    this.code = code
    this.body = body
  }
}

/** The message a person can act on, from any of our error forms (ErrorBody, an adapter's native error, plain text). */
export function errorFromAnswer (status: number, body: unknown): GatewayError {
  const found = findError(body)
  return new GatewayError(status, found?.code ?? `HTTP_${status}`, found?.message ?? `the gateway answered ${status}`, body)
}

function findError (body: unknown): { code?: string, message: string } | undefined {
  if (typeof body === 'string') return body.trim() ? { message: body.trim() } : undefined
  if (Array.isArray(body)) {
    for (const item of body) {
      const found = findError(item)
      if (found) return found
    }
    return undefined
  }
  if (body === null || typeof body !== 'object') return undefined
  const record = body as Record<string, unknown>
  // ErrorBody: { code, message }; adapters: { error: { code, message } } or { error: "text" }.
  if (typeof record.message === 'string' && typeof record.code === 'string') return { code: record.code, message: record.message }
  if (record.error && typeof record.error === 'object') return findError(record.error)
  if (typeof record.error === 'string' && record.error) return { message: record.error }
  // Anthropic's tool_result with is_error: its text blocks are the message.
  if (record.is_error === true && Array.isArray(record.content)) {
    const text = (record.content as Array<{ type?: string, text?: string }>).filter((c) => c.type === 'text').map((c) => c.text).join('\n')
    if (text) return { message: text }
  }
  if (typeof record.message === 'string') return { message: record.message }
  return undefined
}
