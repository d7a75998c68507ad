/**
 * A JSON content type with an empty body is no body, for routes that take none (pause, resume,
 * stop): generated clients (the Scrapybara SDK's) send the header on every POST. Scoped to the
 * plugin that calls it; anything else that is not JSON is a 400 that says so.
 */
import type { FastifyInstance } from 'fastify'
import { InvalidDesktopRequest } from '../../src/errors/errors.ts'

export function emptyJsonIsNoBody (scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json')
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    if (text === '') { done(null, undefined); return }
    try {
      done(null, JSON.parse(text as string))
    } catch {
      done(new InvalidDesktopRequest('the body is not valid JSON'), undefined)
    }
  })
}
