/**
 * GET /accessibility — the desktop's accessibility tree as a Computer Use Protocol snapshot:
 * the CUP envelope (format=json) or CUP's compact text (format=compact). Bounds are in the
 * request's coordinate space, like every coordinate the server answers with. Each capture
 * replaces the element ids of the last one.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AccessibilityQuery, CupEnvelope } from '../src/accessibility/schema.ts'
import { clientSpace } from '../src/screen/scaling.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'

export const accessibilityRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { executor } = fastify

  fastify.get('/accessibility', {
    schema: {
      summary: 'The accessibility tree as a Computer Use Protocol snapshot (JSON envelope or compact text)',
      description: 'Read from AT-SPI2. scope=foreground (default) walks the active window, full every window, desktop the desktop surface ' +
        '(only the window list when there is none). Element ids (e0, e1, …) name elements of this snapshot until the next one; ' +
        'element_action acts on them. Bounds are in the space of display_width_px/display_height_px when given. ' +
        'The header x-accessibility-truncated: true says max_depth or max_nodes cut the walk short. The same as the unified action get_accessibility_tree.',
      tags: ['accessibility'],
      querystring: Type.Ref(AccessibilityQuery),
      response: {
        200: {
          description: 'The snapshot.',
          content: {
            'application/json': { schema: Type.Ref(CupEnvelope) },
            'text/plain': { schema: Type.String({ description: "CUP's compact encoding." }) },
          },
        },
        '4xx': Type.Ref(ErrorBody),
        '5xx': Type.Ref(ErrorBody),
      },
    },
    // The envelope is sent as built: a serializer compiled from the schema would add nothing
    // and cost time on trees of thousands of nodes.
    serializerCompiler: () => (data) => JSON.stringify(data),
  }, async (request, reply) => {
    const { scope, format, max_depth: maxDepth, max_nodes: maxNodes } = request.query
    const client = clientSpace(request.query, fastify.actionSchemas.limits)
    // Through the executor's queue, like every action: a snapshot never interleaves with input.
    const outcome = await executor.run([{
      action: 'get_accessibility_tree',
      ...(scope && { scope }),
      ...(format && { format }),
      ...(maxDepth !== undefined && { max_depth: maxDepth }),
      ...(maxNodes !== undefined && { max_nodes: maxNodes }),
    }], { ...(client && { client }) })
    if (outcome.error) throw outcome.error
    const [result] = outcome.results
    if (result!.truncated) reply.header('x-accessibility-truncated', 'true')
    if (result!.text !== undefined) return reply.type('text/plain; charset=utf-8').send(result!.text)
    return reply.type('application/json; charset=utf-8').send(result!.accessibility!)
  })
}
