/**
 * One log line per request, written when it is answered, in place of Fastify's two (one on
 * arrival, one on completion): on a host of desktops an agent's every move is a request, and
 * each line costs the server CPU (serialized, redacted, written). The arrival line is kept at
 * debug, for following a request that has not been answered yet.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

export class RequestLog extends LogController {
  override incomingRequest (request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }
    if (error) reply.log.error({ ...fields, err: error }, 'request errored')
    else reply.log.info(fields, 'request completed')
  }
}
