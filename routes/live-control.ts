/**
 * The live view's "Take over" and "Hand back" (docs/takeover.md): POST /live/takeover and POST
 * /live/release, with the live view's session cookie. The page names itself with a random viewer
 * id, on these calls and on its WebSocket (?viewer=): the lease it takes is that tab's, its
 * input passes only while it holds it, and its socket closing hands the desktop back.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { onRequestHookHandler } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { ControlLease } from '../src/control/lease.ts'
import { MAX_HOLDER_CHARS, MAX_MESSAGE_CHARS, MAX_LEASE_SECONDS } from '../src/control/schema.ts'
import { ControlConflict, ToolOff } from '../src/errors/errors.ts'

/** A viewer id as the page makes it (crypto.randomUUID()). */
export const VIEWER_ID = /^[A-Za-z0-9-]{8,64}$/

/** The live view tabs connected now, by viewer id: each one's way to let go of what it holds. */
export class LiveViewers {
  readonly #control: ControlLease
  readonly #tabs = new Map<string, Set<() => void>>()

  constructor (control: ControlLease) {
    this.#control = control
    // A lease a tab holds ends with what that tab pressed let go first.
    control.onReleasing(async () => {
      const owner = control.owner
      for (const release of owner === undefined ? [] : this.#tabs.get(owner) ?? []) release()
    })
  }

  holds (viewer: string | undefined): boolean { return viewer !== undefined && this.#control.owner === viewer }

  connected (viewer: string): boolean { return this.#tabs.has(viewer) }

  /** A tab's socket opened; the function returned is its closing, which hands back what it holds. */
  join (viewer: string, releaseHeld: () => void): () => void {
    const tabs = this.#tabs.get(viewer) ?? new Set()
    tabs.add(releaseHeld)
    this.#tabs.set(viewer, tabs)
    return () => {
      tabs.delete(releaseHeld)
      if (tabs.size > 0) return
      this.#tabs.delete(viewer)
      if (this.holds(viewer)) void this.#control.release({ reason: 'closed', owner: viewer }).catch(() => {})
    }
  }
}

const Viewer = Type.String({ pattern: VIEWER_ID.source, errorMessage: 'viewer must be the live view\'s own id (8 to 64 letters, digits and dashes)' })

export const liveControlRoutes: FastifyPluginAsyncTypebox<{ control: ControlLease, viewers: LiveViewers, enabled: boolean, onRequest: onRequestHookHandler }> = async (fastify, options) => {
  const { control, viewers, enabled } = options
  const route = { config: { public: true }, onRequest: options.onRequest }
  const assertEnabled = () => {
    if (!enabled) throw new ToolOff('the live view only watches on this server: start it with --live-control (env LIVE_CONTROL=1) to take the desktop over from it')
  }

  fastify.post('/live/takeover', {
    ...route,
    schema: {
      hide: true,
      body: Type.Object({
        viewer: Viewer,
        holder: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_HOLDER_CHARS, pattern: '^[^\\u0000-\\u001f\\u007f]+$', errorMessage: `holder must be a name of 1 to ${MAX_HOLDER_CHARS} printable characters` })),
        timeout_s: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LEASE_SECONDS, errorMessage: `timeout_s must be a whole number of seconds from 1 to ${MAX_LEASE_SECONDS}` })),
      }, { additionalProperties: false }),
    },
  }, async (request, reply) => {
    assertEnabled()
    const { viewer, holder, timeout_s: timeoutS } = request.body
    // Only a connected tab: its closing must be able to hand the desktop back.
    if (!viewers.connected(viewer)) throw new ControlConflict('this live view is not connected to the desktop: wait for "connected", then take over')
    reply.header('cache-control', 'no-store')
    return control.takeover({ holder: holder ?? 'live view', timeoutS, owner: viewer })
  })

  fastify.post('/live/release', {
    ...route,
    schema: {
      hide: true,
      body: Type.Object({
        viewer: Viewer,
        message: Type.Optional(Type.String({ maxLength: MAX_MESSAGE_CHARS, errorMessage: `message must be text of at most ${MAX_MESSAGE_CHARS} characters` })),
      }, { additionalProperties: false }),
    },
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    return control.release({ owner: request.body.viewer, ...(request.body.message !== undefined && { message: request.body.message }) })
  })
}
