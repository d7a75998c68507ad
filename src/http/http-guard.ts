/**
 * What a browser may do here (SPEC §7). The server drives a real desktop, so a web page the
 * user happens to visit must never reach it: not by a cross-origin request (browsers send
 * `text/plain` POSTs without a preflight), not by DNS rebinding (a page whose own name comes
 * to resolve to 127.0.0.1 is, to the browser, same-origin with us). Non-browser clients (curl,
 * SDKs, agent loops) send no `Origin` and pass untouched.
 *
 * The rules, checked in an onRequest hook registered before auth (so they hold with or
 * without a token):
 * - `Origin`, when present, must be allowed (`--allow-origin`) or be this server itself (a
 *   page it served, /docs, on a Host it knows as its own). Everything else is 403, preflights
 *   included; `null` (sandboxed frames, files) is never allowed.
 * - A browser request that names another site in `Sec-Fetch-Site` but carries no `Origin`
 *   (a cross-site image or link) is refused the same way.
 * - `Host` must be a name of this server: a loopback name (any port), the address it is bound
 *   to, or an `--allow-host` name. Beyond loopback, an IP literal also passes (a container is
 *   reached by the address its port is published on, which it cannot know; an IP literal
 *   cannot be a rebinding name). Beyond loopback with a token and no `--allow-host`, any Host
 *   passes: a rebinding page never learns the token, so the token already closes that door,
 *   and the names a deployment is reached by (proxies, service names) are not ours to guess.
 *
 * An allowed origin gets CORS answers: a preflight is answered here (204, before auth: a
 * browser sends no Authorization on a preflight), other responses carry
 * Access-Control-Allow-Origin.
 */
import { isIP } from 'node:net'
import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errorBody } from './error-handler.ts'
import { ForbiddenHost, ForbiddenOrigin, InvalidConfig, RequestTimeout } from '../errors/errors.ts'

export interface GuardOptions {
  /** The address the server listens on (default 127.0.0.1). */
  listenHost?: string
  /** Whether an API token guards the routes. */
  token: boolean
  /** Origins (scheme://host[:port]) whose pages may call the server. */
  allowOrigins?: readonly string[]
  /** Extra names the server is reached by. */
  allowHosts?: readonly string[]
}

const LOOPBACK_NAME = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/
const WILDCARD = new Set(['0.0.0.0', '::', '[::]'])
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^:[\]\s/@]+)(?::\d{1,5})?$/i
const DNS_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/

/** The methods and request headers a front-end may use (Authorization for the token). */
const ALLOW_METHODS = 'GET, POST, OPTIONS'
// Mcp-Protocol-Version: browser MCP clients send it on every request to /mcp after initialize.
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Api-Key, Mcp-Protocol-Version'
/** Retry-After on a 503 tells a front-end when to try again. */
const EXPOSE_HEADERS = 'Retry-After'
const PREFLIGHT_MAX_AGE_SECONDS = '600'

export function isLoopbackAddress (host: string): boolean {
  return LOOPBACK_NAME.test(bracketed(host.toLowerCase()))
}

/** IPv6 literals as they appear in a Host header: in brackets. */
function bracketed (name: string): string {
  return isIP(name) === 6 ? `[${name}]` : name
}

/** The host name of a Host header, lower case, IPv6 in brackets; undefined when malformed. */
export function hostNameOf (header: string): string | undefined {
  const match = HOST_HEADER.exec(header.trim())
  return match ? match[1]!.toLowerCase() : undefined
}

function isIpLiteral (name: string): boolean {
  return isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0
}

/** An --allow-host value as the guard compares it; throws ERR_INVALID_CONFIG when it is not a name. */
export function normalizeHostName (value: string, source: string): string {
  const name = bracketed(value.trim().toLowerCase())
  if (!(DNS_NAME.test(name) || isIpLiteral(name))) {
    throw new InvalidConfig(`${source}: '${value}' is not a host name or IP address (give the name alone, without scheme or port)`)
  }
  return name
}

/** An --allow-origin value as browsers send it; throws ERR_INVALID_CONFIG for anything but scheme://host[:port]. */
export function normalizeOrigin (value: string, source: string): string {
  const text = value.trim()
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {}
  const bare = url && (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' &&
    url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '' && !text.endsWith('#') && !text.endsWith('?')
  if (!url || !bare) {
    throw new InvalidConfig(`${source}: '${value}' is not an origin: give scheme://host[:port] as the browser shows it, e.g. http://localhost:3000 (no path, no wildcard, not null)`)
  }
  return url.origin
}

/** The origin a browser sent, normalised like normalizeOrigin; undefined for `null` or a malformed one. */
function requestOrigin (value: string): string | undefined {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined
  } catch {
    return undefined
  }
}

export function guardHook (options: GuardOptions) {
  const listenHost = bracketed((options.listenHost ?? '127.0.0.1').toLowerCase())
  const loopbackBind = isLoopbackAddress(listenHost)
  const allowHosts = new Set((options.allowHosts ?? []).map((value) => normalizeHostName(value, 'allowHosts')))
  const allowOrigins = new Set((options.allowOrigins ?? []).map((value) => normalizeOrigin(value, 'allowOrigins')))
  const ownNames = new Set([...allowHosts, ...(WILDCARD.has(listenHost) ? [] : [listenHost])])
  const restrictHosts = loopbackBind || !options.token || allowHosts.size > 0

  /** A name this server knows as its own, whatever the mode. */
  const ownName = (name: string) => LOOPBACK_NAME.test(name) || ownNames.has(name)
  const hostPasses = (name: string) => !restrictHosts || ownName(name) || (!loopbackBind && isIpLiteral(name))

  const known = () => [...new Set(['localhost', '127.0.0.1', '[::1]', ...ownNames]), ...(loopbackBind ? [] : ['any IP address'])].join(', ')

  // A client sends the same Host on every request: its verdict is kept until another comes.
  let lastHost: string | undefined
  let lastName: string | undefined
  let lastPasses = false

  /** Whether the request may go on; false once it has been answered (a preflight). Throws a refusal. */
  function admit (request: FastifyRequest, reply: FastifyReply): boolean {
    const host = request.headers.host
    if (host !== undefined && host !== lastHost) {
      lastName = hostNameOf(host)
      lastPasses = lastName !== undefined && hostPasses(lastName)
      lastHost = host
    }
    // HTTP/1.0 may omit Host; browsers never do, so there is nothing to rebind.
    const name = host === undefined ? undefined : lastName
    if (host !== undefined && !lastPasses) {
      throw new ForbiddenHost(
        `the Host header '${host}' is not a name of this server (it answers to ${known()}); a web page whose DNS name ` +
        `was pointed at this address is refused. To reach the server by this name, start it with --allow-host ${name ?? '<name>'} (or ALLOW_HOSTS)`)
    }
    const origin = request.headers.origin
    if (origin === undefined) {
      const site = request.headers['sec-fetch-site']
      if (site === 'cross-site' || site === 'same-site') {
        throw new ForbiddenOrigin('a browser request from another site, without an Origin, is refused: a web page must not drive this desktop')
      }
      return true
    }
    const normalized = requestOrigin(origin)
    const sameOrigin = normalized !== undefined && name !== undefined && ownName(name) &&
      normalized === requestOrigin(`${request.protocol}://${host}`)
    if (normalized === undefined || !(allowOrigins.has(normalized) || sameOrigin)) {
      throw new ForbiddenOrigin(normalized === undefined
        ? `requests from a page with the origin '${origin}' (a sandboxed frame, a file or a malformed origin) are refused: serve the front-end from an http(s) origin and start the server with --allow-origin <that origin>`
        : `requests from web pages at ${normalized} are refused: a web page must not drive this desktop. To let this front-end call the server, start it with --allow-origin ${normalized} (or ALLOW_ORIGINS)`)
    }
    reply.header('access-control-allow-origin', origin)
    reply.header('vary', 'Origin')
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply.code(204)
        .header('access-control-allow-methods', ALLOW_METHODS)
        .header('access-control-allow-headers', ALLOW_HEADERS)
        .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
        .send()
      return false
    }
    reply.header('access-control-expose-headers', EXPOSE_HEADERS)
    return true
  }

  // A callback, not an async function: every request passes here.
  return function guard (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    let goOn: boolean
    try {
      goOn = admit(request, reply)
    } catch (error) {
      done(error as Error)
      return
    }
    if (goOn) done()
  }
}

/**
 * Errors Node raises on a connection before Fastify sees a request: a client too slow to send
 * its headers or body (408, in the usual error body), headers too large, bytes that are not
 * HTTP. The socket is closed after the answer.
 */
export function clientErrorHandler (requestTimeoutMs: number, headersTimeoutMs: number) {
  return function onClientError (this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const refused = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new RequestTimeout(`the request did not arrive in time: headers must arrive within ${headersTimeoutMs / 1000} s and the whole request within ${requestTimeoutMs / 1000} s (see --headers-timeout and --request-timeout)`)
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? Object.assign(new Error('the request headers are too large'), { statusCode: 431, code: error.code })
        : Object.assign(new Error('the request is not valid HTTP'), { statusCode: 400, code: error.code ?? 'ERR_BAD_REQUEST' })
    const answer = errorBody(refused)
    const body = JSON.stringify(answer)
    this.log.info({ code: answer.code, remoteAddress: socket.remoteAddress }, 'connection refused')
    if (socket.writable) {
      socket.write(`HTTP/1.1 ${answer.statusCode} ${answer.error}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`)
    }
    socket.destroy()
  }
}
