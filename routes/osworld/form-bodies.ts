/**
 * The harness posts some fields as a form (`/file`'s file_path, `/window_size`'s
 * app_class_name): urlencoded bodies become objects of strings, validated like JSON. Multipart
 * (`/setup/upload`) stays a stream for its route.
 */
import type { FastifyInstance } from 'fastify'

export function formBodies (app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => { done(null) })
}
