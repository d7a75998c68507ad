/**
 * The guest's token check. OSWorld's harness has no token setting, but it builds every URL as
 * `http://{vm_ip}:{port}`, and requests sends a URL's user info as Basic auth: a vm_ip of
 * `osworld:<token>@host` carries the token, its user name ignored. A Bearer token works too.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { tokenMatches } from '../../src/http/auth.ts'
import { Unauthorized } from '../../src/errors/errors.ts'

function presented (authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)
  if (bearer) return bearer[1]!.trim()
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization)
  if (!basic) return undefined
  const pair = Buffer.from(basic[1]!, 'base64').toString('utf8')
  const colon = pair.indexOf(':')
  return colon === -1 ? undefined : pair.slice(colon + 1)
}

export function guestAuthHook (token: string) {
  return function checkToken (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    const given = presented(request.headers.authorization)
    if (given === undefined) {
      done(new Unauthorized('this server needs its API token: give the harness http://osworld:<token>@<host> as the VM address (Basic auth), or send "Authorization: Bearer <token>"'))
    } else if (!tokenMatches(given, token)) done(new Unauthorized('the API token is not valid'))
    else done()
  }
}
