/**
 * POST /desktops/{id}/pause and /resume: the engine's freezer on a desktop a client holds. A
 * paused desktop uses no CPU and every route forwarded to it answers 409 ERR_DESKTOP_PAUSED
 * naming the resume route; its TTL still runs. Resume answers once the desktop's server answers
 * its health probe again. Both are idempotent and answer the desktop as GET does. On an engine
 * without a freezer (Swarm, Kubernetes) both answer 501 ERR_NOT_IMPLEMENTED saying so.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { ErrorBody } from '../../src/schemas/error-body.ts'
import type { Fleet } from '../fleet.ts'
import { DesktopParams, DesktopView } from '../schemas.ts'
import { emptyJsonIsNoBody } from './empty-json.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 410: ErrorBody, 501: ErrorBody, 503: ErrorBody }

export const pauseRoutes: FastifyPluginAsyncTypebox<{ fleet: Fleet }> = async (app, { fleet }) => {
  emptyJsonIsNoBody(app as unknown as FastifyInstance)
  app.post('/desktops/:id/pause', {
    schema: { summary: 'Freeze a desktop (no CPU; its routes answer 409 until it is resumed); pausing a paused one answers the same', params: DesktopParams, response: { 200: DesktopView, ...errors } },
  }, async (request) => fleet.pause(request.params.id))

  app.post('/desktops/:id/resume', {
    schema: { summary: 'Thaw a paused desktop; answers once it acts again (a running one answers as it is)', params: DesktopParams, response: { 200: DesktopView, ...errors } },
  }, async (request) => fleet.resume(request.params.id))
}
