/**
 * The path a forwarded request asks of a desktop: what follows /desktops/{id} as the client wrote
 * it (the id may have come percent-encoded), query included. It starts with '/', so the desktop's
 * URL keeps its host and port; one with a '..' segment, written plainly or percent-encoded, is
 * refused here with a 400 that says so, rather than sent on (the desktop's own routes have none).
 */
import type { FastifyRequest } from 'fastify'
import { InvalidDesktopRequest } from '../../src/errors/errors.ts'

export function desktopPath (request: FastifyRequest): string {
  const path = request.url.replace(/^\/desktops\/[^/?#]*/, '')
  const [pathname = ''] = path.split('?')
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    throw new InvalidDesktopRequest(`the path ${pathname} is not valid percent-encoding`)
  }
  if (!path.startsWith('/') || decoded.split(/[/\\]/).includes('..')) {
    throw new InvalidDesktopRequest(`the path ${pathname} has a '..' segment: the fleet forwards a desktop's own paths only`)
  }
  return path
}
