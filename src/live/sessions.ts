/**
 * Live-view sessions. A browser cannot put a Bearer header on a WebSocket, and a token in a
 * URL ends up in logs and history; so the page posts the token once (POST /live/session) and
 * gets a random session id in an HttpOnly, SameSite=Strict cookie, scoped to the live view's
 * path. The cookie opens the page, its scripts, its state and the WebSocket — nothing else:
 * every other route still wants the token. Sessions live in memory only: a restart of the
 * server signs everyone out.
 */
import { randomBytes } from 'node:crypto'
import { tokenMatches } from '../http/auth.ts'

export const LIVE_COOKIE = 'cg_live'
/** A session unused for this long ends; each use (a page load, a reconnect, a state poll) renews it. */
export const DEFAULT_IDLE_MS = 15 * 60_000
/** However used, a session ends this long after it was made. */
export const DEFAULT_LIFETIME_MS = 12 * 3600_000
const MAX_SESSIONS = 1000

interface Session { made: number, used: number }

export class LiveSessions {
  readonly #sessions = new Map<string, Session>()
  readonly #idleMs: number
  readonly #lifetimeMs: number
  readonly #now: () => number

  constructor (options: { idleMs?: number, lifetimeMs?: number, now?: () => number } = {}) {
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS
    this.#lifetimeMs = options.lifetimeMs ?? DEFAULT_LIFETIME_MS
    this.#now = options.now ?? Date.now
  }

  /** A new session id (32 random bytes, base64url). */
  issue (): string {
    this.#prune()
    if (this.#sessions.size >= MAX_SESSIONS) {
      // The oldest goes: a client minting sessions in a loop cannot grow the map without bound.
      this.#sessions.delete(this.#sessions.keys().next().value!)
    }
    const id = randomBytes(32).toString('base64url')
    const now = this.#now()
    this.#sessions.set(id, { made: now, used: now })
    return id
  }

  /** True when `id` names a live session; renews it. Compared in constant time. */
  use (id: string | undefined): boolean {
    if (!id) return false
    this.#prune()
    for (const [known, session] of this.#sessions) {
      if (tokenMatches(id, known)) {
        session.used = this.#now()
        return true
      }
    }
    return false
  }

  revoke (id: string | undefined): void {
    if (id) this.#sessions.delete(id)
  }

  /** How long a cookie should be kept by the browser, in seconds. */
  get cookieMaxAgeSeconds (): number { return Math.floor(this.#lifetimeMs / 1000) }

  #prune (): void {
    const now = this.#now()
    for (const [id, session] of this.#sessions) {
      if (now - session.used > this.#idleMs || now - session.made > this.#lifetimeMs) this.#sessions.delete(id)
    }
  }
}

/** The value of cookie `name` in a Cookie header. */
export function cookieValue (header: string | undefined, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/**
 * The Set-Cookie value. No Path: browsers then scope it to the directory of the request that
 * set it (…/live for …/live/session), which is the live view's path whatever prefix a
 * reverse proxy put in front of it. The replay page's cookie (`name`) is scoped to …/recordings the same way.
 */
export function sessionCookie (id: string, maxAgeSeconds: number, secure: boolean, name = LIVE_COOKIE): string {
  return `${name}=${id}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`
}
