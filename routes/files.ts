/**
 * /files — files in and out of the desktop's home directory (--files): PUT uploads a raw
 * body, GET downloads one, GET /files?path= lists a directory, DELETE removes. Behind the
 * same token and Origin/Host guard as every route. Bodies are streamed to and from disk:
 * this plugin reads no body into memory (its content type parser hands the stream on).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { RouteNotFound } from '../src/errors/errors.ts'
import { FileDeleted, FileListing, FilesQuery, FileWritten } from '../src/files/schema.ts'
import type { FileStore } from '../src/files/store.ts'
import type { ControlLease } from '../src/control/lease.ts'
import { ErrorBody } from '../src/schemas/error-body.ts'

const PathParams = Type.Object({
  '*': Type.String({ description: 'The file\'s path relative to the desktop\'s home directory, e.g. `Documents/report.csv`.' }),
})

const errors = { '4xx': Type.Ref(ErrorBody), '5xx': Type.Ref(ErrorBody) }

/** Uploads of any type arrive as a stream, unparsed and unbuffered (scoped to the plugin that calls it). */
function streamedBodies (fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', (_request, _payload, done) => { done(null) })
}

/** Without --files: every /files route says how to turn it on. */
export const filesOffRoutes: FastifyPluginAsync = async (fastify) => {
  streamedBodies(fastify)
  const off = async () => {
    throw new RouteNotFound('file transfer is off on this server: start it with --files (env FILES=1)')
  }
  for (const url of ['/files', '/files/*']) fastify.route({ method: ['GET', 'PUT', 'DELETE'], url, schema: { hide: true }, handler: off })
}

/** Writes (PUT, DELETE) change the desktop: not while a person holds it (`control`, 423); reads go on. */
export const filesRoutes: FastifyPluginAsyncTypebox<{ store: FileStore, control?: ControlLease }> = async (fastify, { store, control }) => {
  streamedBodies(fastify as unknown as FastifyInstance)

  fastify.put('/files/*', {
    schema: {
      operationId: 'uploadFile',
      summary: 'Upload a file into the desktop\'s home directory (raw body)',
      description: 'The body is the file, as is, of any content type. It is written to a temporary file beside the target and renamed onto it ' +
        'once complete: a cut-off upload leaves no file, and nobody sees half of one. Missing parent directories are created. ' +
        `At most --max-file-size bytes (${store.limits.maxFileSize} here), and the files under the home together at most --max-files-total ` +
        `(${store.limits.maxTotal} here; an upload with a Content-Length reserves it when admitted); 413 past either. ` +
        'Paths that leave the home (`..`, absolute, a link pointing out) answer 403; something there that is neither a file nor a directory, ' +
        'a loop of links, or a path changed while the upload ran, 409; a full disk, 507 (any file that was there is kept). ' +
        'A body slower than --request-timeout answers 408. While a person holds the desktop (POST /control/takeover), 423 and nothing is written.',
      tags: ['files'],
      params: PathParams,
      consumes: ['application/octet-stream'],
      response: { 201: Type.Ref(FileWritten), ...errors },
    },
  }, async (request, reply) => {
    const length = request.headers['content-length']
    try {
      control?.assertAgentMayAct()
      const written = await store.put(request.params['*'], request.raw, length === undefined ? undefined : Number(length))
      return await reply.code(201).send(written)
    } catch (error) {
      // Refused before the whole body came: the rest is never read, so the connection ends with the answer.
      if (!request.raw.complete) reply.header('connection', 'close')
      throw error
    }
  })

  fastify.get('/files/*', {
    schema: {
      operationId: 'downloadFile',
      summary: 'Download a file from the desktop\'s home directory',
      description: 'The file as is, with a content type from its name\'s extension (application/octet-stream when unknown). ' +
        'A directory, a FIFO, a socket or a device answers 409 (list a directory with GET /files?path=); a path that leaves the home, 403.',
      tags: ['files'],
      params: PathParams,
      produces: ['application/octet-stream'],
      response: { 200: { description: 'The file\'s bytes.', type: 'string', format: 'binary' }, ...errors },
    },
  }, async (request, reply) => {
    const file = await store.get(request.params['*'])
    return reply
      .type(file.type)
      .header('content-length', file.size)
      // A download, never a page the browser renders in the server's origin.
      .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`)
      .header('x-content-type-options', 'nosniff')
      .send(file.stream)
  })

  fastify.get('/files', {
    schema: {
      operationId: 'listFiles',
      summary: 'List a directory of the desktop\'s home directory',
      description: 'Names, kinds, sizes and modification times, sorted by name. Symbolic links are listed as links, not followed.',
      tags: ['files'],
      querystring: Type.Ref(FilesQuery),
      response: { 200: Type.Ref(FileListing), ...errors },
    },
  }, async (request) => store.list(request.query.path ?? ''))

  fastify.delete('/files/*', {
    schema: {
      operationId: 'deleteFile',
      summary: 'Delete a file, a link or an empty directory under the desktop\'s home directory',
      description: 'A symbolic link is deleted itself, never what it points to; a directory only when empty (else 409). ' +
        'While a person holds the desktop (POST /control/takeover), 423 and nothing is deleted.',
      tags: ['files'],
      params: PathParams,
      response: { 200: Type.Ref(FileDeleted), ...errors },
    },
  }, async (request) => {
    control?.assertAgentMayAct()
    return await store.remove(request.params['*'])
  })
}
