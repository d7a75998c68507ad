/**
 * The recordings (README "Recordings"): GET /recordings, GET /recordings/{id} (its steps),
 * GET /recordings/{id}/video, GET /recordings/{id}/images/{name}, GET /recordings/{id}/archive
 * (a tar of it all), POST /recordings/{id}/stop, DELETE /recordings/{id}, and the replay page
 * GET /recordings/{id}/replay. Private as /live is: with a token, the page wants a session
 * cookie (POST /recordings/session trades the token for one, scoped to /recordings), and the
 * reads it makes take that cookie or the token; stopping and deleting want the token.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { tokenMatches } from '../src/http/auth.ts'
import { RangeNotSatisfiable, RouteNotFound, Unauthorized } from '../src/errors/errors.ts'
import { cookieValue, sessionCookie, type LiveSessions } from '../src/live/sessions.ts'
import { IMAGE_MEDIA_TYPES } from '../src/recording/images.ts'
import type { Recorder } from '../src/recording/recorder.ts'
import { RecordingDetail, RecordingIdParams, RecordingImageParams, RecordingList, RecordingSummary } from '../src/recording/schema.ts'
import { IMAGES_DIR } from '../src/recording/store.ts'
import { tarStream, type TarEntry } from '../src/recording/tar.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'
import { replayPage, replaySignInPage } from './recordings-page.ts'

export interface RecordingRouteOptions {
  /** None without --record: every route then says how to turn recording on (and the document stays one). */
  recorder?: Recorder
  sessions: LiveSessions
  /** The server's API token, if it has one. */
  token?: string
}

export const REPLAY_COOKIE = 'cg_replay'

/** As the live view's: our scripts only, our media only, never framed. */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; media-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}

const errors = { '4xx': Type.Ref(ErrorBody), '5xx': Type.Ref(ErrorBody) }

export const NOT_RECORDING = 'this server does not record: start it with --record (RECORD=1); X-Recording-Id is ignored without it'

export const recordingRoutes: FastifyPluginAsyncTypebox<RecordingRouteOptions> = async (fastify, { recorder: maybe, sessions, token }) => {
  const recorder = (): Recorder => {
    if (!maybe) throw new RouteNotFound(NOT_RECORDING)
    return maybe
  }
  const signedIn = (request: FastifyRequest) => !token || sessions.use(cookieValue(request.headers.cookie, REPLAY_COOKIE))
  const bearer = (request: FastifyRequest) => {
    const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')
    return match ? match[1]!.trim() : undefined
  }
  // What the page reads: the API token, or the page's session cookie (a browser has only that).
  const tokenOrSession = async (request: FastifyRequest) => {
    if (!token || signedIn(request)) return
    const given = bearer(request)
    if (given === undefined) throw new Unauthorized('this server needs an API token: send "Authorization: Bearer <token>" (the replay page signs in at POST /recordings/session)')
    if (!tokenMatches(given, token)) throw new Unauthorized('the API token is not valid')
  }
  const readable = { config: { public: true }, onRequest: tokenOrSession }
  /** A file of an episode, sent whole, to the token or the replay page's session. */
  const fileOf = <P extends TSchema>(summary: string, params: P) => ({
    ...readable,
    schema: { summary, tags: ['recordings'], params, response: { 200: Type.String({ format: 'binary' }), ...errors } },
  })

  fastify.get('/recordings', {
    ...readable,
    schema: { summary: 'The recorded episodes, newest first, and the store\'s size and limit', tags: ['recordings'], response: { 200: Type.Ref(RecordingList), ...errors } },
  }, async () => recorder().list())

  fastify.get('/recordings/:id', {
    ...readable,
    schema: {
      summary: 'One episode: its summary and every step (route, native payload, unified actions, results, timings, images)',
      tags: ['recordings'],
      params: RecordingIdParams,
      response: { 200: Type.Ref(RecordingDetail), ...errors },
    },
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    return recorder().detail(request.params.id)
  })

  fastify.get('/recordings/:id/video', {
    ...readable,
    schema: {
      summary: 'The episode\'s video (fragmented MP4, H.264); byte ranges supported',
      description: 'Playable while the episode still records (up to its last whole second) and after the X server died under it.',
      tags: ['recordings'],
      params: RecordingIdParams,
      response: { 200: Type.String({ format: 'binary' }), 206: Type.String({ format: 'binary' }), ...errors },
    },
  }, async (request, reply) => {
    const { id } = request.params
    const meta = recorder().meta(id)
    if (!meta.video_file) throw new RouteNotFound(`recording '${id}' has no video${meta.video_error ? `: ${meta.video_error}` : ''}`)
    return sendFile(request, reply, recorder().store.path(id, meta.video_file), 'video/mp4')
  })

  fastify.get('/recordings/:id/images/:name', fileOf('One screenshot of the episode, by the name a step lists in `images`', RecordingImageParams), async (request, reply) => {
    const { id, name } = request.params as { id: string, name: string }
    recorder().meta(id)
    const extension = name.slice(name.lastIndexOf('.') + 1) as keyof typeof IMAGE_MEDIA_TYPES
    return sendFile(request, reply, recorder().store.path(id, IMAGES_DIR, name), IMAGE_MEDIA_TYPES[extension])
  })

  fastify.get('/recordings/:id/archive', fileOf('The whole episode as one tar: recording.json (summary and steps), images/ and the video', RecordingIdParams), async (request, reply) => {
    const { id } = request.params
    const detail = await recorder().detail(id)
    const meta = recorder().meta(id)
    const entries: TarEntry[] = [{ name: `${id}/recording.json`, data: Buffer.from(JSON.stringify(detail, null, 2)) }]
    for (const step of detail.steps) for (const image of step.images) entries.push({ name: `${id}/${IMAGES_DIR}/${image}`, file: recorder().store.path(id, IMAGES_DIR, image) })
    if (meta.video_file) entries.push({ name: `${id}/${meta.video_file}`, file: recorder().store.path(id, meta.video_file) })
    return reply.type('application/x-tar').header('content-disposition', `attachment; filename="${id}.tar"`).header('cache-control', 'no-store').send(tarStream(entries) as never)
  })

  fastify.post('/recordings/:id/stop', {
    schema: {
      summary: 'End the episode: its video is finalised; later requests naming it are refused (409)',
      tags: ['recordings'],
      params: RecordingIdParams,
      response: { 200: Type.Ref(RecordingSummary), ...errors },
    },
  }, async (request) => recorder().stop(request.params.id, 'stopped'))

  fastify.delete('/recordings/:id', {
    schema: {
      summary: 'Delete the episode and all its files (it is stopped first if it records)',
      tags: ['recordings'],
      params: RecordingIdParams,
      response: { 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => {
    await recorder().remove(request.params.id)
    return reply.code(204).send(null)
  })

  fastify.get('/recordings/:id/replay', { config: { public: true }, schema: { hide: true, params: RecordingIdParams } }, async (request, reply) => {
    if (!signedIn(request)) return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').code(401).send(replaySignInPage())
    recorder().meta(request.params.id)
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(replayPage(request.params.id))
  })

  // The token checked by authHook, as for POST /live/session.
  fastify.post('/recordings/session', { schema: { hide: true } }, async (request, reply) => {
    const id = sessions.issue()
    reply.header('set-cookie', sessionCookie(id, sessions.cookieMaxAgeSeconds, request.protocol === 'https', REPLAY_COOKIE)).header('cache-control', 'no-store')
    return reply.code(204).send()
  })

  fastify.delete('/recordings/session', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    sessions.revoke(cookieValue(request.headers.cookie, REPLAY_COOKIE))
    return reply.code(204).header('set-cookie', sessionCookie('', 0, request.protocol === 'https', REPLAY_COOKIE)).send()
  })
}

/** A file with one byte range when asked (a video element seeks by ranges). */
async function sendFile (request: FastifyRequest, reply: FastifyReply, path: string, type: string) {
  const info = await stat(path).catch(() => undefined)
  if (!info) throw new RouteNotFound(`no such file in the recording: ${path.slice(path.lastIndexOf('/') + 1)}`)
  reply.type(type).header('accept-ranges', 'bytes').header('cache-control', 'no-store')
  const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '')
  if (!range || info.size === 0 || (range[1] === '' && range[2] === '')) {
    return reply.header('content-length', info.size).send(createReadStream(path, { start: 0, end: Math.max(0, info.size - 1) }))
  }
  const start = range[1] === '' ? Math.max(0, info.size - Number(range[2])) : Number(range[1])
  const end = range[1] === '' || range[2] === '' ? info.size - 1 : Math.min(Number(range[2]), info.size - 1)
  if (start > end || start >= info.size) {
    reply.header('content-range', `bytes */${info.size}`)
    throw new RangeNotSatisfiable(`the file has ${info.size} bytes; the range ${request.headers.range} is outside it`)
  }
  return reply.code(206).header('content-range', `bytes ${start}-${end}/${info.size}`).header('content-length', end - start + 1).send(createReadStream(path, { start, end }))
}
