/**
 * pino options for the server: JSON lines, and nothing secret in them. Tokens, typed text
 * and screenshots never reach the log (typed text only at level debug, on purpose).
 */
import type { LoggerOptions } from 'pino'

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.base64_image',
  'base64_image',
  '*.token',
  'token',
]

export function loggerOptions (level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  }
}
