/**
 * The HTTP floor: a Fastify server whose POST /computer parses the JSON body and answers `{}`,
 * with nothing behind it. The bench times it with the same keep-alive client as our server, in
 * a process of its own as ours is, so "ours ÷ floor" is what the server adds above HTTP.
 * Usage: floor-server.ts PORT
 */
import Fastify from 'fastify'

const port = Number(process.argv[2])
const app = Fastify({ logger: false })
app.post('/computer', async () => ({}))
await app.listen({ host: '127.0.0.1', port })
