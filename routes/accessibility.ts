/**
 * GET /accessibility — the desktop's accessibility tree as a Computer Use Protocol snapshot:
 * the CUP envelope (format=json) or CUP's compact text (format=compact). Bounds are in the
 * request's coordinate space, like every coordinate the server answers with. Each capture
 * replaces the element ids of the last one.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Logger } from 'pino'
import { capture } from '../src/accessibility/capture.ts'
import { serializeCompact } from '../src/accessibility/compact.ts'
import { AccessibilityQuery, CupEnvelope } from '../src/accessibility/schema.ts'
import type { SnapshotStore } from '../src/accessibility/snapshots.ts'
import type { AccessibilitySource } from '../src/accessibility/source.ts'
import { DriverFailure } from '../src/errors.ts'
import { clientSpace } from '../src/scaling.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'

export interface AccessibilityRoutesOptions {
  source: AccessibilitySource
  snapshots: SnapshotStore
}

const DEFAULTS = { scope: 'foreground', format: 'json', max_depth: 60, max_nodes: 4000 } as const

export const accessibilityRoutes: FastifyPluginAsyncTypebox<AccessibilityRoutesOptions> = async (fastify, { source, snapshots }) => {
  const { executor } = fastify
  const log = fastify.log.child({ component: 'accessibility' }) as Logger
  // One capture at a time: each one replaces the ids the last one issued.
  let queue: Promise<unknown> = Promise.resolve()

  fastify.get('/accessibility', {
    schema: {
      summary: 'The accessibility tree as a Computer Use Protocol snapshot (JSON envelope or compact text)',
      description: 'Read from AT-SPI2. scope=foreground (default) walks the active window, full every window, desktop the desktop surface ' +
        '(only the window list when there is none). Element ids (e0, e1, …) name elements of this snapshot until the next one. ' +
        'Bounds are in the space of display_width_px/display_height_px when given. The header x-accessibility-truncated: true says max_depth or max_nodes cut the walk short.',
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
    const query = { ...DEFAULTS, ...request.query }
    const client = clientSpace(query)
    const real = await executor.screenSize()
    const run = queue.then(async () => {
      try {
        return await capture(source, { scope: query.scope, maxDepth: query.max_depth, maxNodes: query.max_nodes, real, client: client ?? real })
      } catch (error) {
        if (typeof (error as { statusCode?: unknown }).statusCode === 'number') throw error
        throw new DriverFailure(`reading the accessibility tree failed: ${(error as Error).message}`, { cause: error })
      }
    })
    queue = run.catch(() => {})
    const snapshot = await run
    snapshots.save(snapshot.elements)
    log.info({ scope: query.scope, nodes: snapshot.nodes, ms: snapshot.ms, truncated: snapshot.truncated }, 'accessibility snapshot')
    if (snapshot.truncated) reply.header('x-accessibility-truncated', 'true')
    if (query.format === 'compact') return reply.type('text/plain; charset=utf-8').send(serializeCompact(snapshot.envelope))
    return reply.type('application/json; charset=utf-8').send(snapshot.envelope)
  })
}
