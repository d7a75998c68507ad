/**
 * API token check (SPEC §7). With a token configured, every route but GET /health needs
 * `Authorization: Bearer <token>`; the seed-compatible route also takes `x-api-key`, which
 * is how the seed system's SDKs send it.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Unauthorized } from '../errors/errors.ts'

const digest = (value: string) => createHash('sha256').update(value).digest()

/** Compares in constant time; hashing first makes the lengths equal, so length does not leak either. */
export function tokenMatches (given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected))
}

function presentedToken (request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization)
    return match ? match[1]!.trim() : undefined
  }
  const apiKey = request.headers['x-api-key']
  if (typeof apiKey === 'string' && request.routeOptions.config.acceptsApiKeyHeader === true) return apiKey
  return undefined
}

export function authHook (token: string) {
  // A callback, not an async function: every request passes here.
  return function checkToken (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    if (request.routeOptions.config.public === true) { done(); return }
    const given = presentedToken(request)
    if (given === undefined) done(new Unauthorized('this server needs an API token: send "Authorization: Bearer <token>"'))
    else if (!tokenMatches(given, token)) done(new Unauthorized('the API token is not valid'))
    else done()
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without a token (GET /health). */
    public?: boolean
    /** Also takes the token from `x-api-key` (the seed-compatible route). */
    acceptsApiKeyHeader?: boolean
  }
}
