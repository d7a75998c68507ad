/** The screen: /screenshot (PNG with the pointer), /cursor_position, /screen_size, /platform. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { DriverFailure } from '../../src/errors/errors.ts'
import { withCursor } from '../../src/osworld/cursor.ts'
import type { GuestDeps } from './deps.ts'

export const screenRoutes: FastifyPluginAsyncTypebox<GuestDeps> = async (fastify, { executor }) => {
  fastify.get('/screenshot', async (_request, reply) => {
    const outcome = await executor.run([{ action: 'take_screenshot' }])
    if (outcome.error) throw outcome.error
    const [result] = outcome.results
    if (!result?.base64_image) throw new DriverFailure('the desktop gave no screenshot')
    const png = Buffer.from(result.base64_image, 'base64')
    const at = result.cursor_position
    const image = at ? await withCursor(png, at, await executor.screenSize()) : png
    return await reply.type('image/png').send(image)
  })

  fastify.get('/cursor_position', { schema: { response: { 200: Type.Tuple([Type.Integer(), Type.Integer()]) } } }, async () => {
    const outcome = await executor.run([{ action: 'get_cursor_position' }])
    if (outcome.error) throw outcome.error
    const at = outcome.results[0]?.cursor_position
    if (!at) throw new DriverFailure('the desktop did not say where the pointer is')
    return at
  })

  fastify.post('/screen_size', { schema: { response: { 200: Type.Ref('GuestSize') } } }, async () => {
    const { width, height } = await executor.screenSize()
    return { width, height }
  })

  // What Python's platform.system() says on this desktop.
  fastify.get('/platform', async (_request, reply) => reply.type('text/html; charset=utf-8').send('Linux'))
}
