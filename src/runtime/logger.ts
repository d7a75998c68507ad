/**
 * pino options for the server: JSON lines, and nothing secret in them. Tokens, typed text
 * and screenshots never reach the log (typed text only at level debug, on purpose).
 */
import type { LoggerOptions } from 'pino'

/**
 * What the desktop's parts (drivers, Xvfb, the window manager, the accessibility bus) log
 * through. pino's Logger fits; the drivers only need these four methods, so a test or another
 * embedder can hand them any logger that has them.
 */
export interface Log {
  debug: (object: object, message: string) => void
  info: (object: object, message: string) => void
  warn: (object: object, message: string) => void
  error: (object: object, message: string) => void
}

/**
 * Paths pino redacts. A request is logged through the `req` serializer below, which keeps no
 * header. Keys one level down are censorNested()'s: pino's wildcard paths (`*.token`) run a
 * redactor over every field of every line, which cost ~9 KB of garbage and most of a log
 * line's CPU per request.
 */
export const REDACTED_PATHS = [
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["proxy-authorization"]',
  'headers.cookie',
  'base64_image',
  'token',
]

/** Keys censored one level down in a log object (`{ result: { base64_image } }`; censorNested looks for each by name). */
const NESTED_SECRETS = ['base64_image', 'token'] as const

const CENSOR = '[redacted]'

/**
 * The log object with NESTED_SECRETS one level down censored; the same object, untouched and
 * nothing allocated, when it has none (every line in practice).
 */
export function censorNested (object: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined
  for (const key in object) {
    const value = object[key]
    if (typeof value !== 'object' || value === null) continue
    if (!Object.hasOwn(value, 'base64_image') && !Object.hasOwn(value, 'token')) continue
    // An error stays one (its class, message and stack, which are not enumerable), for pino's error serializer.
    const censored: Record<string, unknown> = value instanceof Error
      ? Object.defineProperties(Object.create(Object.getPrototypeOf(value) as object), {
        ...Object.getOwnPropertyDescriptors(value),
        // V8's stack accessor answers only on the error itself.
        stack: { value: value.stack, enumerable: false },
      })
      : { ...value }
    for (const secret of NESTED_SECRETS) if (Object.hasOwn(censored, secret)) censored[secret] = CENSOR
    copy ??= { ...object }
    copy[key] = censored
  }
  return copy ?? object
}

/**
 * Query parameters whose values are secrets. The server reads its token from headers only,
 * but clients put one in the URL all the same (`?token=`, `?api_key=`), and request lines are
 * logged.
 */
const SECRET_PARAMETER = /token|key|secret|passw|auth|sig|session|credential/i

/** The URL with the values of secret-looking query parameters replaced. */
export function redactUrl (url: string): string {
  const at = url.indexOf('?')
  if (at < 0) return url
  const query = url.slice(at + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=')
    const name = equals < 0 ? pair : pair.slice(0, equals)
    let decoded = name
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '))
    } catch {}
    return equals >= 0 && SECRET_PARAMETER.test(decoded) ? `${name}=${CENSOR}` : pair
  })
  return `${url.slice(0, at)}?${query.join('&')}`
}

interface LoggedRequest {
  method: string
  url: string
  host?: string
  ip?: string
  socket?: { remotePort?: number }
}

export function loggerOptions (level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    formatters: { log: censorNested },
    serializers: {
      // Fastify's request serializer, with the query's secrets redacted.
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  }
}
