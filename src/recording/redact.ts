/**
 * What of a request may go into a recording. Headers never do (Authorization, x-api-key and
 * Cookie are only ever in headers); a query parameter or a JSON field whose name says it is a
 * secret has its value replaced, wherever it is nested, and images in a payload (a client
 * echoing a screenshot back) are replaced by their size: the recording keeps its own.
 */

const SECRET_NAME = /(^|[_-])(token|secret|password|passwd|api[_-]?key|apikey|authorization|cookie|session|credentials?)$/i
export const REDACTED = '[redacted]'
/** Strings this long that look like base64 are images or files, not what the model said. */
const LONG_BASE64 = /^(?:data:[a-z]+\/[a-z0-9.+-]+;base64,)?[A-Za-z0-9+/=\r\n]{4096,}$/
/**
 * An image however short: base64 that starts with the signature of a PNG, JPEG or WebP file.
 * A screen of a few colours is an indexed PNG of a few hundred bytes.
 */
const IMAGE_BASE64 = /^(?:data:image\/[a-z0-9.+-]+;base64,)?(?:iVBORw0KGgo|\/9j\/|UklGR)[A-Za-z0-9+/]*={0,2}$/

export function isSecretName (name: string): boolean {
  return SECRET_NAME.test(name)
}

/** A copy of `value` without secrets or inline images. */
export function redactPayload (value: unknown, depth = 0): unknown {
  if (depth > 64) return REDACTED
  if (typeof value === 'string') return LONG_BASE64.test(value) || IMAGE_BASE64.test(value) ? `[${value.length} characters of base64 not kept]` : value
  if (Array.isArray(value)) return value.map((item) => redactPayload(item, depth + 1))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isSecretName(key) ? REDACTED : redactPayload(item, depth + 1)]))
}

/** The path and query of `url` with every secret-named parameter's value replaced. */
export function redactUrl (url: string): string {
  const at = url.indexOf('?')
  if (at < 0) return url
  const params = new URLSearchParams(url.slice(at + 1))
  for (const key of [...params.keys()]) if (isSecretName(key)) params.set(key, REDACTED)
  const query = params.toString()
  return query ? `${url.slice(0, at)}?${query}` : url.slice(0, at)
}
