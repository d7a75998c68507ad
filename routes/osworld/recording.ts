/**
 * /start_recording and /end_recording through the server's recordings (--record): one episode
 * at a time, named `osworld-<time>`, whose video (the desktop's, with the pointer) the end
 * answers as an MP4 file, as OSWorld's server answers its ffmpeg's. The episode stays in
 * /recordings on the main port afterwards, with its limits and retention.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RecordingState, RouteNotFound } from '../../src/errors/errors.ts'
import type { GuestDeps } from './deps.ts'

export const recordingRoutes: FastifyPluginAsyncTypebox<GuestDeps> = async (fastify, { recorder }) => {
  let current: string | undefined
  const on = () => {
    if (!recorder) throw new RouteNotFound('recording is off on this server: start it with --record (env RECORD=1) for /start_recording and /end_recording')
    return recorder
  }

  fastify.post('/start_recording', async (request) => {
    const recordings = on()
    if (current !== undefined && recordings.meta(current).state === 'recording') {
      throw new RecordingState(`a recording is already in progress (${current}): end it with POST /end_recording first`)
    }
    const id = `osworld-${new Date().toISOString().replace(/[:.]/g, '-')}`
    await recordings.begin(id, request.ip)
    current = id
    return { status: 'success', message: 'Started recording successfully.' }
  })

  fastify.post('/end_recording', async (_request, reply) => {
    const recordings = on()
    const id = current
    if (id === undefined) throw new RecordingState('no recording in progress to stop: POST /start_recording first')
    current = undefined
    await recordings.stop(id, 'end_recording')
    const meta = recordings.meta(id)
    if (!meta.video_file) throw new RouteNotFound(`recording '${id}' has no video${meta.video_error ? `: ${meta.video_error}` : ' (--record-fps 0, or a desktop without a display)'}`)
    const file = recordings.store.path(id, meta.video_file)
    const { size } = await stat(file)
    return await reply
      .type('video/mp4')
      .header('content-length', String(size))
      .header('content-disposition', `attachment; filename="${id}.mp4"`)
      .send(createReadStream(file))
  })
}
