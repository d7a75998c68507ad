/** GET /health — public (no token): is the desktop ready, how big is it, what is held. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'

export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  ready: Type.Boolean(),
  driver: Type.String(),
  display: Type.Union([Type.String(), Type.Null()], { description: 'The X display, e.g. ":99".' }),
  screen: Type.Union([Type.Object({ width: Type.Integer(), height: Type.Integer() }), Type.Null()], {
    description: 'The real screen size in pixels.',
  }),
  held: Type.Object({
    keys: Type.Array(Type.String()),
    buttons: Type.Array(Type.String()),
  }, { description: 'Keys and buttons the server holds down right now (press_type/click_type down).' }),
  queue: Type.Integer({ description: 'Requests waiting for or using the desktop.' }),
  oldest_wait_ms: Type.Integer({
    description: 'How long the oldest request waiting for or using the desktop has waited, in ms (0 with none). Every request has a deadline, so this stays bounded.',
  }),
  reason: Type.Optional(Type.String({
    description: 'Why the desktop is not ready, with a 503 only: starting or restarting, or the desktop that was asked for not running (its window manager or full desktop session died at start).',
  })),
  recording: Type.Union([Type.Object({
    active: Type.Integer({ description: 'Episodes recording (or starting) now.' }),
    encoders: Type.Integer({ description: 'Video encoders (ffmpeg) running for them, including those finishing an ended episode\'s file.' }),
    max_active: Type.Integer({ description: 'The most episodes that may record at once (--record-max-active); a new one beyond is refused with 429.' }),
  }), Type.Null()], { description: 'What recording costs now (--record); null when recording is off.' }),
  control: Type.Object({
    taken_over: Type.Boolean({ description: 'A person holds the desktop (GET /control says who): the agent\'s actions answer 423.' }),
    waiting: Type.Integer({ description: 'request_human calls waiting for a person.' }),
    oldest_wait_ms: Type.Union([Type.Integer(), Type.Null()], { description: 'How long the oldest of them has waited, ms; null with none.' }),
  }, { description: 'The control lease (docs/takeover.md).' }),
}, { $id: 'Health', title: 'Health' })

export const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { executor, desktopInfo, recorder, control } = fastify
  fastify.get('/health', {
    config: { public: true },
    schema: { summary: 'Readiness, screen size, driver and held inputs', tags: ['server'], response: { 200: Health, 503: Health } },
  }, async (_request, reply) => {
    const ready = executor.ready()
    // screenSize() is cached once known; the first read has the driver call's deadline.
    const screen = ready ? await executor.screenSize().catch(() => null) : null
    // Input alone is not the desktop asked for: its window manager or session must run too.
    const reason = !ready
      ? 'the desktop is starting or restarting'
      : screen === null ? 'the screen size could not be read from the desktop' : executor.desktopDown()
    reply.code(reason === undefined ? 200 : 503)
    return {
      status: reason === undefined ? 'ok' as const : 'unavailable' as const,
      ready: reason === undefined,
      driver: executor.driverName,
      display: desktopInfo.display ?? null,
      screen,
      held: executor.held(),
      queue: executor.pending,
      oldest_wait_ms: executor.oldestWaitMs(),
      ...(reason !== undefined && { reason }),
      recording: recorder?.load() ?? null,
      control: { taken_over: control.lease !== null, waiting: control.requests.length, oldest_wait_ms: control.oldestRequestMs() },
    }
  })
}
