/**
 * POST /desktops/{id}/reset: the desktop is replaced by a fresh one of the same spec (from the
 * warm pool when it holds one) and the old one ends, with its home, browser profile, clipboard
 * and processes. The client keeps the id, TTL and labels; the answer carries the fresh desktop's
 * own URL and token (both change), for clients that reach it without the fleet.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorBody } from '../../src/schemas/error-body.ts'
import type { Fleet } from '../fleet.ts'
import { DesktopParams, DesktopView } from '../schemas.ts'

export const resetRoute: FastifyPluginAsyncTypebox<{ fleet: Fleet }> = async (app, { fleet }) => {
  app.post('/desktops/:id/reset', {
    schema: {
      summary: 'Reset a desktop: a fresh one under the same id (nothing of the last episode survives), the old one ended',
      params: DesktopParams,
      response: { 200: DesktopView, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 410: ErrorBody, 503: ErrorBody },
    },
  }, async (request) => fleet.reset(request.params.id))
}
